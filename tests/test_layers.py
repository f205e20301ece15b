"""The shape of engines/: imports run one way, no circles, small functions and modules.

Every module is parsed with ast: imports at module level and inside functions alike
(relative ones resolved), so a circle hidden in a function is still one.  Layers, lowest
first (a module may import its own layer and the ones below):

    core      engines/core/*
    engines   engines/interface.py, engines/registry.py, engines/<game>/* (not report, cli)
    warehouse engines/pipeline/*/{config,plan,jobs,warehouse,...}.py (by module: PIPELINE_LAYER)
    verify    engines/pipeline/*/{verify,resume,repair,clean,...}.py, engines/report/*, engines/<game>/report.py
    steps     engines/pipeline/running/steps.py (the only module that knows Snakemake's job object)
    cli       engines/cli.py, engines/<game>/cli.py, engines/pipeline/*/{view,run}.py, engines/campaign/*

and nothing under engines/report/ imports engines/pipeline/ (report code receives a connection).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "engines"
LAYERS = ["core", "engines", "warehouse", "verify", "steps", "cli"]
PIPELINE_LAYER = {
    "config": "warehouse",
    "plan": "warehouse",
    "batches": "warehouse",  # part of the plan: which small shards share a job
    "check_records": "warehouse",
    "measurements": "warehouse",
    "jobs": "warehouse",
    "warehouse": "warehouse",
    "verify": "verify",
    "resume": "verify",
    "repair": "verify",
    "clean": "verify",
    "recompute": "verify",
    "terminal": "verify",
    "steps": "steps",
    "view": "cli",
    "run": "cli",
    # operations: reading a run's files and modelling its progress below, running Snakemake on top
    "records": "warehouse",  # every job writes its timing record; jobs (warehouse) and the readers above use it
    "devices": "warehouse",  # which GPU a shard job computes on (jobs claims it)
    "runstate": "verify",
    "model": "verify",
    "costs": "verify",
    "failures": "verify",
    "snapshot": "steps",
    "runner": "cli",
}
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
        else:
            continue
        for name in names:
            target = resolve(name) if name.startswith("engines") else None
            if target is not None and target != module:
                found.append((target, node.lineno))
    return found


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in ("interface", "registry"):
        return "engines"
    if parts[1] == "core":
        return "core"
    if parts[1] == "cli":
        return "cli"
    if parts[1] == "report":
        return "verify"
    if parts[1] == "campaign":  # the book is data a game writes; the command runs Snakemake
        return "engines" if parts[-1] == "book" else "cli"
    if parts[1] == "pipeline":
        return PIPELINE_LAYER.get(parts[-1], "steps") if len(parts) > 2 else "core"
    role = parts[2] if len(parts) > 2 else ""  # a game package
    return {"report": "verify", "cli": "cli"}.get(role, "engines")


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
    assert "engines.pipeline.running.plan" in found  # module level, relative
    assert "engines.pipeline.catalog.warehouse" in found  # inside a function
    assert "engines.core.store" in found  # inside a function, two dots
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
    assert layer_of("engines.pipeline.catalog.warehouse") == "warehouse"
    assert layer_of("engines.pipeline.trust.verify") == layer_of("engines.report.common") == "verify"
    assert layer_of("engines.pipeline.running.steps") == "steps"
    assert layer_of("engines.cli") == layer_of("engines.redblack.cli") == "cli"
    assert layer_of("engines.narcotic.kernel") == "engines"


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
