"""Tables a command prints, as data: one CSV writer and one aligned text table.

A cell is plain text a reader's ``csv`` module, pandas or DuckDB parses back to the same value:
integers as digits, floats as Python's shortest round-trip repr (``0.2833985531037935``), never a
numpy repr such as ``np.float64(0.28)``; fractions as ``p/q``; a missing value as an empty cell.
Light on purpose: command-line start-up imports it (no numpy; numpy scalars are recognised by the
``numbers`` ABCs they register with)."""

from __future__ import annotations

import csv
import io
import numbers
import sys
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import TextIO


def cell(value: object) -> str:
    """One value as CSV text (module docstring): the same number back when parsed."""
    if value is None:
        return ""
    if isinstance(value, bool):  # before Integral: bool is one
        return "true" if value else "false"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    return str(value)


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """The table as CSV (a header line, then one line a row; '\\n' line ends)."""
    buf = io.StringIO()
    write_csv(header, rows, buf)
    return buf.getvalue()


def write_csv(header: Sequence[str], rows: Iterable[Sequence[object]], out: TextIO | None = None) -> None:
    """Write the table as CSV to ``out`` (standard output when None, looked up per call so capture works)."""
    out = sys.stdout if out is None else out
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow([cell(v) for v in row])


def text_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """An aligned text table for a person: columns two spaces apart, a rule under the header, numbers
    right-aligned (floats to 6 significant digits), text left-aligned, None as NULL."""

    def shown(v: object) -> str:
        if v is None:
            return "NULL"
        if isinstance(v, numbers.Real) and not isinstance(v, (numbers.Integral, Fraction)):
            return f"{float(v):.6g}"
        return cell(v)

    cells = [[shown(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    numeric = [
        bool(rows) and all(isinstance(r[i], numbers.Real) and not isinstance(r[i], bool) or r[i] is None for r in rows)
        for i in range(len(header))
    ]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    return "\n".join([line(list(header)), "  ".join("-" * w for w in widths), *map(line, cells)]) + "\n"


def print_text_table(header: Sequence[str], rows: Sequence[Sequence[object]], out: TextIO | None = None) -> None:
    """:func:`text_table`, then how many rows it holds (``(3 rows)``), to ``out`` (standard output when None)."""
    out = sys.stdout if out is None else out
    out.write(text_table(header, rows))
    out.write(f"({len(rows)} row{'s' if len(rows) != 1 else ''})\n")
