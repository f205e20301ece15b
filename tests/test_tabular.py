"""The one writer of command tables (engines/core/tabular.py): cells parse back to the same values."""

from __future__ import annotations

import csv
import io
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from engines.core.tabular import cell, csv_text, text_table


def test_numpy_scalars_are_plain_numbers_not_reprs():
    assert cell(np.float64(0.2833985531037935)) == "0.2833985531037935"
    assert cell(np.float32(0.5)) == "0.5"
    assert cell(np.int64(7)) == "7" and cell(np.int32(-3)) == "-3"
    assert cell(Fraction(3, 7)) == "3/7" and cell(None) == "" and cell(True) == "true" and cell("bust") == "bust"


@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(-(2**63), 2**63 - 1))
def test_every_number_parses_back_to_itself(x, n):
    text = csv_text(("x", "numpy x", "n", "numpy n"), [(x, np.float64(x), n, np.int64(n))])
    header, row = list(csv.reader(io.StringIO(text)))
    assert header == ["x", "numpy x", "n", "numpy n"]
    assert float(row[0]) == float(row[1]) == x and int(row[2]) == int(row[3]) == n


def test_text_cells_are_quoted_by_the_csv_module():
    text = csv_text(("name", "p"), [('a, "b"', 0.5), ("line\nbreak", None)])
    assert list(csv.reader(io.StringIO(text))) == [["name", "p"], ['a, "b"', "0.5"], ["line\nbreak", ""]]


def test_text_table_aligns_numbers_right_and_text_left():
    lines = text_table(("outcome", "p"), [("bust", np.float64(0.28339855)), ("natural", 0.05)]).splitlines()
    assert lines == ["outcome         p", "-------  --------", "bust     0.283399", "natural      0.05"]
