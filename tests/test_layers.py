"""The shape of engines/: a module's folder is its layer, imports run one way, no circles.

Every module is parsed with ast: imports at module level and inside functions alike
(relative ones resolved), so a circle hidden in a function is still one.  Each folder is one
layer, lowest first (a module may import its own layer and the ones below):

    core         engines/core/
    engines      engines/interface.py, kinds.py, registry.py; engines/<game>/ and its kinds/ (its other folders apart)
    report       engines/report/, engines/<game>/report/
    planning     engines/pipeline/planning/     the config checked and planned into shards and jobs
    bookkeeping  engines/pipeline/bookkeeping/  timing records, the run lock and a campaign run's note
    compute      engines/pipeline/compute/      one shard computed and written, on its device
    catalog      engines/pipeline/catalog/      the warehouse, check records, kept measurements
    trust        engines/pipeline/trust/        verify, recompute, repair, clean
    progress     engines/pipeline/progress/     the progress model, its costs, a snapshot of the files
    snakemake    engines/pipeline/snakemake/    the one door to Snakemake
    commands     engines/pipeline/commands/     cardlab run, status and the live view
    campaign     engines/campaign/, engines/<game>/campaign/
    cli          engines/cli.py, engines/<game>/cli/

A folder this map does not know fails the test: a new folder says where it sits.  Nothing
under engines/report/ imports engines/pipeline/ (report code receives a connection).
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "engines"
LAYERS = [
    "core",
    "engines",
    "report",
    "planning",
    "bookkeeping",
    "compute",
    "catalog",
    "trust",
    "progress",
    "snakemake",
    "commands",
    "campaign",
    "cli",
]
# a game's own folders: engines/<game>/<folder>/
GAME_FOLDERS = {"kinds": "engines", "report": "report", "campaign": "campaign", "cli": "cli"}
MAX_FUNCTION_IMPORTS = 20
HANDLER = re.compile(r"engines(\.\w+)+:\w+")
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 450
# numba kernels and intrinsics: their length is the kernel's, not a structure to split
NUMBA_DECORATORS = {"njit", "jit", "generated_jit", "intrinsic", "overload", "vectorize", "guvectorize", "cfunc"}


@cache
def modules() -> dict[str, Path]:
    """engines.x.y -> its file, for every module (packages by their __init__.py)."""
    out = {}
    for path in sorted(ENGINES.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def resolve(name: str) -> str | None:
    """The engines module an imported name lands in (a module, or the package it is in)."""
    while name and name not in modules():
        name = name.rpartition(".")[0]
    return name or None


def node_is_handler(node: ast.AST) -> bool:
    """``func="engines.x.y:function"``: a command's handler, imported when the command runs (engines/cli)."""
    return (
        isinstance(node, ast.keyword)
        and node.arg == "func"
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and HANDLER.fullmatch(node.value.value) is not None
    )


def imports_of(module: str) -> list[tuple[str, int]]:
    """(engines module imported, line) for every import in ``module``, functions included."""
    path = modules()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{a.name}" for a in node.names]
        elif node_is_handler(node):
            names = [node.value.value.partition(":")[0]]  # a command's handler, func="engines.x.y:function"
        else:
            continue
        for name in names:
            target = resolve(name) if name.startswith("engines") else None
            if target is not None and target != module:
                found.append((target, node.lineno))
    return found


def folder_of(module: str) -> str:
    """The folder a module's file is in, relative to the repository (a package: its own folder)."""
    return str(modules()[module].parent.relative_to(ROOT))


class UnknownFolder(Exception):
    pass


def layer_of(module: str) -> str:
    """The layer of a module: its folder's, from the map in this module's docstring."""
    parts = folder_of(module).split("/")
    games = {p.name for p in ENGINES.iterdir() if (p / "engine.py").exists()}
    if parts == ["engines"]:
        return "engines"
    if parts == ["engines", "cli"]:
        return "cli"
    if parts[1] == "core" and len(parts) == 2:
        return "core"
    if parts[1] == "report" and len(parts) == 2:
        return "report"
    if parts[1] == "campaign" and len(parts) == 2:
        return "campaign"
    if parts[1] == "pipeline" and len(parts) == 3 and parts[2] in LAYERS:
        return parts[2]
    if parts[1] == "pipeline" and len(parts) == 2:
        return "core"  # the package's __init__: a docstring, no imports
    if parts[1] in games and len(parts) == 2:
        return "engines"
    if parts[1] in games and len(parts) == 3 and parts[2] in GAME_FOLDERS:
        return GAME_FOLDERS[parts[2]]
    raise UnknownFolder(f"{module}: folder {'/'.join(parts)} is in no layer (add it to tests/test_layers.py)")


def graph() -> dict[str, set[str]]:
    return {m: {t for t, _ in imports_of(m)} for m in modules()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def decorator_names(fn: ast.AST) -> set[str]:
    names = set()
    for d in getattr(fn, "decorator_list", []):
        d = d.func if isinstance(d, ast.Call) else d
        names.add(d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", ""))
    return names


def long_functions(path: Path) -> list[str]:
    """'module.function (N lines)' for every function over the limit, numba kernels (and the
    functions inside them, such as an intrinsic's codegen) exempt."""
    out = []

    def walk(node: ast.AST, scope: str, exempt: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kernel = exempt or bool(decorator_names(child) & NUMBA_DECORATORS)
                n = child.end_lineno - child.lineno + 1
                if n > MAX_FUNCTION_LINES and not kernel:
                    out.append(f"{scope}.{child.name} ({n} lines, line {child.lineno})")
                walk(child, f"{scope}.{child.name}", kernel)
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{scope}.{child.name}", exempt)

    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    walk(ast.parse(path.read_text(), str(path)), module, False)
    return out


def test_the_import_parser_sees_function_level_and_relative_imports():
    found = dict(imports_of("engines.pipeline.trust.verify"))
    assert "engines.pipeline.planning.plan" in found  # module level, relative
    assert "engines.pipeline.catalog.warehouse" in found  # inside a function
    assert "engines.core.store" in found  # inside a function, two dots
    call = ast.parse('s.set_defaults(func="engines.pipeline.trust.verify:cmd_verify")').body[0].value
    assert node_is_handler(call.keywords[0])
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_among_engines_modules():
    found = cycles(graph())
    lines = []
    for comp in found:
        for m in comp:
            lines += [f"{m} -> {t} (line {n})" for t, n in imports_of(m) if t in comp]
    assert not found, "import cycles:\n  " + "\n  ".join(lines)


def test_report_does_not_import_pipeline():
    bad = [
        f"{m} imports {t} (line {n})"
        for m in modules()
        if m.startswith("engines.report")
        for t, n in imports_of(m)
        if t.startswith("engines.pipeline")
    ]
    assert not bad, "engines/report/ reaches into engines/pipeline/:\n  " + "\n  ".join(bad)


def test_layers_import_downwards_only():
    bad = []
    for m in modules():
        rank = LAYERS.index(layer_of(m))
        for t, n in imports_of(m):
            if LAYERS.index(layer_of(t)) > rank:
                bad.append(f"{m} ({layer_of(m)}) imports {t} ({layer_of(t)}) at line {n}")
    assert not bad, "imports against the layer order " + " -> ".join(LAYERS) + ":\n  " + "\n  ".join(bad)


def test_the_layers_name_the_modules_the_brief_names():
    assert layer_of("engines.core.layout") == "core"
    assert layer_of("engines.pipeline.catalog.warehouse") == "catalog"
    assert layer_of("engines.pipeline.trust.verify") == "trust"
    assert layer_of("engines.report.common") == layer_of("engines.narcotic.report") == "report"
    assert layer_of("engines.pipeline.snakemake.steps") == "snakemake"
    assert layer_of("engines.cli") == layer_of("engines.redblack.cli") == layer_of("engines.narcotic.cli") == "cli"
    assert layer_of("engines.narcotic.kernel") == layer_of("engines.kinds") == "engines"
    assert layer_of("engines.redblack.campaign.next") == layer_of("engines.campaign.command") == "campaign"


def test_every_module_is_in_a_folder_of_a_layer():
    unknown = []
    for m in modules():
        try:
            layer_of(m)
        except UnknownFolder as e:
            unknown.append(str(e))
    assert not unknown, "\n  ".join(["folders in no layer:", *unknown])


def test_a_folder_the_map_does_not_know_fails():
    try:
        layer_of_folder = layer_of.__wrapped__ if hasattr(layer_of, "__wrapped__") else layer_of
        modules()["engines.pipeline.nowhere.x"] = ENGINES / "pipeline" / "nowhere" / "x.py"
        layer_of_folder("engines.pipeline.nowhere.x")
    except UnknownFolder:
        pass
    else:
        raise AssertionError("a module in an unknown folder was given a layer")
    finally:
        modules().pop("engines.pipeline.nowhere.x", None)


def package_folder_of(module: str) -> str:
    """The folder a module counts in for cycles: a game's ``kinds/`` is its package's (the engine
    lists the kinds, and the kinds call the package's kernels: one package, two folders)."""
    folder = folder_of(module)
    return folder.removesuffix("/kinds") if folder.count("/") == 2 and folder.endswith("/kinds") else folder


def test_no_import_cycle_between_folders():
    folders: dict[str, set[str]] = {}
    for m in modules():
        here = package_folder_of(m)
        folders.setdefault(here, set()).update(
            package_folder_of(t) for t, _ in imports_of(m) if package_folder_of(t) != here
        )
    found = cycles(folders)
    assert not found, "folders that import each other: " + "; ".join(" <-> ".join(c) for c in found)


def test_every_pipeline_and_campaign_folder_says_what_it_owns_and_may_import():
    silent = []
    for init in [*sorted((ENGINES / "pipeline").glob("*/__init__.py")), ENGINES / "campaign" / "__init__.py"]:
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        if "owns" not in doc.lower() or "imports" not in doc.lower():
            silent.append(str(init.relative_to(ROOT)))
    assert not silent, "a folder's docstring says what it owns and what it imports: " + ", ".join(silent)


def function_level_imports() -> list[str]:
    """'module line' for every import of an engines module inside a function (TYPE_CHECKING blocks apart)."""
    out = []
    for m, path in modules().items():
        tree = ast.parse(path.read_text(), str(path))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("engines")):
                    out.append(f"{m} line {node.lineno}")
                elif isinstance(node, ast.Import) and any(a.name.startswith("engines") for a in node.names):
                    out.append(f"{m} line {node.lineno}")
    return sorted(set(out))


def test_imports_inside_functions_are_few():
    found = function_level_imports()
    assert len(found) <= MAX_FUNCTION_IMPORTS, (
        f"{len(found)} imports of engines modules inside functions (at most {MAX_FUNCTION_IMPORTS}): "
        "import at the top, so the arrows show:\n  " + "\n  ".join(found)
    )


def test_no_function_over_80_lines_outside_numba_kernels():
    bad = [f for path in modules().values() for f in long_functions(path)]
    assert not bad, f"functions over {MAX_FUNCTION_LINES} lines:\n  " + "\n  ".join(bad)


def test_no_module_over_450_lines():
    bad = []
    for m, path in modules().items():
        n = len(path.read_text().splitlines())
        if n > MAX_MODULE_LINES:
            bad.append(f"{m} ({n} lines)")
    assert not bad, f"modules over {MAX_MODULE_LINES} lines:\n  " + "\n  ".join(bad)
