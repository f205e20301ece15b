"""The cut-card effect on the dealer (issue 41 part 2): the model, its kernel, the exact DP, shards and views."""

from __future__ import annotations

from fractions import Fraction

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import blackjack as bj
from engines.blackjack.cutcard import (
    BLOCK_SHOES,
    check_cut,
    deal_shoe,
    max_dealer_cards,
    shoe_of_decks,
    simulate_cutcard,
    simulate_cutcard_py,
)
from engines.blackjack.cutcard_exact import brute_rounds, check_exact, exact_rounds
from engines.blackjack.kinds.cutcard import full_shoe_law
from engines.core.errors import CardlabError
from engines.interface import views_sql
from engines.registry import engine

# Decks of fewer ranks: small enough to deal every ordering (8 cards: at most 40,320 orders).
TINY_SHOES = (
    (0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 3),  # A 2 5 6 9 T T T
    (0, 2, 0, 1, 0, 0, 1, 0, 1, 0, 3),  # A A 3 6 8 T T T
    (0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 4),  # 2 2 3 3 T T T T
)


def deepest_cut(shoe, players, soft17) -> int:
    return sum(shoe) + 1 - players - max_dealer_cards(shoe, soft17)


@pytest.mark.parametrize("shoe", TINY_SHOES)
@pytest.mark.parametrize("players", [0, 1])
@pytest.mark.parametrize("soft17", bj.SOFT17)
def test_exact_dp_equals_dealing_every_ordering(shoe, players, soft17):
    for cut in range(1, deepest_cut(shoe, players, soft17) + 1):
        exact = exact_rounds(shoe, cut, players, soft17)
        assert exact == brute_rounds(shoe, cut, players, soft17), (cut, players)
        assert exact["dealt"][0] == 1 and all(sum(row) == 1 for row in exact["outcomes"])


def deal_shoe_casino_order(cards, cut, soft17):
    """One player's two cards dealt as a casino does: player, upcard, player, hole card, then draws."""
    pos, outcomes = 0, []
    while pos < cut:
        upcard, hole = cards[pos + 1], cards[pos + 3]
        pos += 4
        hand = [upcard, hole]
        while not (bj.hand_value(hand)[0] > 21 or bj.dealer_stands(*bj.hand_value(hand), soft17)):
            hand.append(cards[pos])
            pos += 1
        outcomes.append(bj.outcome_index(hand))
    return outcomes


@pytest.mark.parametrize("soft17", bj.SOFT17)
def test_interleaving_players_and_dealer_changes_no_law(soft17):
    """The model deals the players' cards first; casino order gives the same joint law of every
    shoe's sequence of dealer outcomes (exchangeability of a shuffled shoe), on every ordering."""
    from collections import Counter
    from itertools import permutations

    shoe = (0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 3)  # A 2 5 6 7 9 T T T
    cards = [v for v in range(1, 11) for _ in range(shoe[v])]
    for cut in range(1, deepest_cut(shoe, 2, soft17) + 1):
        ours, casino = Counter(), Counter()
        for order in set(permutations(cards)):
            ours[tuple(bj.outcome_index(h) for _, h in deal_shoe(order, cut, 2, soft17))] += 1
            casino[tuple(deal_shoe_casino_order(order, cut, soft17))] += 1
        assert ours == casino, cut


@pytest.mark.parametrize("players", [0, 2])
@pytest.mark.parametrize("soft17", bj.SOFT17)
def test_round_one_is_the_full_shoe_law(players, soft17):
    """The first round of a shoe is dealt from the full shoe, whatever the players took first."""
    law = exact_rounds(shoe_of_decks(1), 3, players, soft17)
    full = full_shoe_law(1, soft17)
    assert law["outcomes"][0] == list(full)
    table = bj.exact_table(1, soft17)
    by_upcard = [sum(Fraction(4 if u != "10" else 16, 52) * table[u][o] for u in table) for o in range(7)]
    assert list(full) == by_upcard


def test_average_is_rounds_weighted_by_how_often_they_are_dealt():
    law = exact_rounds(shoe_of_decks(1), 5, 0, "stand")
    assert law["rounds"] == sum(law["dealt"])
    for o in range(7):
        assert law["average"][o] * law["rounds"] == sum(d * row[o] for d, row in zip(law["dealt"], law["outcomes"]))
    # a cut card after the fifth card: a third round only after two two-card rounds
    assert 0 < law["dealt"][2] < law["dealt"][1] < 1 and len(law["dealt"]) == 3


SETTINGS = [
    (1, 5, 0, "stand"),
    (1, 39, 2, "hit"),
    (1, 42, 0, "stand"),
    (2, 78, 4, "stand"),
    (6, 200, 7, "hit"),
    (8, 312, 4, "stand"),
]


@pytest.mark.parametrize("decks, cut, players, soft17", SETTINGS)
def test_kernel_equals_reference(decks, cut, players, soft17):
    for seed, first in ((3, 0), (12345678901234567, 77)):
        args = (seed, shoe_of_decks(decks), cut, players, soft17, 300)
        counts, moments = simulate_cutcard(*args, first=first)
        assert [counts.tolist(), moments.tolist()] == list(simulate_cutcard_py(*args, first=first))


def test_counts_do_not_depend_on_blocks_or_shards():
    """Shoe i uses stream (seed, i): one call over blocks equals calls over any split."""
    shoe = shoe_of_decks(1)
    whole = simulate_cutcard(5, shoe, 20, 2, "stand", BLOCK_SHOES + 500)
    a = simulate_cutcard(5, shoe, 20, 2, "stand", 1000)
    b = simulate_cutcard(5, shoe, 20, 2, "stand", BLOCK_SHOES - 500, first=1000)
    assert (whole[0] == a[0] + b[0]).all() and (whole[1] == a[1] + b[1]).all()
    assert whole[1][-1, 0] > 0 and whole[0][0].sum() == BLOCK_SHOES + 500  # every shoe deals a round 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 10), min_size=12, max_size=60),
    st.integers(0, 4),
    st.sampled_from(bj.SOFT17),
    st.data(),
)
def test_cards_are_conserved(cards, players, soft17, data):
    """Every card dealt is the shoe's next one, none twice; the shoe stops at the first round end past the cut."""
    shoe = [0] + [cards.count(v) for v in range(1, 11)]
    most = deepest_cut(shoe, players, soft17)
    if most < 1:
        with pytest.raises(CardlabError, match="leaves too few cards"):
            check_cut(shoe, 1, players, soft17)
        return
    cut = data.draw(st.integers(1, most))
    order = data.draw(st.permutations(cards))
    rounds = deal_shoe(order, cut, players, soft17)
    dealt = [c for mine, hand in rounds for c in mine + hand]
    assert dealt == list(order[: len(dealt)])
    assert len(dealt) >= cut and sum(len(m) + len(h) for m, h in rounds[:-1]) < cut
    for mine, hand in rounds:
        assert len(mine) == players and len(hand) >= 2
        total, soft = bj.hand_value(hand)
        assert total > 21 or bj.dealer_stands(total, soft, soft17)
        before = bj.hand_value(hand[:-1])
        assert len(hand) == 2 or not (before[0] > 21 or bj.dealer_stands(*before, soft17))


def test_simulation_covers_the_exact_law():
    """Per round number and per round dealt, 200,000 shoes agree with the exact law (|z| < 5)."""
    shoe, cut = shoe_of_decks(1), 5
    law = exact_rounds(shoe, cut, 0, "stand")
    counts, moments = simulate_cutcard(21, shoe, cut, 0, "stand", 200_000)
    for r, (dealt, probs) in enumerate(zip(law["dealt"], law["outcomes"])):
        n = counts[r].sum()
        assert abs(n / 200_000 - float(dealt)) < 5 * (float(dealt * (1 - dealt)) / 200_000) ** 0.5 + 1e-12
        for o, p in enumerate(probs):
            assert abs(counts[r, o] / n - float(p)) < 5 * (float(p * (1 - p)) / n) ** 0.5 + 1e-12, (r, o)


@pytest.mark.parametrize(
    "exp, message",
    [
        ({"decks": 1, "cut": 44}, r"cut 44 leaves too few cards: a round started at card 43 may need 10"),
        ({"decks": 1, "penetration": 0.75, "players": 6}, r"use a cut of at most 37 cards"),
        ({"decks": 1, "cut": 5, "penetration": 0.5}, r"give exactly one of cut \(cards\) and penetration"),
        ({"decks": 1}, r"give exactly one of cut"),
        ({"decks": 2, "cut": 20, "exact": True}, r"too deep for the exact method"),
    ],
)
def test_bad_settings_are_refused_with_one_line(exp, message):
    section = {"cutcard": [{"name": "x", "shoes": 10, "seed": 1, **exp}]}
    with pytest.raises(CardlabError, match=message) as err:
        engine("blackjack").plan(section)
    assert "\n" not in str(err.value) and str(err.value).startswith("blackjack.cutcard[0]")


def test_a_repeated_name_is_refused():
    twice = [{"name": "x", "decks": 1, "cut": 5, "shoes": 10, "seed": s} for s in (1, 2)]
    with pytest.raises(
        CardlabError, match=r"blackjack.cutcard\[1\].name: 'x' is already the name of blackjack.cutcard\[0\]"
    ):
        engine("blackjack").plan({"cutcard": twice})


def test_exact_limit_is_where_counts_would_overflow():
    check_exact(shoe_of_decks(1), 11, 0, "stand")
    with pytest.raises(CardlabError, match="use a cut of at most 11 cards"):
        check_exact(shoe_of_decks(1), 12, 0, "stand")


def test_shards_views_and_report(tmp_path):
    """Shards -> tables -> views -> report section and figure, on a small config."""
    from engines.blackjack import report as report_blackjack
    from engines.core import layout
    from engines.pipeline.catalog import warehouse
    from engines.pipeline.compute import jobs

    eng = engine("blackjack")
    section = {
        "exact": {"decks": [1], "soft17": ["stand"], "peek": ["no"]},
        "cutcard": [
            {"name": "c4", "decks": 1, "cut": 4, "shoes": 60_000, "shards": 3, "seed": 2, "exact": True},
            {"name": "p8", "decks": 8, "penetration": 0.75, "players": 4, "shoes": 3_000, "seed": 3},
        ],
    }
    files = []
    for spec in eng.plan(section):
        outs = {
            t: layout.shard_path("blackjack", t, spec, root=str(tmp_path / "results")) for t in eng.kind_of(spec).tables
        }
        jobs.run_shard("blackjack", spec, outs, log=str(tmp_path / "shard.log"))
        files += outs.values()
    con = duckdb.connect()
    try:
        for table in eng.tables:
            paths = [f for f in files if warehouse.check_file(f)["table"] == table]
            if not paths:  # a table no shard here writes (the curve's): empty, as the warehouse makes it
                con.register("empty_in", eng.tables[table].empty_table())
                con.execute(f"CREATE TABLE {table} AS SELECT * FROM empty_in")
                con.unregister("empty_in")
                continue
            con.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet($p)", {"p": paths})
        for name, extra in eng.warehouse_tables().items():
            con.register("extra_in", extra)
            con.execute(f"CREATE TABLE {name} AS SELECT * FROM extra_in")
            con.unregister("extra_in")
        for stmt in views_sql(eng):
            con.execute(stmt)
        law = exact_rounds(shoe_of_decks(1), 4, 0, "stand")
        exact = con.execute("SELECT exact FROM blackjack_cutcard WHERE round = 0 AND outcome = 'bust'").fetchone()
        assert Fraction(exact[0]) == law["average"][0]
        sums = con.execute(
            "SELECT experiment, round, sum(probability), any_value(shoes) FROM blackjack_cutcard_sim "
            "WHERE rounds > 0 GROUP BY ALL"
        ).fetchall()
        assert {(e, s) for e, _, _, s in sums} == {("c4", 60_000), ("p8", 3_000)}
        assert all(total == pytest.approx(1.0) for _, _, total, _ in sums)
        zs = con.execute("SELECT max(abs(z)), count(*), count(*) FILTER (WHERE covered) FROM blackjack_cutcard_compare")
        z, cells, covered = zs.fetchone()
        assert z < 5 and cells == 7 * (1 + len(law["dealt"])) and covered >= cells - 5
        paths = report_blackjack.REPORT.build(con, tmp_path / "reports")
        answer = report_blackjack.REPORT.answer(con)[-1]
        summary = con.execute(
            "SELECT printf('%.4f', dealt) FROM blackjack_cutcard_sim WHERE experiment = 'p8' AND round = 0 LIMIT 1"
        ).fetchone()[0]
    finally:
        con.close()
    assert {"blackjack_cutcard.csv", "blackjack_cutcard.png"} <= {p.name for p in paths}
    md = (tmp_path / "reports" / "blackjack.md").read_text().split("## The cut-card effect on the dealer", 1)[1]
    assert "![bust probability by round number](blackjack_cutcard.png)" in md
    assert f"| 75% | 4 | stand | 3,000 | {summary} |" in md
    assert "- c4: " in md and f"of {cells} simulated 95 % intervals" in md
    assert answer.startswith("Under a cut card (2 simulated settings, 1–8 decks)")
    assert f"Exactly (c4): {100 * float(law['average'][0] - full_shoe_law(1, 'stand')[0]):+.5f} points" in answer


def test_intervals_cover_the_exact_law_as_often_as_they_promise():
    """The views' 95 % intervals, per round number (binomial) and per round dealt (delta method
    over shoes), on 120 independent batches of 3,000 shoes: about 95 % of them cover the exact law."""
    from engines.blackjack.kinds.cutcard import CUT_TABLES, CutcardExact, CutcardSimulation

    eng = engine("blackjack")
    setting = {"decks": "1", "soft17": "stand", "players": 0, "cut": 5}
    exact = CutcardExact().run({"experiment": "x", **setting}, _Count(), [], "scalar")["blackjack_cutcard_exact"]
    sim = CutcardSimulation()
    tables = {name: {col: [] for col in schema.names} for name, schema in CUT_TABLES.items()}
    for b in range(120):
        spec = {"experiment": f"b{b}", "shard": 0, "seed": 1000 + b, "range": [0, 3000], **setting}
        for col, values in sim.run(spec, _Count(), [], "scalar")["blackjack_cutcard_counts"].items():
            tables["blackjack_cutcard_counts"][col] += values
        for col, values in exact.items():
            tables["blackjack_cutcard_exact"][col] += [f"b{b}"] * len(values) if col == "experiment" else values
    con = duckdb.connect()
    try:
        for name, cols in tables.items():
            con.register("cols_in", pa.table(cols, schema=CUT_TABLES[name]))
            con.execute(f"CREATE TABLE {name} AS SELECT * FROM cols_in")
            con.unregister("cols_in")
        for stmt in (s for s in views_sql(eng) if "blackjack_cutcard" in s):
            con.execute(stmt)
        shares = dict(
            con.execute(
                "SELECT round = 0, avg(covered::INTEGER) FROM blackjack_cutcard_compare WHERE round < 3 GROUP BY ALL"
            ).fetchall()
        )
    finally:
        con.close()
    assert 0.92 < shares[True] < 0.98 and 0.92 < shares[False] < 0.98, shares


class _Count:
    done = 0

    def update(self, n: int) -> None:
        self.done += n
