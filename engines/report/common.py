"""Report helpers shared by every game: queries with named fields, Markdown/CSV tables, figures.

Every number in a report comes from a query over the warehouse; nothing is
typed by hand.  Each game declares its report as one :class:`engines.report.game.GameReport`;
the caller opens the warehouse (read-only) and passes the connection, so report code
never knows where the warehouse lives.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import duckdb

from ..core import fmt
from ..core.errors import CardlabError
from ..core.store import atomic_write, write_text
from ..core.tabular import csv_text
from ..registry import engine
from .game import GameReport
from .markdown import render_page

REPORTS = Path("reports")


def query(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> tuple[list[str], list[tuple]]:
    """(column names, rows) of a query: for tables, whose cells are laid out in column order."""
    rel = con.execute(sql, params) if params is not None else con.execute(sql)
    cols = [d[0] for d in rel.description]
    return cols, rel.fetchall()


def records(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> list[dict]:
    """The rows of a query as dicts keyed by column name: report text reads fields by name."""
    cols, rows = query(con, sql, params)
    return [dict(zip(cols, r)) for r in rows]


def one(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> dict:
    """The single row of a query, as a dict (empty when the query returns nothing)."""
    rows = records(con, sql, params)
    return rows[0] if rows else {}


def heading(col: str) -> str:
    """A column name as a table heading: ``hands_per_upcard`` -> ``hands per upcard``."""
    return col.replace("_", " ")


def markdown_table(cols: Sequence[str], rows: Sequence[Sequence], formats: dict | None = None) -> str:
    """A GitHub-style Markdown table; ``formats`` maps a column to a callable."""
    formats = formats or {}
    out = ["| " + " | ".join(heading(c) for c in cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in rows:
        cells = [formats[c](v) if c in formats else fmt.value(v) for c, v in zip(cols, row)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def write_csv(path: Path, cols: Sequence[str], rows: Sequence[Sequence]) -> Path:
    """A report's CSV, atomically, through the one CSV writer (engines/core/tabular.py)."""
    return write_text(path, csv_text(cols, rows))


def save_figure(fig, path: Path) -> Path:
    """Save a matplotlib figure atomically as PNG (fixed metadata: same data, same bytes)."""
    import matplotlib.pyplot as plt

    with atomic_write(path) as fh:
        fig.savefig(fh, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return Path(path)


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def game_report(game: str) -> GameReport | None:
    """The :class:`GameReport` the engine's ``report`` names, or None for a game without a report."""
    import importlib

    ref = engine(game).report
    if ref is None:
        return None
    module, _, name = ref.partition(":")
    report = getattr(importlib.import_module(module), name or "REPORT")
    if not isinstance(report, GameReport):
        raise TypeError(f"{ref} is not an engines.report.game.GameReport")
    return report


def build_game(game: str, con: duckdb.DuckDBPyConnection, outdir: str | os.PathLike = REPORTS) -> list[Path]:
    """Write one game's report files from the warehouse connection ``con``; returns their paths.

    The files are the ones the game's engine declares (``report_files``), each Markdown
    report also rendered as a readable page (a browser shows ``.md`` as plain text)."""
    eng = engine(game)
    report = game_report(game)
    if report is None:
        return []
    files = [Path(f) for f in report.build(con, Path(outdir))]
    declared = {f.name for f in eng.report_files}
    if {f.name for f in files} != declared:
        raise CardlabError(
            f"report for {game} wrote {sorted(f.name for f in files)}, but its engine declares {sorted(declared)}"
        )
    return files + [render_page(f) for f in files if f.suffix == ".md"]
