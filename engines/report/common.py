"""Report helpers shared by every game: Markdown/CSV tables and figures from SQL.

Every number in a report comes from a query over the warehouse; nothing is
typed by hand.  Each game's ``engines/<game>/report.py`` has
``build(con, outdir) -> list[Path]``.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path

import duckdb

from ..core.errors import CardlabError
from ..core.store import atomic_write, write_text

REPORTS = Path("reports")


def query(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> tuple[list[str], list[tuple]]:
    rel = con.execute(sql, params) if params is not None else con.execute(sql)
    cols = [d[0] for d in rel.description]
    return cols, rel.fetchall()


def heading(col: str) -> str:
    """A column name as a table heading: ``hands_per_upcard`` -> ``hands per upcard``."""
    return col.replace("_", " ")


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 deal``, ``2 deals``, ``1,000 games`` (thousands separated)."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def fmt(value, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != value:
            return "–"
        if abs(value) >= 1000 or value == int(value) and abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def pct(p) -> str:
    """A probability as a percentage with three decimals; '–' when missing."""
    return "–" if p is None else f"{100 * p:.3f} %"


def markdown_table(cols: Sequence[str], rows: Sequence[Sequence], formats: dict | None = None) -> str:
    """A GitHub-style Markdown table; ``formats`` maps a column to a callable."""
    formats = formats or {}
    out = ["| " + " | ".join(heading(c) for c in cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in rows:
        cells = [formats[c](v) if c in formats else fmt(v) for c, v in zip(cols, row)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def write_csv(path: Path, cols: Sequence[str], rows: Sequence[Sequence]) -> Path:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for row in rows:
        w.writerow(["" if v is None else (repr(v) if isinstance(v, float) else v) for v in row])
    return write_text(path, buf.getvalue())


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


def build_game(game: str, warehouse: str | os.PathLike, outdir: str | os.PathLike = REPORTS) -> list[Path]:
    """Write one game's report files from the warehouse; returns their paths."""
    from ..pipeline.warehouse import connect
    from ..registry import engine

    report = engine(game).module("report")
    if report is None:
        return []
    from .markdown import render_page

    con = connect(warehouse)
    try:
        files = report.build(con, Path(outdir))
    finally:
        con.close()
    # every Markdown report also as a readable page (a browser shows .md as plain text)
    return files + [render_page(f) for f in files if Path(f).suffix == ".md"]


def report_from_snakemake(smk) -> None:
    """The report step of workflow/scripts/step.py: one game's report files."""
    files = build_game(smk.params.game, smk.input[0], Path(smk.output[0]).parent)
    missing = [o for o in smk.output if Path(o) not in {Path(f) for f in files}]
    if missing:
        raise CardlabError(f"report for {smk.params.game} did not write {missing}")
