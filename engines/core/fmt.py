"""How values read in reports and on the terminal: the one formatter family.

One mark for a missing value, numbers with thousands separators, shares as
percentages, durations to the second.  Light on purpose: command-line start-up
imports it (no numpy, duckdb or pyarrow)."""

from __future__ import annotations

import math

MISSING = "–"  # the one mark for a missing value, in Markdown and HTML alike


def missing(value) -> bool:
    """None or NaN: a value the reader sees as MISSING."""
    return value is None or (isinstance(value, float) and value != value)


def value(v, digits: int = 4) -> str:
    """A table cell: integers with thousands separators, floats to ``digits`` significant digits
    (whole thousands and more without decimals), booleans as yes/no, MISSING when missing."""
    if missing(v):
        return MISSING
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.{digits}g}"
    return str(v)


def fixed(v, decimals: int = 1) -> str:
    """A number with a fixed count of decimals (``12.3``); MISSING when missing."""
    return MISSING if missing(v) else f"{v:,.{decimals}f}"


def identifier(v) -> str:
    """A number that names something (a seed): its digits, no separators; MISSING when missing."""
    return MISSING if missing(v) else str(v)


def half_open(bounds) -> str:
    """A range ``[start, stop)`` of work items, as every page writes one: ``[0, 125,000)``."""
    start, stop = bounds
    return f"[{start:,}, {stop:,})"


def pct(p) -> str:
    """A probability as a percentage with three decimals; MISSING when missing."""
    return MISSING if missing(p) else f"{100 * p:.3f} %"


def pct_range(lo, hi) -> str:
    """An interval of probabilities: ``12.345 % – 13.456 %``."""
    return f"{pct(lo)} – {pct(hi)}"


def pct_pm(p: float, lo: float, hi: float) -> str:
    """``p % ± h %`` with h the half-width of the interval, both to two significant digits of h."""
    half = 100 * (hi - lo) / 2
    decimals = max(1, 1 - math.floor(math.log10(half))) if half > 0 else 1
    return f"{100 * p:.{decimals}f} % ± {half:.{decimals}f} %"


def small_pct(share: float) -> str:
    """A (small) share as a percentage with two significant digits, without scientific notation."""
    if share <= 0:
        return "0 %"
    text = f"{100 * share:.2g}"
    if "e" in text:
        digits = max(0, -int(f"{100 * share:e}".split("e")[1]) + 1)
        text = f"{100 * share:.{digits}f}"
    return f"{text} %"


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 deal``, ``2 deals``, ``1,000 games`` (thousands separated)."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def duration(seconds) -> str:
    """Seconds to the second: ``1 h 44 min 46 s``, ``4 min 07 s``, ``12 s``; MISSING when missing."""
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


def eta(seconds) -> str:
    """A time still to wait, to the precision a forecast has: to the second under ten minutes,
    to the minute above (``1 h 38 min``: the seconds of an hour-long forecast are noise)."""
    if seconds is None or not 600 <= seconds < float("inf"):  # short, missing or NaN: duration's
        return duration(seconds)
    h, m = divmod(int(round(seconds / 60)), 60)
    return f"{h} h {m:02d} min" if h else f"{m} min"


def count(n: int, unit: str) -> str:
    """``n`` with thousands separators and its unit, singular for one: ``1 basin job``, ``2,000 deals``."""
    if n == 1 and unit.endswith("s"):
        unit = unit[:-1]
    return f"{n:,} {unit}"


def hours_text(h: float) -> str:
    """Core-hours to the precision that matters: 3 significant digits below 100, whole hours above."""
    if float(f"{h:.3g}") >= 100:  # 99.96 rounds up to a whole-hours figure, not to "100."
        return f"{h:,.0f}"
    return f"{h:#.3g}"  # '#' keeps trailing zeros: 36.0 says its third digit was measured, 36 would not


def listed(names, most: int = 3) -> str:
    """The first ``most`` names, and how many more: ``a, b, c and 4 more``."""
    names = list(names)
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")
