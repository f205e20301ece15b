"""RedBlack: kernel against the plain-Python reference, the seed's example, search and basins."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import redblack as rb
from engines.core.errors import CardlabError

# The seed's table for player 1 `10`, player 2 `110` (P1 pile, P2 pile, played pile).
SEED_TABLE = [
    ("10", "110", "-"),
    ("0", "110", "1"),
    ("0", "10", "11"),
    ("-", "10", "110"),
    ("110", "10", "-"),
    ("110", "0", "1"),
    ("10", "0", "11"),
    ("10", "-", "110"),
    ("10", "110", "-"),
]


def all_states(n: int):
    """Every (leader, other) state with n cards, both decks non-empty."""
    for a in range(1, n):
        for bits in itertools.product("01", repeat=n):
            s = "".join(bits)
            yield s[:a], s[a:]


def all_balanced_deals(k: int):
    """Every balanced deal of size k (canonical or not), straight from the definition."""
    for blacks in itertools.combinations(range(2 * k), k):
        s = ["0"] * (2 * k)
        for i in blacks:
            s[i] = "1"
        yield "".join(s[:k]), "".join(s[k:])


def swap(deck: str) -> str:
    return rb.colour_swap(deck)


# --- the seed's example --------------------------------------------------------------


def test_seed_example_table_matches_the_seed():
    rows = list(rb.trace_reference("10", "110", max_rounds=2))
    assert [r[:3] for r in rows] == SEED_TABLE
    assert rows[1][3] == "Player 1 plays 1"
    assert rows[3][3] == "Player 1 plays 0"
    assert "Player 1 picks up" in rows[4][3] and "player 2 to go" in rows[4][3]
    assert "Player 2 picks up" in rows[8][3] and "player 1 to go" in rows[8][3]


def test_seed_example_is_infinite_with_a_two_round_cycle():
    for outcome in (rb.play("10", "110"), rb.play_reference("10", "110")):
        assert not outcome.finished
        assert outcome.rounds == 0  # the deal itself is on the cycle
        assert outcome.period == 2
        assert outcome.cycle_id == "10/110"


# --- one round ----------------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 11))
def test_kernel_round_equals_reference_on_every_state(n):
    for leader, other in all_states(n):
        code, nl, no, _ = rb.round_reference([int(c) for c in leader], [int(c) for c in other])
        got = rb.round_kernel(leader, other)
        if code >= rb.LEADER_OUT:
            assert got[0] == code, (leader, other)
        else:
            assert got == (code, "".join(map(str, nl)), "".join(map(str, no))), (leader, other)


# --- whole games ----------------------------------------------------------------------


@pytest.mark.parametrize("k", range(1, 10))
def test_kernel_equals_reference_on_every_balanced_deal(k):
    for p1, p2 in all_balanced_deals(k):
        assert rb.play(p1, p2) == rb.play_reference(p1, p2), (p1, p2)


def test_kernel_equals_reference_on_random_unbalanced_states():
    rnd = random.Random(20261129)
    for _ in range(1500):
        n = rnd.randint(2, 26)
        a = rnd.randint(1, n - 1)
        s = "".join(rnd.choice("01") for _ in range(n))
        assert rb.play(s[:a], s[a:]) == rb.play_reference(s[:a], s[a:]), (s[:a], s[a:])


@pytest.mark.parametrize("n", range(2, 13))
def test_kernel_equals_reference_on_every_state_of_a_small_deck(n):
    outcomes = [(rb.play(l, o), rb.play_reference(l, o), (l, o)) for l, o in all_states(n)]
    assert all(x == y for x, y, _ in outcomes), [s for x, y, s in outcomes if x != y][:3]
    if n == 5:
        assert any(not x.finished for x, _, _ in outcomes)  # e.g. the seed's 10 110


# --- enumeration -----------------------------------------------------------------------


@pytest.mark.parametrize("k", range(1, 9))
def test_unranking_lists_every_canonical_deal_once_in_rank_order(k):
    deals = [rb.unrank_deal(k, r) for r in range(rb.canonical_deals(k))]
    expected = {d for d in all_balanced_deals(k) if d[0][0] == "0"}
    assert len(deals) == len(set(deals)) == len(expected) == math.comb(2 * k, k) // 2
    assert set(deals) == expected
    assert [rb.rank_deal(*d) for d in deals] == list(range(len(deals)))


def test_unrank_rejects_out_of_range():
    with pytest.raises(CardlabError):
        rb.unrank_deal(3, rb.canonical_deals(3))


def search_by_reference(k: int):
    lengths, infinite, longest = Counter(), [], (0, None)
    for rank in range(rb.canonical_deals(k)):
        p1, p2 = rb.unrank_deal(k, rank)
        o = rb.play_reference(p1, p2)
        if o.finished:
            lengths[o.rounds] += 1
            if o.rounds > longest[0]:
                longest = (o.rounds, (p1, p2))
        else:
            infinite.append((p1, p2, o.cycle_id, o.rounds, o.period))
    return lengths, sorted(infinite), longest


@pytest.mark.parametrize("k", range(1, 8))
def test_search_equals_reference(k):
    res = rb.search(k)
    lengths, infinite, longest = search_by_reference(k)
    assert res.deals == rb.canonical_deals(k)
    assert res.finite == sum(lengths.values())
    assert {r: int(c) for r, c in enumerate(res.lengths) if c} == dict(lengths)
    assert (
        sorted((d["p1"], d["p2"], d["cycle_id"], d["rounds_before_cycle"], d["period"]) for d in res.infinite)
        == infinite
    )
    assert (res.longest_rounds, res.longest_deal) == longest


def test_search_shards_add_up_to_the_whole():
    k = 9
    whole = rb.search(k)
    total = rb.canonical_deals(k)
    parts = [rb.search_range(k, a, b) for a, b in [(0, 1), (1, 777), (777, total - 5), (total - 5, total)]]
    assert sum(p.deals for p in parts) == whole.deals
    assert sum(p.finite for p in parts) == whole.finite
    assert sorted(d["p1"] + d["p2"] for p in parts for d in p.infinite) == sorted(
        d["p1"] + d["p2"] for d in whole.infinite
    )
    merged = np.zeros(len(whole.lengths), dtype=np.int64)
    for p in parts:
        merged[: len(p.lengths)] += p.lengths
    assert (merged == whole.lengths).all()


# --- basins ----------------------------------------------------------------------------


def exhaustive_vs_basins(k: int):
    res = rb.search(k)
    found = sorted((d["p1"], d["p2"], d["cycle_id"], d["rounds_before_cycle"]) for d in res.infinite)
    in_basins = []
    for cid in sorted({d["cycle_id"] for d in res.infinite}):
        bas = rb.basin(cid)
        assert bas.complete and bas.cycle_id == cid
        in_basins += [(p1, p2, cid, d) for p1, p2, d in bas.deals]
    return found, sorted(in_basins)


@pytest.mark.parametrize("k", range(1, 12))
def test_exhaustive_list_equals_balanced_deals_in_the_basins(k):
    found, in_basins = exhaustive_vs_basins(k)
    assert found == in_basins


@pytest.mark.slow
@pytest.mark.parametrize("k", range(12, 16))
def test_exhaustive_list_equals_basins_larger_k(k):
    found, in_basins = exhaustive_vs_basins(k)
    assert found == in_basins


def test_some_small_size_has_infinite_balanced_deals():
    # guards the basin comparison against passing vacuously
    assert any(rb.search(k).infinite for k in range(1, 9))


@pytest.mark.parametrize("k", range(1, 12))
def test_every_reported_infinite_deal_replays_to_a_repeated_state(k):
    res = rb.search(k)
    deals = {(d["p1"], d["p2"]): d for d in res.infinite}
    for cid in {d["cycle_id"] for d in res.infinite}:
        for p1, p2, mu in rb.basin(cid).deals:
            deals.setdefault((p1, p2), {"cycle_id": cid, "rounds_before_cycle": mu})
    for (p1, p2), d in deals.items():
        o = rb.play_reference(p1, p2)
        assert not o.finished
        assert o.cycle_id == d["cycle_id"] and o.rounds == d["rounds_before_cycle"]


@pytest.mark.parametrize("n", range(2, 10))
def test_predecessors_are_exactly_the_states_leading_here(n):
    into: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for leader, other in all_states(n):
        code, nl, no = rb.round_kernel(leader, other)
        if code < rb.LEADER_OUT:
            into.setdefault((nl, no), []).append((leader, other))
    for state in all_states(n):
        expected = sorted(into.get(state, []))
        assert sorted(rb.predecessors(*state)) == expected, state
        assert sorted(rb.predecessors_reference(*state)) == expected, state


def test_basin_of_the_seed_cycle_contains_the_seed_deal_and_nothing_finite():
    bas = rb.basin("10/110")
    assert bas.complete and bas.period == 2
    # every 5-card state with 3 black cards that never ends is in this basin (or another cycle's)
    infinite = [
        (l, o)
        for l, o in all_states(5)
        if not rb.play_reference(l, o).finished and rb.play_reference(l, o).cycle_id == "10/110"
    ]
    assert bas.states == len(infinite)


# --- symmetry and conservation ------------------------------------------------------------

decks = st.text(alphabet="01", min_size=1, max_size=25)


@settings(max_examples=300, deadline=None)
@given(decks, decks)
def test_a_round_conserves_cards(leader, other):
    code, nl, no = rb.round_kernel(leader, other)
    before = Counter(leader + other)
    if code < rb.LEADER_OUT:
        assert Counter(nl + no) == before
        assert nl and no
    else:
        assert (nl, no) == (leader, other)


@settings(max_examples=300, deadline=None)
@given(decks, decks)
def test_colour_swap_commutes_with_a_round(leader, other):
    code, nl, no = rb.round_kernel(leader, other)
    code2, sl, so = rb.round_kernel(swap(leader), swap(other))
    assert code == code2
    assert (sl, so) == (swap(nl), swap(no))


@settings(max_examples=200, deadline=None)
@given(decks, decks)
def test_colour_swap_maps_games_to_games(p1, p2):
    assert rb.play(p1, p2) == rb.play(swap(p1), swap(p2))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 9), st.data())
def test_cycle_id_is_the_same_from_every_state_of_the_cycle(k, data):
    res = rb.search(k)
    if not res.infinite:
        return
    d = data.draw(st.sampled_from(res.infinite))
    leader, other = rb.parse_cycle_id(d["cycle_id"])
    # walk around the cycle: every state (and its colour swap) reports the same id
    for _ in range(d["period"]):
        assert rb.play(leader, other).cycle_id == d["cycle_id"]
        assert rb.play(swap(leader), swap(other)).cycle_id == d["cycle_id"]
        _, leader, other = rb.round_kernel(leader, other)


# --- sampling ------------------------------------------------------------------------------


def test_sample_is_reproducible_and_independent_of_threads():
    import numba

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = rb.sample_range(6, 987654321, 0, 20000, balanced=False)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = rb.sample_range(6, 987654321, 0, 20000, balanced=False, batch=3000)
    finally:
        numba.set_num_threads(before)
    assert one.finite == two.finite and (one.lengths == two.lengths).all()
    assert one.infinite == two.infinite
    assert one.infinite, "20000 unbalanced 12-card deals should include an infinite one"
    for d in one.infinite:
        p1, p2 = rb.canonical(*rb.sample_deal(987654321, d["deal_index"], 6, False))
        assert (p1, p2) == (d["p1"], d["p2"])
        o = rb.play_reference(p1, p2)
        assert not o.finished and o.cycle_id == d["cycle_id"]


@pytest.mark.parametrize("balanced", [True, False])
def test_sampled_deals_use_the_whole_deck(balanced):
    sizes = set()
    for i in range(300):
        p1, p2 = rb.sample_deal(42, i, 13, balanced)
        assert Counter(p1 + p2) == Counter({"0": 13, "1": 13})
        sizes.add(len(p1))
    assert sizes == {13} if balanced else len(sizes) > 10


def test_sample_results_match_the_reference():
    res = rb.sample_range(6, 7, 0, 400, balanced=True)
    lengths = Counter()
    for i in range(400):
        o = rb.play_reference(*rb.sample_deal(7, i, 6, True))
        if o.finished:
            lengths[o.rounds] += 1
    assert {r: int(c) for r, c in enumerate(res.lengths) if c} == dict(lengths)


# --- input checks ---------------------------------------------------------------------------


@pytest.mark.parametrize("p1,p2", [("", "01"), ("012", "01"), ("10", "1 0"), ("1" * 30, "0" * 30)])
def test_bad_deals_are_rejected(p1, p2):
    with pytest.raises(CardlabError):
        rb.play(p1, p2)
