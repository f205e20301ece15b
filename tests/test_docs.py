"""The docs a newcomer reads first stay true to the code.

* docs/engines.md's table of shard kinds is generated from the registry (every engine's ``kinds``)
  and must equal what this module renders; ``make docs`` (``python tests/test_docs.py --write``)
  rewrites it.  Every class the doc names in backticks exists in engines/.
* Every path in the README's layout table exists.
* Every module docs/architecture.md names exists.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import cache
from pathlib import Path

from engines.kinds import ShardKind
from engines.registry import engines

ROOT = Path(__file__).resolve().parent.parent
ENGINES_MD = ROOT / "docs" / "engines.md"
BEGIN = "<!-- kinds: generated from the registry by `make docs` (tests/test_docs.py); do not edit by hand -->"
END = "<!-- /kinds -->"
TICKED = re.compile(r"`([^`]+)`")
FENCED = re.compile(r"^```.*?^```", re.S | re.M)
# backticked words that are no class of engines/
NOT_CLASSES = {"None", "True", "False", "Makefile", "Snakefile", "REPORT"}
# the layout table's folders that a run makes (a clean clone has none)
GENERATED = {"reports/"}


def ticked(text: str) -> list[str]:
    """What a Markdown text puts in backticks, outside its fenced code blocks."""
    return TICKED.findall(FENCED.sub("", text))


def _summary(cls: type) -> str:
    """The first sentence of a class's docstring, in Markdown."""
    text = " ".join((cls.__doc__ or "").split("\n\n")[0].split())
    text = re.split(r"(?<=[^.])\.(?:\s|$)", text, maxsplit=1)[0]
    text = re.sub(r":\w+:`\.?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`").replace("|", "\\|")


def _where(cls: type) -> str:
    return cls.__module__.replace(".", "/") + ".py"


def kind_classes() -> list[tuple[str, ShardKind]]:
    """(game, kind) of every registered kind, in registry and planning order."""
    return [(eng.name, kind) for eng in engines() for kind in eng.kinds]


def shared_bases() -> dict[type, list[type]]:
    """Every unregistered ShardKind subclass a registered kind builds on -> the kinds built on it."""
    registered = {type(kind) for _, kind in kind_classes()}
    bases: dict[type, list[type]] = {}
    for _, kind in kind_classes():
        for cls in type(kind).__mro__[1:]:
            if cls is ShardKind:
                break
            if cls not in registered:
                bases.setdefault(cls, []).append(type(kind))
    return bases


def kinds_table() -> str:
    """The block docs/engines.md carries between BEGIN and END."""
    rows = [
        BEGIN,
        "| game | `kind` | class | stage | tables | what a shard is |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for game, kind in kind_classes():
        cls = type(kind)
        tables = ", ".join(f"`{t}`" for t in kind.tables)
        rows.append(
            f"| {game} | `{kind.name}` | `{cls.__name__}` (`{_where(cls)}`) | `{kind.stage}` | {tables} | {_summary(cls)} |"
        )
    bases = shared_bases()
    if bases:
        rows.append("")
        rows.append("The classes kinds build on that are no kind themselves:")
        rows.append("")
        for base, users in bases.items():
            built = ", ".join(f"`{u.__name__}`" for u in users)
            summary = _summary(base)
            rows.append(
                f"- `{base.__name__}` (`{_where(base)}`, the base of {built}): {summary[:1].lower()}{summary[1:]}"
            )
    rows.append(END)
    return "\n".join(rows)


def doc_block(text: str) -> str:
    start, end = text.find(BEGIN), text.find(END)
    assert 0 <= start < end, f"docs/engines.md lacks its generated kinds table ({BEGIN!r} ... {END!r})"
    return text[start : end + len(END)]


def write_kinds_table() -> None:
    text = ENGINES_MD.read_text()
    ENGINES_MD.write_text(text.replace(doc_block(text), kinds_table()))


@cache
def engine_classes() -> set[str]:
    """Every class defined in engines/ (and the toy game tests/test_new_game.py registers)."""
    names = set()
    for path in [*(ROOT / "engines").rglob("*.py"), ROOT / "tests" / "test_new_game.py"]:
        names |= {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.ClassDef)}
    return names


def test_the_kinds_table_is_the_registrys():
    assert doc_block(ENGINES_MD.read_text()) == kinds_table(), (
        "docs/engines.md's kinds table is not the registry's: `make docs` rewrites it"
    )


def test_every_registered_kind_class_is_in_the_doc():
    text = ENGINES_MD.read_text()
    named = set(ticked(text))
    missing = [type(k).__name__ for _, k in kind_classes() if type(k).__name__ not in named]
    missing += [b.__name__ for b in shared_bases() if b.__name__ not in named]
    assert not missing, f"docs/engines.md does not name these shard kinds: {missing}"


def test_every_class_the_engines_doc_names_exists():
    names = {t for t in ticked(ENGINES_MD.read_text()) if re.fullmatch(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*", t)}
    gone = sorted(names - NOT_CLASSES - engine_classes())
    assert not gone, f"docs/engines.md names classes that do not exist: {gone}"


# --- the README's layout table


def layout_rows() -> list[tuple[str, str]]:
    """(path cell, what cell) of every row of the README's layout table."""
    lines = (ROOT / "README.md").read_text().splitlines()
    start = lines.index("| path | what |")
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        rows.append((cells[0], " | ".join(cells[1:])))
    return rows


def games() -> list[str]:
    return [eng.name for eng in engines()]


def expand(token: str) -> list[str]:
    """A path with ``<game>`` as every game's."""
    return [token.replace("<game>", g) for g in games()] if "<game>" in token else [token]


def exists(path: str, base: Path = ROOT) -> bool:
    return any(base.glob(path)) if "*" in path else (base / path).exists()


FILE = re.compile(r"[\w./*<>-]+(?:\.(?:py|sql|yaml|md|smk|rst)|/)")


def test_every_path_in_the_readmes_layout_table_exists():
    rows = layout_rows()
    assert len(rows) >= 8
    bad = []
    for where, what in rows:
        dirs = [p for t in TICKED.findall(where) for p in expand(t)]
        bad += [f"{p} (path column)" for p in dirs if not exists(p) and p not in GENERATED]
        for target in re.findall(r"\]\(([^)#]+)", what):
            if not exists(target):
                bad.append(f"{target} (link in the row of {where})")
        for token in TICKED.findall(what):
            token = token.split()[0]
            if "<" in token or not FILE.fullmatch(token):
                continue
            if "/" in token.rstrip("/"):  # a path from the repository's root
                ok = exists(token)
            else:  # a file or folder inside the row's own paths (in at least one game's package)
                ok = any(exists(token, ROOT / d) for d in dirs if (ROOT / d).is_dir())
            if not ok:
                bad.append(f"{token} (in the row of {where})")
    assert not bad, "the README's layout table names paths that do not exist:\n  " + "\n  ".join(bad)


# --- docs/architecture.md


def test_every_module_docs_architecture_names_exists():
    text = (ROOT / "docs" / "architecture.md").read_text()
    names = {t.split()[0] for t in ticked(text) if t.split() and t.split()[0].endswith(".py")}
    assert len(names) >= 20
    everywhere = {p.name for p in ROOT.glob("engines/**/*.py")}
    bad = []
    for name in sorted(names):
        if "/" not in name:
            ok = name in everywhere
        else:
            ok = any(exists(p) or exists(p, ROOT / "engines") for p in expand(name))
        if not ok:
            bad.append(name)
    assert not bad, f"docs/architecture.md names modules that do not exist: {bad}"


def test_the_where_a_change_goes_table_names_ten_changes_and_paths_that_exist():
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Where a change goes", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in section.splitlines() if r.startswith("| ") and not r.startswith(("| to change", "| ---"))]
    assert len(rows) >= 10, rows
    bad = []
    for row in rows:
        paths = [t for t in ticked(row) if FILE.fullmatch(t)]
        assert paths, f"a row names no path: {row}"
        # a bare name (`engine.py`, `report/`) is inside the folder the row names first
        folder = next((t for t in paths if t.endswith("/") and "/" in t[:-1]), "")
        for t in paths:
            name = t if "/" in t.rstrip("/") else folder + t
            bad += [f"{p} (row: {row.split('|')[1].strip()})" for p in expand(name) if not exists(p)]
    assert not bad, "docs/architecture.md's 'Where a change goes' names paths that do not exist:\n  " + "\n  ".join(bad)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_docs.py --write   (rewrites docs/engines.md's kinds table)")
    write_kinds_table()
