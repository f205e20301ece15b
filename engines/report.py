"""Report helpers shared by every game: Markdown/CSV tables and figures from SQL.

Every number in a report comes from a query over the warehouse; nothing is
typed by hand.  Each game's ``engines/report_<game>.py`` has
``build(con, outdir) -> list[Path]``.
"""
from __future__ import annotations

import csv
import importlib
import io
import os
import sys
from pathlib import Path
from typing import Sequence

import duckdb

from .errors import CardlabError

REPORTS = Path("reports")


def query(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> tuple[list[str], list[tuple]]:
    rel = con.execute(sql, params) if params is not None else con.execute(sql)
    cols = [d[0] for d in rel.description]
    return cols, rel.fetchall()


def fmt(value, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if value != value:
            return "–"
        if abs(value) >= 1000 or value == int(value) and abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def markdown_table(cols: Sequence[str], rows: Sequence[Sequence], formats: dict | None = None) -> str:
    """A GitHub-style Markdown table; ``formats`` maps a column to a callable."""
    formats = formats or {}
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in rows:
        cells = [formats[c](v) if c in formats else fmt(v) for c, v in zip(cols, row)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def write_text_atomic(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return path


def write_csv(path: Path, cols: Sequence[str], rows: Sequence[Sequence]) -> Path:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for row in rows:
        w.writerow(["" if v is None else (repr(v) if isinstance(v, float) else v) for v in row])
    return write_text_atomic(path, buf.getvalue())


def save_figure(fig, path: Path) -> Path:
    """Save a matplotlib figure atomically as PNG (fixed metadata: same data, same bytes)."""
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.png")
    fig.savefig(tmp, dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    os.replace(tmp, path)
    return path


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def build_game(game: str, warehouse: str | os.PathLike, outdir: str | os.PathLike = REPORTS) -> list[Path]:
    from .warehouse import connect

    mod = importlib.import_module(f"engines.report_{game}")
    con = connect(warehouse)
    try:
        return mod.build(con, Path(outdir))
    finally:
        con.close()


def run_from_snakemake(smk) -> None:
    """Entry point of workflow/scripts/report.py: build one game's report."""
    try:
        files = build_game(smk.params.game, smk.input[0], Path(smk.output[0]).parent)
    except CardlabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    missing = [o for o in smk.output if Path(o) not in {Path(f) for f in files}]
    if missing:
        print(f"error: report for {smk.params.game} did not write {missing}", file=sys.stderr)
        sys.exit(1)
