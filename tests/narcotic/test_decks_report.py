"""The small-deck sections of narcotic.md agree with the warehouse: every number checked against SQL."""

from __future__ import annotations

from fractions import Fraction

import pytest
from wfhelp import shards_warehouse

from engines.core.fmt import pct, pct_pm
from engines.narcotic.exact import sequence_count
from engines.pipeline.catalog.warehouse import connect
from engines.report.common import build_game

SECTION = {
    "experiments": [
        {"name": "seed", "rules": "seed", "games": 3000, "shards": 1, "seed": 1},
        {"name": "decks", "rules": "seed", "ranks": [2, 3, 5], "games": 4000, "shards": 2, "seed": 4},
    ],
    "exhaustive": [{"ranks": [2, 3], "rules": "seed"}, {"ranks": [2], "rules": "classic"}],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("narcotic_decks")
    con = connect(shards_warehouse("narcotic", SECTION, root))
    try:
        files = build_game("narcotic", con, root / "reports")
        yield con, (root / "reports/narcotic.md").read_text(), files
    finally:
        con.close()


def rows_of(md: str, section: str) -> list[list[str]]:
    text = md.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("| ")]


def test_exact_rows_are_the_counts_reduced(built):
    con, md, _ = built
    rows = {r[0]: r for r in rows_of(md, "Smaller decks, exactly") if r[0] in ("2", "3") and len(r) == 10}
    for r in (2, 3):
        seqs, won, won_time = con.execute(
            "SELECT sum(sequences), sum(won), sum(won_time_s) FROM narcotic_exhaustive "
            "WHERE ranks = ? AND matching = 'deal' AND gather = 'top-right' AND pile_four = 'keep'",
            [r],
        ).fetchone()
        assert seqs == sequence_count(r)
        p, t = Fraction(int(won), int(seqs)), Fraction(int(won_time), int(won))
        row = rows[str(r)]
        assert row[2] == f"{seqs:,}"
        assert row[3] == f"{p.numerator}/{p.denominator} = {float(p):.6f}"
        assert row[4].startswith(f"{t.numerator}/{t.denominator} s = {float(t):,.2f} s")
        games, wins = con.execute(
            "SELECT count(*), count(*) FILTER (WHERE won) FROM narcotic_games WHERE variant = ?",
            [f"deal.top-right.keep.r{r}"],
        ).fetchone()
        assert row[5] == f"{games:,} (decks)" and row[6].startswith(pct(wins / games))
        lo, hi = con.execute(
            "SELECT win_lo95, win_hi95 FROM narcotic_decks WHERE variant = ?", [f"deal.top-right.keep.r{r}"]
        ).fetchone()
        assert row[7] == ("yes" if lo <= float(p) <= hi else "**no**")


def test_coverage_check_counts_batches_against_the_exact_value(built):
    con, md, _ = built
    got = con.execute("SELECT ranks, batches, covered FROM narcotic_coverage_check ORDER BY ranks").fetchall()
    assert [r for r, _, _ in got] == [2, 3] and all(b == 100 for _, b, _ in got)
    # recount one deck's batches in Python from the games
    exact = con.execute("SELECT win_p FROM narcotic_exact WHERE variant = 'deal.top-right.keep.r3'").fetchone()[0]
    games = con.execute(
        "SELECT game, won FROM narcotic_games WHERE variant = 'deal.top-right.keep.r3' ORDER BY game"
    ).fetchall()
    from engines.core.stats import wilson

    batches: dict[int, list[bool]] = {}
    for g, won in games:
        batches.setdefault(g * 100 // len(games), []).append(won)
    covered = sum(1 for b in batches.values() if wilson(sum(b), len(b))[0] <= exact <= wilson(sum(b), len(b))[1])
    assert got[1][2] == covered
    assert f"| 3 | decks | 100 | 40 | {covered} of 100 |" in md


def test_trend_row_of_a_simulated_deck(built):
    con, md, _ = built
    games, wins, lo, hi = con.execute(
        "SELECT games, wins, win_lo95, win_hi95 FROM narcotic_decks WHERE variant = 'deal.top-right.keep.r5'"
    ).fetchone()
    trend = [r for r in rows_of(md, "Smaller decks, exactly") if len(r) == 5]
    row5 = next(r for r in trend if r[0] == "5")
    assert row5[2] == pct_pm(wins / games, lo, hi) and row5[4] == f"simulated, {games:,} games"
    row13 = next(r for r in trend if r[0] == "13")  # the full deck from the seed experiment
    assert row13[4] == "simulated, 3,000 games"
    assert [r[4] for r in trend if r[0] in ("2", "3")] == ["exact", "exact"]


def test_every_enumeration_is_listed(built):
    con, md, files = built
    exact = con.execute("SELECT ranks, variant, win_fraction FROM narcotic_exact ORDER BY ranks, variant").fetchall()
    assert len(exact) == 3
    for r, _, fraction in exact:
        assert f"| {r} | " in md and fraction in md
    assert any(f.name == "narcotic_decks.png" for f in files)
