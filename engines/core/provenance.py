"""Engine version hashes and the provenance record every Parquet file carries."""

from __future__ import annotations

import ast
import hashlib
import io
import json
import re
import tokenize
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # engines/

# Every engine's version covers the shared core too: a change in seeding, shard planning,
# splitting a kernel's work over threads or Parquet writing can change any game's results.
# Every other engines module a shard job imports is declared neutral (engines/core/neutral.py).
CORE_FILES = ("core/rng.py", "core/shards.py", "core/store.py", "core/provenance.py", "core/threads.py")

_PACKAGES = ("numpy", "numba", "pyarrow", "duckdb", "polars", "snakemake")

# A shard kind's method (engines/kinds.py's ShardKind.schedule, returning a Schedule) that schedules its job,
# never what it computes: left out of versions.  Its prices are data (engines/prices.yaml), in no version.
SCHEDULING_HOOKS = frozenset({"schedule"})


def files_version(files: tuple[str, ...] | list[str]) -> str:
    """Short sha256 over the named files under engines/: their names and their code (:func:`code_of`), in order.

    Versions change when results can: a comment, a docstring or a layout change in a
    hashed file leaves every version, and so every shard and report, as it was."""
    h = hashlib.sha256()
    for name in files:
        h.update(name.encode())
        h.update(b"\0")
        h.update(code_of(PACKAGE_DIR / name))
        h.update(b"\0")
    return h.hexdigest()[:16]


def code_of(path: Path) -> bytes:
    """What of a source file can change what it computes: Python and SQL as their
    tokens without comments (and, for Python, without docstrings or line breaks
    inside brackets); any other file as its bytes."""
    st = path.stat()
    return _code_of(str(path), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=1024)  # a Snakemake run asks for every shard's version: tokenizing is the cost
def _code_of(name: str, mtime_ns: int, size: int) -> bytes:
    path = Path(name)
    if path.suffix == ".py":
        return python_code(path.read_text(encoding="utf-8")).encode()
    if path.suffix == ".sql":
        return sql_code(path.read_text(encoding="utf-8")).encode()
    return path.read_bytes()


def python_code(text: str) -> str:
    """The tokens of a Python module, one a line, less comments, blank lines, indentation
    widths and bare string statements (docstrings, also of attributes): none of them runs;
    and less a kind's scheduling hooks (``SCHEDULING_HOOKS``): they run, but change no result.

    (No module whose code is hashed reads its own ``__doc__``; one that did would need
    its docstring kept.)"""
    tree = ast.parse(text)
    bare = _bare_string_spans(text, tree)  # sorted, disjoint
    scheduling = _scheduling_lines(tree)
    i = 0
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING) or tok.start[0] in scheduling:
            continue
        if tok.type == tokenize.STRING:
            while i < len(bare) and bare[i][1] <= tok.start:
                i += 1
            if i < len(bare) and bare[i][0] <= tok.start and tok.end <= bare[i][1]:
                continue
        layout = tok.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE, tokenize.ENDMARKER)
        out.append(tokenize.tok_name[tok.type] if layout else f"{tokenize.tok_name[tok.type]} {tok.string}")
    return "\n".join(out)


def _scheduling_lines(tree: ast.Module) -> set[int]:
    """The lines of the module's scheduling hooks (methods named in ``SCHEDULING_HOOKS``, their decorators too)."""
    lines: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name in SCHEDULING_HOOKS:
                    first = min([item.lineno, *(d.lineno for d in item.decorator_list)])
                    lines.update(range(first, item.end_lineno + 1))
    return lines


def _bare_string_spans(text: str, tree: ast.Module) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) as (line, character) of every statement that is only a string literal, in order."""
    lines = text.split("\n")

    def at(line: int, byte_col: int) -> tuple[int, int]:  # ast counts UTF-8 bytes, tokenize characters
        return line, len(lines[line - 1].encode()[:byte_col].decode())

    return sorted(
        (at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset))
        for node in _statements(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    )


def _statements(node: ast.AST) -> Iterator[ast.AST]:
    """Every statement under ``node`` (a bare string is one): expressions are not walked, which is
    most of a module's nodes."""
    for _, value in ast.iter_fields(node):
        if isinstance(value, list):
            for item in value:
                if isinstance(item, (ast.stmt, ast.excepthandler, ast.match_case)):
                    yield item
                    yield from _statements(item)


# SQL lexemes: quoted strings and identifiers (kept whole), comments (dropped), words, single characters
_SQL_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/|\w+|\S", re.S)


def sql_code(text: str) -> str:
    """The lexemes of SQL text, one space apart, without ``--`` and ``/* */`` comments."""
    return " ".join(t for t in _SQL_TOKEN.findall(text) if not t.startswith(("--", "/*")))


def package_versions() -> dict[str, str]:
    import importlib.metadata  # 12 ms: only a shard's provenance needs it, not `cardlab --help`

    out = {}
    for name in _PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def provenance(game: str, version: str, **fields) -> dict:
    """The key-value record stored in a shard's Parquet metadata.

    Deliberately carries no timestamp or host name: the same config and seeds
    must give byte-identical files on any machine and any number of cores.
    """
    record = {"game": game, "engine_version": version}
    record.update(fields)
    record["packages"] = package_versions()
    return record


def canonical_json(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))
