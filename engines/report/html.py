"""HTML pieces shared by the one-page index and each game's section of it."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

import duckdb

from .common import heading, pct, query

__all__ = ["esc", "html_table", "num", "one", "pct", "pct_pm"]


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


def num(value, digits: int = 4) -> str:
    """A number for a table cell: integers with thousands separators, floats to ``digits`` significant."""
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.{digits}g}"
    return str(value)


def pct_pm(p: float, lo: float, hi: float) -> str:
    """``p % ± h %`` with h the half-width of the interval, both to two significant digits of h."""
    import math

    half = 100 * (hi - lo) / 2
    decimals = max(1, 1 - math.floor(math.log10(half))) if half > 0 else 1
    return f"{100 * p:.{decimals}f} % ± {half:.{decimals}f} %"


def html_table(cols: Sequence[str], rows: Sequence[Sequence], formats: dict[str, Callable] | None = None) -> str:
    formats = formats or {}
    head = "".join(f"<th>{esc(heading(c))}</th>" for c in cols)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{esc(formats[c](v) if c in formats else num(v))}</td>" for c, v in zip(cols, row))
        + "</tr>\n"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>\n"


def one(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> dict:
    """The single row of a query, as a dict (empty when the query returns nothing)."""
    cols, rows = query(con, sql, params)
    return dict(zip(cols, rows[0])) if rows else {}
