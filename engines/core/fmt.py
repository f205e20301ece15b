"""How values read in reports and on the terminal: one mark for a missing value, durations to the second.

Light on purpose: command-line start-up imports it (no numpy, duckdb or pyarrow)."""

from __future__ import annotations

MISSING = "–"  # the one mark for a missing value, in Markdown and HTML alike


def duration(seconds) -> str:
    """Seconds to the second: ``1 h 44 min 46 s``, ``4 min 07 s``, ``12 s``; '–' when missing."""
    if seconds is None or seconds != seconds or seconds in (float("inf"), float("-inf")):
        return MISSING
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    if h:
        return f"{h} h {m:02d} min {sec:02d} s"
    if m:
        return f"{m} min {sec:02d} s"
    return f"{sec} s"


def count(n: int, unit: str) -> str:
    """``n`` with thousands separators and its unit, singular for one: ``1 basin job``, ``2,000 deals``."""
    if n == 1 and unit.endswith("s"):
        unit = unit[:-1]
    return f"{n:,} {unit}"
