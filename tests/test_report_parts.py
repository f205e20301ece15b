"""The report layer's shared parts: one Wilson interval (Python and SQL agree), one formatter
family, one HTML page shell.  (Layers, circles and sizes: tests/test_layers.py.)"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from engines.core import fmt
from engines.core.stats import wilson, wilson_upper
from engines.interface import views_sql
from engines.registry import engine

ENGINES = Path(__file__).resolve().parent.parent / "engines"
REPORT_CODE = sorted([*(ENGINES / "report").glob("*.py"), *ENGINES.glob("*/report.py"), *ENGINES.glob("*/report/*.py")])


@pytest.mark.parametrize(("hits", "n"), [(0, 1), (0, 300), (1, 3), (17, 1000), (4321, 10_000), (999, 1000)])
def test_python_wilson_is_the_narcotic_views_wilson(hits, n):
    """The narcotic_summary view's win_lo95 / win_hi95 and core.stats.wilson are one interval."""
    con = duckdb.connect()
    games = pa.table(
        {
            "experiment": ["e"] * n,
            "variant": ["v"] * n,
            "matching": ["deal"] * n,
            "gather": ["top-right"] * n,
            "pile_four": ["keep"] * n,
            "game": list(range(n)),
            "won": [i < hits for i in range(n)],
            "passes": [3] * n,
            "time_s": [60] * n,
            "cycle_length": [2] * n,
        }
    )
    con.register("narcotic_games", games)
    for name, schema in engine("narcotic").tables.items():  # the other shard tables, empty
        if name != "narcotic_games":
            con.register(name, schema.empty_table())
    for name, table in engine("narcotic").warehouse_tables().items():
        con.register(name, table)
    for stmt in views_sql(engine("narcotic")):
        con.execute(stmt)
    lo, hi = con.execute("SELECT win_lo95, win_hi95 FROM narcotic_summary").fetchone()
    assert wilson(hits, n) == pytest.approx((lo, hi), rel=1e-12, abs=1e-15)
    assert wilson_upper(hits, n) == wilson(hits, n)[1]
    assert -1e-15 <= lo <= hits / n <= hi <= 1 + 1e-15


def test_wilson_upper_bound_of_no_hits():
    # the rule of three: with none in n, the 95 % bound is about 3.84 / n
    assert wilson(0, 1_000_000)[0] == pytest.approx(0, abs=1e-15)
    assert wilson_upper(0, 1_000_000) == pytest.approx(1.959963984540054**2 / 1_000_000, rel=1e-5)


def test_one_formatter_family():
    assert [fmt.value(v) for v in (None, float("nan"), True, 1234567, 0.0123456, 12345.6, "x")] == [
        fmt.MISSING,
        fmt.MISSING,
        "yes",
        "1,234,567",
        "0.01235",
        "12,346",
        "x",
    ]
    assert fmt.pct(None) == fmt.fixed(None) == fmt.identifier(None) == fmt.MISSING
    assert fmt.identifier(20260101) == "20260101" and fmt.fixed(1234.56) == "1,234.6"
    assert fmt.plural(1, "deal") == "1 deal" and fmt.plural(2000, "round") == "2,000 rounds"
    assert fmt.small_pct(4e-7) == "0.000040 %" and fmt.pct_pm(0.5, 0.49, 0.51) == "50.0 % ± 1.0 %"


def test_the_html_page_shell_lives_once():
    shells = [p for p in REPORT_CODE if "<!doctype html>" in p.read_text()]
    assert [p.name for p in shells] == ["page.py"]


def test_blackjack_effects_of_removal_section_reads_the_warehouse():
    """The Blackjack report's "Effects of removal" from the table and its view alone: the single-deck
    table's cells and each deck count's largest effect are the SQL values; no rows, one line."""
    from engines.blackjack.depleted import effects_of_removal_table
    from engines.blackjack.report.markdown import removal_section

    con = duckdb.connect()
    try:
        table = effects_of_removal_table()
        con.register("effects_in", table)
        con.execute("CREATE TABLE blackjack_effects_of_removal AS SELECT * FROM effects_in")
        (view,) = [s for s in views_sql(engine("blackjack")) if "VIEW blackjack_bust_effects" in s]
        con.execute(view)
        md = "\n".join(removal_section(con))
        base, five = con.execute(
            "SELECT base_bust, \"5\" FROM blackjack_bust_effects WHERE decks = '1' AND soft17 = 'stand' AND upcard = '5'"
        ).fetchone()
        assert f"\n| 5 | {base:.2f}% |" in md and f"| {five:+.3f} |" in md
        for decks, largest in con.execute(
            "SELECT decks, arg_max(delta, abs(delta)) * 100 FROM blackjack_effects_of_removal "
            "WHERE outcome = 'bust' AND soft17 = 'stand' GROUP BY decks"
        ).fetchall():
            assert f"- {fmt.plural(int(decks), 'deck')}: the largest effect is {largest:+.3f} points" in md
        con.execute("DELETE FROM blackjack_effects_of_removal")
        assert removal_section(con) == ["## Effects of removal", "", "No effects of removal in the warehouse.", ""]
    finally:
        con.close()
