"""Every command-line route that prints a result, against the warehouse or the engine's exact values.

The warehouse and the command line reach the same answers by different code paths (shard
kinds vs. the CLI's own helpers); ``cardlab blackjack table --decks inf`` once printed the
one-deck table under the title "infinite shoe" because its path dealt the infinite shoe's
weights without replacement.  RedBlack ``search`` and Narcotic ``play`` are compared with the
engine and the reference in tests/redblack/test_redblack_cli.py and
tests/narcotic/test_cli_narcotic.py; here every route is compared with what the warehouse
(a finished tiny run) or the engine's exact law holds.
"""

from __future__ import annotations

import csv
import io
import sys
from fractions import Fraction
from itertools import product

import duckdb
import numpy as np
import pytest

from engines import narcotic as N
from engines.blackjack.exact import exact_outcomes
from engines.blackjack.kinds.dealer import ExactTables
from engines.blackjack.rules import DECKS, OUTCOMES, PEEK, SOFT17, UPCARD_VALUE, UPCARDS, shoe_counts
from engines.cli import main as cardlab
from engines.core.fmt import duration
from engines.core.progress import Progress

VARIANTS = list(product(DECKS, SOFT17, PEEK))


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = cardlab(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def csv_rows(text: str) -> dict[tuple[str, str], str]:
    """(upcard, outcome) -> exact fraction of ``blackjack table --csv``."""
    lines = text.splitlines()
    assert lines[0] == "upcard,outcome,probability,exact"
    rows = {}
    for line in lines[1:]:
        upcard, outcome, probability, exact = line.split(",")
        assert float(probability) == float(Fraction(exact))
        rows[upcard, outcome] = exact
    return rows


@pytest.fixture(scope="module")
def shard_rows() -> dict[tuple[str, str, str], dict[tuple[str, str], str]]:
    """The exact table of every variant as the warehouse's shard kind writes it."""
    spec = {"variants": [list(v) for v in VARIANTS]}
    cols = ExactTables().run(spec, Progress(len(VARIANTS), "tables", enabled=False), [], "cpu")["blackjack_exact_probs"]
    rows: dict = {}
    for d, s, p, u, o, e in zip(*(cols[c] for c in ("decks", "soft17", "peek", "upcard", "outcome", "exact"))):
        rows.setdefault((d, s, p), {})[u, o] = e
    return rows


@pytest.mark.parametrize("decks,soft17,peek", VARIANTS)
def test_blackjack_table_csv_equals_the_warehouse_shard_of_every_variant(capsys, shard_rows, decks, soft17, peek):
    code, out, err = cli(capsys, "blackjack", "table", "--decks", decks, "--soft17", soft17, "--peek", peek, "--csv")
    assert code == 0 and err == ""
    assert csv_rows(out) == shard_rows[decks, soft17, peek]


@pytest.mark.parametrize("decks", ["1", "inf"])
def test_blackjack_table_text_shows_the_variant_s_own_percentages(capsys, shard_rows, decks):
    code, out, _ = cli(capsys, "blackjack", "table", "--decks", decks)
    assert code == 0
    lines = out.splitlines()
    assert ("infinite shoe" in lines[0]) == (decks == "inf")
    bust_10 = next(line for line in lines if line.startswith("10\t")).split("\t")[1].strip()
    assert bust_10 == f"{100 * float(Fraction(shard_rows[decks, 'stand', 'no']['10', 'bust'])):6.2f}%".strip()


def test_blackjack_infinite_table_equals_the_built_warehouse(capsys, tiny_pipeline):
    with duckdb.connect(str(tiny_pipeline / "results" / "warehouse.duckdb"), read_only=True) as con:
        got = con.sql(
            "SELECT upcard, outcome, exact FROM blackjack_exact "
            "WHERE decks = 'inf' AND soft17 = 'stand' AND peek = 'no'"
        ).fetchall()
    assert len(got) == len(UPCARDS) * len(OUTCOMES)
    code, out, _ = cli(capsys, "blackjack", "table", "--decks", "inf", "--csv")
    assert code == 0 and csv_rows(out) == {(u, o): e for u, o, e in got}


@pytest.mark.parametrize("decks,removed", [("1", "A,A,T,5"), ("2", "T"), ("6", "A,2,3,4,5,6,7,8,9,T")])
@pytest.mark.parametrize("soft17", SOFT17)
def test_blackjack_table_remove_equals_the_exact_law_of_the_depleted_shoe(capsys, decks, removed, soft17):
    shoe = list(shoe_counts(decks))
    for rank in removed.split(","):
        shoe[10 if rank == "T" else 1 if rank == "A" else int(rank)] -= 1
    code, out, _ = cli(capsys, "blackjack", "table", "--decks", decks, "--soft17", soft17, "--remove", removed, "--csv")
    assert code == 0
    want = {
        (u, o): f"{p.numerator}/{p.denominator}"
        for u in UPCARDS
        for o, p in zip(OUTCOMES, exact_outcomes(tuple(shoe), UPCARD_VALUE[u], soft17))
    }
    assert csv_rows(out) == want


def test_blackjack_remove_of_a_whole_deck_is_a_one_line_error(capsys):
    whole_deck = ",".join(["A", "2", "3", "4", "5", "6", "7", "8", "9"] * 4 + ["T"] * 16)
    code, out, err = cli(capsys, "blackjack", "table", "--decks", "1", "--remove", whole_deck)
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and "holds 0 cards" in err and "dealer's hand" in err


def test_blackjack_remove_from_an_infinite_shoe_is_a_one_line_error(capsys):
    code, out, err = cli(capsys, "blackjack", "table", "--decks", "inf", "--remove", "A")
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and "infinite shoe" in err


def test_narcotic_simulate_summarises_the_reference_games_of_its_seed(capsys):
    games, seed = 120, 7
    outcomes = [N.play_reference(list(d)) for d in N.shuffled_decks(np.uint64(seed), 0, games)]
    won = [o for o in outcomes if o.won]
    code, out, _ = cli(capsys, "narcotic", "simulate", "--games", str(games), "--seed", str(seed), "--jobs", "1")
    assert code == 0 and won
    assert f"won {100 * len(won) / games:.3f} %" in out
    assert f"{sum(o.passes for o in won) / len(won):.1f} passes" in out
    assert duration(sum(o.time_s for o in won) / len(won)) in out


def warehouse_rows(wd, sql: str) -> list[tuple]:
    with duckdb.connect(str(wd / "results" / "warehouse.duckdb"), read_only=True) as con:
        return con.sql(sql).fetchall()


@pytest.mark.parametrize("k", [4, 6, 8])
def test_redblack_search_lists_the_warehouse_s_infinite_deals(capsys, tiny_pipeline, k):
    want = warehouse_rows(
        tiny_pipeline, f"SELECT p1, p2, cycle_id, period FROM redblack_infinite WHERE k = {k} ORDER BY p1, p2"
    )
    code, out, _ = cli(capsys, "redblack", "search", str(k), "--csv", "--jobs", "1")
    assert code == 0
    got = sorted((r["p1"], r["p2"], r["cycle_id"], int(r["period"])) for r in csv.DictReader(io.StringIO(out)))
    assert got == [(p1, p2, c, int(p)) for p1, p2, c, p in want]
    if k == 6:
        assert want  # the smallest size with infinite deals: the comparison is not of two empty lists


def test_narcotic_play_replays_the_reference_of_each_dealt_deck(capsys, monkeypatch):
    code, decks, _ = cli(capsys, "narcotic", "deal", "30", "--seed", "11")
    assert code == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO(decks))
    code, out, _ = cli(capsys, "narcotic", "play")
    assert code == 0
    want = [N.play_reference([int(c) for c in line.split()]).line() for line in decks.splitlines()]
    assert out.splitlines() == want


def cutcard_csv_rows(text: str) -> dict[int, tuple[float, list[float], list[str]]]:
    """round -> (dealt, probabilities in OUTCOMES order, exact fractions or '') of ``blackjack cutcard --csv``."""
    lines = text.splitlines()
    assert lines[0] == "round,dealt,outcome,probability,exact,half_width_95"
    rows: dict = {}
    for line in lines[1:]:
        rnd, dealt, outcome, p, exact, _ = line.split(",")
        d, probs, fracs = rows.setdefault(int(rnd), (float(dealt), [], []))
        assert outcome == OUTCOMES[len(probs)]
        probs.append(float(p))
        fracs.append(exact)
    return rows


@pytest.mark.parametrize("cut,players,soft17", [(5, 0, "stand"), (5, 1, "hit")])
def test_blackjack_cutcard_exact_equals_the_exact_law(capsys, cut, players, soft17):
    from engines.blackjack.cutcard import shoe_of_decks
    from engines.blackjack.cutcard_exact import exact_rounds

    args = ["--cut", str(cut), "--players", str(players), "--soft17", soft17, "--by-round", "--csv"]
    code, out, _ = cli(capsys, "blackjack", "cutcard", *args)
    assert code == 0
    rows = cutcard_csv_rows(out)
    law = exact_rounds(shoe_of_decks(1), cut, players, soft17)
    assert rows[0][2] == [f"{p.numerator}/{p.denominator}" for p in law["average"]]
    assert rows[0][0] == float(law["rounds"])
    for r, (dealt, probs) in enumerate(zip(law["dealt"], law["outcomes"]), start=1):
        assert rows[r][0] == float(dealt) and rows[r][1] == [float(p) for p in probs]


def test_blackjack_cutcard_simulation_equals_the_kernel_s_shoes(capsys):
    from engines.blackjack.cutcard import shoe_of_decks, simulate_cutcard

    code, out, _ = cli(
        capsys, "blackjack", "cutcard", "--decks", "2", "--cut", "60", "--shoes", "3000", "--seed", "9", "--csv"
    )
    assert code == 0
    rows = cutcard_csv_rows(out)
    counts, _ = simulate_cutcard(9, shoe_of_decks(2), 60, 0, "stand", 3000)
    assert rows[0][1] == [float(c) for c in counts.sum(axis=0) / counts.sum()]
    assert rows[0][0] == counts.sum() / 3000


def test_blackjack_cutcard_equals_the_kept_curve_of_the_warehouse(capsys):
    """The kept one-deck curve (config blackjack.cutcurve) and the command line's exact fractions at cut 7."""
    from pathlib import Path

    kept = Path(__file__).resolve().parents[1] / "results/blackjack/blackjack_cutcard_curve/curve-1deck"
    shard = kept / "decks=1+players=0+soft17=stand/shard=0000.parquet"
    assert shard.is_file(), f"{shard}: the kept curve is missing"
    want = duckdb.sql(
        f"SELECT dealt, list(probability ORDER BY outcome_order) FROM read_parquet('{shard}') "
        "WHERE cut = 7 AND round = 0 GROUP BY dealt"
    ).fetchall()
    code, out, _ = cli(capsys, "blackjack", "cutcard", "--cut", "7", "--csv")
    assert code == 0
    dealt, probs, _ = cutcard_csv_rows(out)[0]
    assert want and dealt == pytest.approx(want[0][0], rel=1e-12)
    assert probs == pytest.approx(want[0][1], rel=1e-12)


def test_blackjack_cutcard_errors_name_the_way_out(capsys):
    code, _, err = cli(capsys, "blackjack", "cutcard", "--decks", "2", "--cut", "60", "--exact")
    assert code == 1 and "exact fractions reach cuts of at most 10 cards" in err and "--shoes N" in err
    code, _, err = cli(capsys, "blackjack", "cutcard", "--cut", "50")
    assert code == 1 and "use a cut of at most 43 cards" in err
