"""Blackjack dealer outcomes: the seed's exact table, ace valuation, exact vs brute force,
kernel vs reference, and the engine interface."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numba
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import blackjack as bj
from engines.core.errors import CardlabError
from engines.interface import views_sql
from engines.registry import engine

# The seed's exact table (Eric I.'s exhaustive search): 2 decks, dealer stands on
# soft 17, no peek.  Columns bust, 17, 18, 19, 20, 21, natural, in percent.
SEED_TABLE_2_DECKS = {
    "2": "35.33 13.94 13.33 13.07 12.40 11.93 0.00",
    "3": "37.48 13.28 13.07 12.46 12.18 11.54 0.00",
    "4": "39.85 13.07 12.02 12.10 11.64 11.31 0.00",
    "5": "42.25 12.10 12.28 11.73 10.90 10.73 0.00",
    "6": "42.21 16.62 10.62 10.67 10.12 9.75 0.00",
    "7": "26.11 37.05 13.82 7.80 7.88 7.34 0.00",
    "8": "24.16 12.97 36.12 12.90 6.89 6.96 0.00",
    "9": "23.09 12.09 11.20 35.41 12.11 6.10 0.00",
    "10": "21.32 11.29 11.22 11.30 33.56 3.55 7.77",
    "A": "11.59 12.85 13.09 13.02 13.12 5.28 31.07",
}


def percent_row(probs) -> str:
    return " ".join(f"{100 * float(p):.2f}" for p in probs)


def test_seed_exact_table_every_printed_digit():
    table = bj.exact_table(2, "stand", "no")
    assert list(table) == list(SEED_TABLE_2_DECKS)
    for upcard, printed in SEED_TABLE_2_DECKS.items():
        assert percent_row(table[upcard]) == printed, upcard


# ----------------------------------------------------------------- ace valuation


def correct_total(values) -> int:
    """The definition, by brute force: the best total over every way of valuing each ace 1 or 11."""
    aces = sum(1 for v in values if v == 1)
    base = sum(values)
    totals = [base + 10 * k for k in range(aces + 1)]
    ok = [t for t in totals if t <= 21]
    return max(ok) if ok else min(totals)


# The seed's buggy scorers, transcribed (ace = 11 in the first two, as in the originals).
def sander_score(values) -> int:
    """`sort.inject(0){|s,c| s+c > 21 && c==11 ? s+1 : s+c }`: aces one at a time, last."""
    s = 0
    for c in sorted(11 if v == 1 else v for v in values):
        s = s + 1 if (s + c > 21 and c == 11) else s + c
    return s


def denis_value(values) -> int:
    """Non-aces first, then each ace 11 if the running value is at most 10."""
    value = sum(v for v in values if v != 1)
    for v in values:
        if v == 1:
            value += 1 if value > 10 else 11
    return value


def incremental_value(values) -> int:
    """`best_blackjack_value(score)`: each ace valued once, as it arrives, never revalued."""
    score = 0
    for v in values:
        score += (1 if score > 10 else 11) if v == 1 else v
    return score


@pytest.mark.parametrize(
    "hand, total, soft",
    [
        ([1, 1, 10], 12, False),  # the seed's example: not 22
        ([10, 1, 1], 12, False),
        ([1, 1], 12, True),
        ([1, 6], 17, True),  # soft 17
        ([1, 1, 1, 1, 2, 1], 17, True),
        ([1, 1, 9], 21, True),
        ([1, 10], 21, True),
        ([5, 1, 10], 16, False),  # the incremental scorer busts this hand
        ([1, 1, 1, 9], 12, False),
        ([10, 6, 10], 26, False),
    ],
)
def test_hand_value_examples(hand, total, soft):
    assert bj.hand_value(hand) == (total, soft)


@pytest.mark.parametrize(
    "scorer, hand",
    [
        (sander_score, [1, 1, 10]),
        (denis_value, [1, 1, 10]),
        (incremental_value, [1, 1, 10]),
        (incremental_value, [5, 1, 10]),
        (sander_score, [1, 1, 1, 9]),
    ],
)
def test_seed_buggy_scorers_differ_from_the_rule(scorer, hand):
    assert scorer(hand) > 21  # the bug: a bust that is not one
    assert bj.hand_value(hand)[0] == correct_total(hand) <= 21


@given(st.lists(st.integers(1, 10), min_size=1, max_size=12))
def test_hand_value_is_best_total_over_ace_choices(hand):
    total, soft = bj.hand_value(hand)
    assert total == correct_total(hand)
    assert soft == (1 in hand and sum(hand) + 10 <= 21)
    assert total == bj.hand_value(list(reversed(hand)))[0]  # order never matters


def test_outcome_index():
    assert bj.OUTCOMES[bj.outcome_index([1, 10])] == "natural"
    assert bj.OUTCOMES[bj.outcome_index([1, 5, 5])] == "21"
    assert bj.OUTCOMES[bj.outcome_index([10, 6, 10])] == "bust"
    assert bj.OUTCOMES[bj.outcome_index([10, 1, 1, 6])] == "18"


def test_soft17_rule():
    assert bj.dealer_stands(17, True, "stand") and not bj.dealer_stands(17, True, "hit")
    assert bj.dealer_stands(17, False, "hit") and not bj.dealer_stands(16, False, "stand")


# ----------------------------------------------------------------- exact calculator


def brute_force(shoe: list[int], upcard: int, soft17: str, peek: str = "no") -> list[Fraction] | None:
    """Every ordering of the labelled cards left after the upcard, dealt from the top
    (None when some ordering runs out of cards)."""
    rest = list(shoe)
    rest.remove(upcard)
    counts, n = [0] * 7, 0
    for order in itertools.permutations(rest):
        try:
            hand = bj.play_hand(upcard, iter(order).__next__, soft17)
        except StopIteration:  # this order runs out of cards before the dealer stands
            return None
        if peek == "yes" and bj.outcome_index(hand[:2]) == bj.NATURAL and len(hand) == 2:
            continue
        counts[bj.outcome_index(hand)] += 1
        n += 1
    return [Fraction(c, n) for c in counts]


def composition(cards: list[int]) -> list[int]:
    return [0] + [cards.count(v) for v in range(1, 11)]


@pytest.mark.parametrize("soft17", bj.SOFT17)
def test_exact_equals_brute_force_on_small_shoe(soft17):
    cards = [1, 1, 2, 5, 6, 10, 10, 9, 4]
    for upcard in sorted(set(cards)):
        assert bj.exact_outcomes(composition(cards), upcard, soft17) == brute_force(cards, upcard, soft17)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 10), min_size=3, max_size=8), st.sampled_from(bj.SOFT17), st.data())
def test_exact_equals_brute_force_random_shoes(cards, soft17, data):
    upcard = data.draw(st.sampled_from(sorted(set(cards))))
    expected = brute_force(cards, upcard, soft17)
    if expected is None:  # the dealer can run out of cards: outside the rules, refused
        with pytest.raises(ValueError):
            bj.exact_outcomes(composition(cards), upcard, soft17)
        return
    got = bj.exact_outcomes(composition(cards), upcard, soft17)
    assert got == expected
    assert sum(got) == 1
    if got[bj.NATURAL] < 1:
        assert bj.condition_on_peek(got) == brute_force(cards, upcard, soft17, peek="yes")
    else:  # every deal is a natural (cards [1, 1, 10], upcard 10): nothing is left to condition on
        with pytest.raises(ValueError, match="natural in every deal"):
            bj.condition_on_peek(got)


def test_a_shoe_of_only_naturals_cannot_be_conditioned_on_the_peek():
    """Ace, ace, ten behind a ten: every deal is a natural (hypothesis found it once)."""
    got = bj.exact_outcomes(composition([1, 1, 10]), 10, "stand")
    assert got[bj.NATURAL] == 1
    with pytest.raises(ValueError, match="natural in every deal"):
        bj.condition_on_peek(got)


def test_every_variant_sums_to_one_exactly():
    for decks in bj.DECKS:
        for soft17 in bj.SOFT17:
            for peek in bj.PEEK:
                for upcard, probs in bj.exact_table(decks, soft17, peek).items():
                    assert sum(probs) == 1, (decks, soft17, peek, upcard)
                    assert all(p >= 0 for p in probs)


def test_peek_conditions_on_no_natural():
    for decks in ("1", "6", "inf"):
        plain, peeked = bj.exact_table(decks, "hit", "no"), bj.exact_table(decks, "hit", "yes")
        for upcard in bj.UPCARDS:
            if upcard in ("10", "A"):
                assert plain[upcard][bj.NATURAL] > 0 and peeked[upcard][bj.NATURAL] == 0
                keep = 1 - plain[upcard][bj.NATURAL]
                for i in range(bj.NATURAL):
                    assert peeked[upcard][i] * keep == plain[upcard][i]
            else:
                assert peeked[upcard] == plain[upcard]


def infinite_by_markov(upcard: int, soft17: str) -> list[Fraction]:
    """An independent infinite-shoe calculation: a Markov chain over (hard, has ace, cards)."""
    weight = {v: Fraction(4 if v == 10 else 1, 13) for v in range(1, 11)}
    out = [Fraction(0)] * 7
    frontier = {(upcard, upcard == 1, 1): Fraction(1)}
    while frontier:
        nxt: dict = {}
        for (hard, ace, n), p in frontier.items():
            total = hard + 10 if ace and hard <= 11 else hard
            if hard > 21 or bj.dealer_stands(total, ace and hard <= 11, soft17):
                out[0 if hard > 21 else 6 if (total == 21 and n == 2) else total - 16] += p
                continue
            for v, w in weight.items():
                key = (hard + v, ace or v == 1, min(n + 1, 3))
                nxt[key] = nxt.get(key, 0) + p * w
        frontier = nxt
    return out


@pytest.mark.parametrize("soft17", bj.SOFT17)
def test_infinite_shoe_matches_markov_chain(soft17):
    table = bj.exact_table("inf", soft17, "no")
    for upcard in bj.UPCARDS:
        assert table[upcard] == infinite_by_markov(bj.UPCARD_VALUE[upcard], soft17)


def test_more_decks_approach_infinite_shoe():
    inf = bj.exact_table("inf")
    for upcard in bj.UPCARDS:
        gaps = [abs(bj.exact_table(d)[upcard][bj.BUST] - inf[upcard][bj.BUST]) for d in ("1", "2", "8")]
        assert gaps[0] > gaps[1] > gaps[2], upcard


def test_hitting_soft17_changes_only_what_it_should():
    stand, hit = bj.exact_table(6, "stand"), bj.exact_table(6, "hit")
    for upcard in ("2", "3", "4", "5", "6", "A"):  # soft 17 is reachable: dealer busts more
        assert hit[upcard][bj.BUST] > stand[upcard][bj.BUST]
        assert hit[upcard][1] < stand[upcard][1]
    for upcard in ("7", "8", "9", "10", "A"):
        assert hit[upcard][bj.NATURAL] == stand[upcard][bj.NATURAL]


@pytest.mark.parametrize("bad", [0, 9, "nine", -1, "2.5"])
def test_bad_decks_rejected(bad):
    with pytest.raises(CardlabError, match="decks"):
        bj.exact_table(bad)


def test_bad_rule_rejected():
    with pytest.raises(CardlabError, match="soft17"):
        bj.exact_table(2, "sometimes")
    with pytest.raises(CardlabError, match="peek"):
        bj.exact_table(2, "stand", "maybe")


# ----------------------------------------------------------------- simulator


@pytest.mark.parametrize(
    "decks, soft17, upcard",
    [
        ("2", "stand", 1),
        ("2", "hit", 10),
        ("1", "hit", 6),
        ("8", "stand", 2),
        ("inf", "hit", 1),
    ],
)
def test_fresh_kernel_equals_reference(decks, soft17, upcard):
    kernel = bj.simulate(99, upcard, decks, soft17, "fresh", 1500, first=500)
    assert kernel.tolist() == bj.simulate_py(99, upcard, decks, soft17, "fresh", 1500, first=500)


@pytest.mark.parametrize(
    "decks, soft17, upcard, penetration",
    [
        ("1", "hit", 1, 0.5),
        ("2", "stand", 10, 0.75),
        ("6", "hit", 5, 1.0),
    ],
)
def test_continuous_kernel_equals_reference(decks, soft17, upcard, penetration):
    # small blocks so several shoes, blocks and a shard offset are exercised
    args = (7, upcard, decks, soft17, "continuous", 1200)
    kernel = bj.simulate(*args, first=600, penetration=penetration, block=300)
    assert kernel.tolist() == bj.simulate_py(*args, first=600, penetration=penetration, block=300)


def test_counts_do_not_depend_on_threads_or_fresh_blocks():
    base = bj.simulate(5, 10, 6, "stand", "fresh", 20_000)
    assert bj.simulate(5, 10, 6, "stand", "fresh", 20_000, block=777).tolist() == base.tolist()
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = bj.simulate(5, 10, 6, "stand", "fresh", 20_000)
        cont1 = bj.simulate(5, 10, 6, "stand", "continuous", 20_000, block=4096)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        cont_n = bj.simulate(5, 10, 6, "stand", "continuous", 20_000, block=4096)
    finally:
        numba.set_num_threads(old)
    assert one.tolist() == base.tolist() and cont1.tolist() == cont_n.tolist()


def max_abs_z(counts, exact) -> float:
    n = sum(counts)
    zs = []
    for c, p in zip(counts, exact):
        p = float(p)
        if p == 0:
            assert c == 0  # an impossible outcome never happens
            continue
        zs.append(abs(c / n - p) / math.sqrt(p * (1 - p) / n))
    return max(zs)


# 70 cells per table: under the exact law P(max |z| > 5) is below 1e-4.
Z_LIMIT = 5.0


@pytest.mark.parametrize("decks, soft17", [("2", "stand"), ("inf", "hit")])
def test_fresh_kernel_agrees_with_exact(decks, soft17):
    table = bj.exact_table(decks, soft17)
    for upcard in bj.UPCARDS:
        counts = bj.simulate(2024, bj.UPCARD_VALUE[upcard], decks, soft17, "fresh", 400_000)
        assert max_abs_z(counts, table[upcard]) < Z_LIMIT, upcard


def test_numpy_simulator_agrees_with_exact():
    table = bj.exact_table(1, "hit")
    rng = np.random.default_rng(11)
    for upcard in ("A", "6", "10"):
        counts = bj.simulate_numpy(rng, bj.UPCARD_VALUE[upcard], 1, "hit", 100_000)
        assert max_abs_z(counts, table[upcard]) < Z_LIMIT, upcard


def test_continuous_mode_rejects_infinite_shoe():
    with pytest.raises(CardlabError, match="continuous"):
        bj.simulate(1, 10, "inf", "stand", "continuous", 10)


# ----------------------------------------------------------------- engine interface

SECTION = {
    "exact": {"decks": [1, "inf"], "soft17": ["stand"], "peek": [False, "yes"]},
    "experiments": [
        {"name": "f", "shoe": "fresh", "decks": 2, "soft17": "stand", "hands_per_upcard": 5000, "shards": 2, "seed": 3},
        {
            "name": "c",
            "shoe": "continuous",
            "decks": 2,
            "soft17": "hit",
            "peek": True,
            "hands_per_upcard": 70_000,
            "shards": 2,
            "seed": 4,
            "penetration": 0.6,
        },
    ],
}


class _Progress:
    def __init__(self):
        self.done = 0

    def update(self, n):
        self.done += n


def test_plan_is_deterministic_and_covers_every_hand():
    specs = engine("blackjack").plan(SECTION)
    assert specs == engine("blackjack").plan(SECTION)
    exact = [s for s in specs if s["kind"] == "exact"]
    # the four configured variants in one shard, and each simulated one outside them in its own
    # (2 decks stand/no, 2 decks hit/yes), so that a simulation's edit leaves the others' files as they are
    assert [len(s["variants"]) for s in exact] == [4, 1, 1]
    assert [s["variant"] for s in exact[1:]] == ["decks=2+soft17=stand+peek=no", "decks=2+soft17=hit+peek=yes"]
    assert exact[2]["variants"] == [["2", "hit", "yes"]]
    for name, hands in (("f", 5000), ("c", 70_000)):
        ranges = [s["range"] for s in specs if s["experiment"] == name]
        assert ranges[0][0] == 0 and ranges[-1][1] == hands
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    cont = [s for s in specs if s["experiment"] == "c"]
    assert all(s["range"][0] % bj.BLOCK_CONTINUOUS == 0 for s in cont)
    assert cont[0]["peek"] == "yes" and len({s["seed"] for s in specs if "seed" in s}) == 4


def test_run_shard_tables_fit_their_schemas():
    specs = engine("blackjack").plan(SECTION)
    exact_spec, sim_spec = specs[0], next(s for s in specs if s["kind"] == "sim")
    for spec in (exact_spec, sim_spec):
        progress = _Progress()
        tables = engine("blackjack").kind_of(spec).compute(spec, progress, [])
        assert set(tables) == set(engine("blackjack").kind_of(spec).tables) and progress.done == spec["work"]
        for name, cols in tables.items():
            pa.table(cols, schema=engine("blackjack").tables[name])  # raises on a mismatch
    exact = engine("blackjack").kind_of(exact_spec).compute(exact_spec, _Progress(), [])["blackjack_exact_probs"]
    assert len(exact["probability"]) == 4 * 10 * 7  # the configured variants' shard: 2 shoes x 2 peeks
    for p, frac in zip(exact["probability"], exact["exact"]):
        assert p == float(Fraction(frac))
    sim = engine("blackjack").kind_of(sim_spec).compute(sim_spec, _Progress(), [])["blackjack_sim_counts"]
    for i in range(0, len(sim["count"]), 7):
        assert sum(sim["count"][i : i + 7]) == sim["hands"][i] == 2500


def test_plan_rejects_bad_sections():
    bad = {
        "experiments": [
            {"name": "x", "shoe": "continuous", "decks": "inf", "soft17": "stand", "hands_per_upcard": 10, "seed": 1}
        ]
    }
    with pytest.raises(CardlabError, match="continuous"):
        engine("blackjack").plan(bad)
    with pytest.raises(CardlabError, match="decks"):
        engine("blackjack").plan({"exact": {"decks": [9]}})


# ----------------------------------------------------------------- config, CLI, warehouse, report


def test_config_schema_accepts_defaults_and_names_bad_fields():
    from engines.pipeline.planning.plan import validate_config

    validate_config({"blackjack": SECTION})
    for bad, field in (
        ({"exact": {"decks": [9]}}, "blackjack.exact.decks[0]"),
        ({"exact": {"soft17": ["sometimes"]}}, "blackjack.exact.soft17[0]"),
        (
            {"experiments": [{"name": "x", "decks": 0, "hands_per_upcard": 1, "seed": 1}]},
            "blackjack.experiments[0].decks",
        ),
        (
            {"experiments": [{"name": "x", "decks": 2, "hands_per_upcard": -5, "seed": 1}]},
            "blackjack.experiments[0].hands_per_upcard",
        ),
        (
            {"experiments": [{"name": "x", "decks": 2, "hands_per_upcard": 5, "seed": 1, "penetration": 1.5}]},
            "blackjack.experiments[0].penetration",
        ),
        ({"typo": 1}, "blackjack"),
    ):
        with pytest.raises(CardlabError, match=field.replace("[", r"\[").replace("]", r"\]")):
            validate_config({"blackjack": bad})


def test_cli_table_and_errors(capsys):
    from engines.cli import main

    assert main(["blackjack", "table", "--decks", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Exact dealer outcomes: 2 decks, dealer stands on soft 17, no peek"  # the variant named
    assert lines[1].split("\t") == ["Upcard", "Bust", "17", "18", "19", "20", "21", "Natural"]
    assert [c.strip().rstrip("%") for c in lines[-1].split("\t")[1:]] == SEED_TABLE_2_DECKS["A"].split()
    assert main(["blackjack", "table", "--decks", "6", "--soft17", "hit", "--peek", "yes", "--csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "upcard,outcome,probability,exact" and len(rows) == 1 + 70
    up, outcome, p, frac = rows[-1].split(",")
    assert (up, outcome) == ("A", "natural") and float(p) == 0 and Fraction(frac) == 0
    for argv in (["--decks", "0"], ["--decks", "9"], ["--soft17", "maybe"], ["--peek", "perhaps"]):
        with pytest.raises(SystemExit) as exc:
            main(["blackjack", "table", *argv])
        assert exc.value.code != 0
        assert capsys.readouterr().err.startswith("error:")


def test_warehouse_views_and_report(tmp_path):
    """Shards -> warehouse -> views -> report, on a small config (the workflow's path)."""
    from engines.blackjack import report as report_blackjack
    from engines.core import layout
    from engines.pipeline.catalog import warehouse
    from engines.pipeline.compute import jobs

    section = {
        "exact": {"decks": [2, 6], "soft17": ["stand"], "peek": ["no"]},
        "experiments": [
            {"name": "f", "decks": 2, "hands_per_upcard": 20_000, "shards": 2, "seed": 1},
            {"name": "p", "decks": 6, "soft17": "hit", "peek": "yes", "hands_per_upcard": 20_000, "seed": 2},
            {"name": "c", "shoe": "continuous", "decks": 2, "hands_per_upcard": 20_000, "seed": 3},
        ],
    }
    files = []
    for spec in engine("blackjack").plan(section):
        outs = {
            t: layout.shard_path("blackjack", t, spec, root=str(tmp_path / "results"))
            for t in engine("blackjack").kind_of(spec).tables
        }
        jobs.run_shard("blackjack", spec, outs, log=str(tmp_path / "shard.log"))
        files += outs.values()
    # The warehouse's way (one table per provenance `table`, then the game's SQL), limited to
    # this game so the test does not depend on the other engines' views.
    import duckdb

    con = duckdb.connect()
    try:
        for table in engine("blackjack").tables:
            paths = [f for f in files if warehouse.check_file(f)["table"] == table]
            if not paths:  # no cut-card experiments here: the warehouse makes such a table empty
                con.register("empty_in", engine("blackjack").tables[table].empty_table())
                con.execute(f"CREATE TABLE {table} AS SELECT * FROM empty_in")
                continue
            con.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet($p)", {"p": paths})
        for name, extra in engine("blackjack").warehouse_tables().items():  # as the warehouse loads them
            con.register("extra_in", extra)
            con.execute(f"CREATE TABLE {name} AS SELECT * FROM extra_in")
            con.unregister("extra_in")
        for stmt in views_sql(engine("blackjack")):
            con.execute(stmt)
        variants = con.execute("SELECT count(DISTINCT (decks, soft17, peek)) FROM blackjack_exact").fetchone()
        assert variants == (3,)  # two configured plus the peek experiment's own
        # probabilities of each simulated upcard sum to 1; peek-conditioned hands exclude naturals
        sums = con.execute(
            "SELECT experiment, upcard, sum(probability), any_value(hands), any_value(dealt), "
            "sum(count) FILTER (WHERE outcome = 'natural') FROM blackjack_sim "
            "GROUP BY ALL"
        ).fetchall()
        for exp, upcard, total, hands, dealt, naturals in sums:
            assert total == pytest.approx(1.0)
            assert dealt == 20_000 and naturals == (0 if exp == "p" else naturals)
            assert (hands < dealt) == (exp == "p" and upcard in ("10", "A"))
        z = con.execute("SELECT max(abs(z)) FROM blackjack_compare WHERE shoe = 'fresh'").fetchone()[0]
        assert z < 5
        exact_a = con.execute(
            "SELECT exact FROM blackjack_exact WHERE decks = '2' AND upcard = 'A' "
            "AND outcome = 'natural' AND soft17 = 'stand' AND peek = 'no'"
        ).fetchone()[0]
        assert Fraction(exact_a) == bj.exact_table(2)["A"][bj.NATURAL]
        paths = report_blackjack.REPORT.build(con, tmp_path / "reports")
        effects = con.execute(
            'SELECT upcard, "A", "5", "T", base_bust FROM blackjack_bust_effects '
            "WHERE decks = '1' AND soft17 = 'stand' ORDER BY upcard_order"
        ).fetchall()
        largest = dict(
            con.execute(
                "SELECT decks::INTEGER::VARCHAR, max(abs(delta)) * 100 FROM blackjack_effects_of_removal "
                "WHERE outcome = 'bust' AND soft17 = 'stand' GROUP BY decks"
            ).fetchall()
        )
        effect_rows = con.execute("SELECT count(*) FROM blackjack_bust_effects").fetchone()[0]
    finally:
        con.close()
    names = sorted(p.name for p in paths)
    assert names == [
        "blackjack.csv",
        "blackjack.md",
        "blackjack_bust.png",
        "blackjack_cutcard.csv",
        "blackjack_cutcard.png",
        "blackjack_cutcurve.csv",
        "blackjack_cutcurve.png",
        "blackjack_effects.csv",
        "blackjack_effects.png",
        "blackjack_sim.csv",
    ]
    assert names == sorted(f.name for f in engine("blackjack").report_files)
    md = (tmp_path / "reports" / "blackjack.md").read_text()
    # effects of removal: Griffin's single-deck table and one line per deck count, numbers from SQL
    removal = md.split("## Effects of removal", 1)[1]
    assert "![bust effects of removal by upcard](blackjack_effects.png)" in removal
    six = next(r for r in effects if r[0] == "6")
    assert f"| 6 | {six[4]:.2f}% | {six[1]:+.3f} |" in removal
    assert removal.split("\n| 6 |", 1)[1].splitlines()[0].endswith(f" {six[3]:+.3f} |")
    for decks in ("1", "2", "6", "8"):
        line = next(x for x in removal.splitlines() if x.startswith(f"- {decks} deck"))
        assert f" {largest[decks]:.3f} points" in line.replace("+", " ").replace("-", " "), line
    assert largest["1"] > largest["2"] > largest["6"] > largest["8"]
    csv_lines = (tmp_path / "reports" / "blackjack_effects.csv").read_text().splitlines()
    assert csv_lines[0].startswith("decks,soft17,peek,upcard,base_bust,A,2,")
    assert len(csv_lines) == 1 + effect_rows == 1 + 4 * 2 * 10
    assert (tmp_path / "reports" / "blackjack_effects.png").read_bytes()[:4] == b"\x89PNG"
    assert "| A | 11.59% | 12.85% | 13.09% | 13.02% | 13.12% | 5.28% | 31.07% |" in md
