"""The fast exhaustive kernels (deals in vector lanes, round budget) and the owner rule, against slower truths."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

import engines.redblack as rb
from engines.core.errors import CardlabError
from engines.redblack.chunks import _search_chunk
from engines.redblack.kernel import _cycle_info
from engines.redblack.lanes import lane_state
from engines.redblack.owner import _owner_play, balanced_predecessors
from engines.redblack.ranks import BINOM, _unrank
from engines.redblack.rules import colour_swap as swap
from engines.redblack.rules import cycle_id_str, deal_strings

# --- the fast search kernel against the one-deal-at-a-time kernel ---------------------------


def one_lane_search(k: int, start: int, stop: int):
    """`_search_chunk` (one deal at a time, Brent from the first round) on [start, stop), as search_range reports it."""
    hist = np.zeros(1 << 12, dtype=np.int64)
    rows = np.zeros((64, 4), dtype=np.int64)
    finite, n_inf, longest, deal = _search_chunk(k, np.int64(start), np.int64(stop), BINOM, hist, rows)
    infinite = []
    for s, mu, period, key in rows[:n_inf].tolist():
        p1, p2 = deal_strings(s, k, 2 * k)
        infinite.append(
            {
                "p1": p1,
                "p2": p2,
                "deal_index": rb.rank_deal(p1, p2),
                "cycle_id": cycle_id_str(key, 2 * k),
                "rounds_before_cycle": mu,
                "period": period,
            }
        )
    longest_deal = deal_strings(int(deal), k, 2 * k) if deal >= 0 else ("", "")
    return finite, np.trim_zeros(hist, "b"), int(longest), longest_deal, infinite


def assert_same_as_one_lane(k: int, start: int, stop: int):
    res = rb.search_range(k, start, stop)
    finite, lengths, longest, longest_deal, infinite = one_lane_search(k, start, stop)
    assert res.deals == stop - start and res.stopped == 0 and res.method == "brute"
    assert res.finite == finite
    assert np.array_equal(res.lengths, lengths)
    assert (res.longest_rounds, res.longest_deal) == (longest, longest_deal)
    assert res.infinite == infinite  # same rows, same (rank) order
    assert res.rounds >= int((np.arange(len(lengths)) * lengths).sum())


@pytest.mark.parametrize("k", range(1, 13))
def test_fast_search_equals_the_one_lane_kernel(k):
    assert_same_as_one_lane(k, 0, rb.canonical_deals(k))


@pytest.mark.parametrize(
    "k,start,stop",
    [
        (6, 0, 1),
        (6, 5, 7),
        (6, 100, 101),
        (6, 17, 400),
        (13, 4_000_000, 4_100_003),
        (14, 123_457, 323_457),
        (14, 20_058_299, 20_058_300),
        (15, 77_500_000, 77_558_760),  # the last size of 32-bit lanes
        (16, 3_000_000, 3_020_017),  # 64-bit lanes from here on
        (20, 68_923_244_410, 68_923_264_410),
        (26, 123_979_633_137_026, 123_979_633_147_027),
    ],
)
def test_fast_search_equals_the_one_lane_kernel_on_slices(k, start, stop):
    assert_same_as_one_lane(k, start, stop)


def test_fast_search_keeps_the_lowest_rank_among_the_longest_games():
    # several deals of k = 7 share the longest length: the first in rank order is reported
    res = rb.search(7)
    ranks = [
        r
        for r in range(rb.canonical_deals(7))
        if rb.play(*rb.unrank_deal(7, r)).rounds == res.longest_rounds and rb.play(*rb.unrank_deal(7, r)).finished
    ]
    assert res.longest_deal == rb.unrank_deal(7, ranks[0])


# --- the owner rule -----------------------------------------------------------------------


def balanced_states(k: int, rnd: random.Random):
    """A random state of a balanced game of size k (any split of the 2k cards, both decks non-empty)."""
    n = 2 * k
    blacks = set(rnd.sample(range(n), k))
    s = "".join("1" if i in blacks else "0" for i in range(n))
    a = rnd.randint(1, n - 1)
    return s[:a], s[a:]


def test_balanced_predecessors_are_the_balanced_deals_among_all_predecessors():
    rnd = random.Random(20260101)
    found = 0
    for _ in range(6000):
        k = rnd.randint(1, 20)
        leader, other = balanced_states(k, rnd)
        # piles built on purpose: the O(1) test must admit these often enough to be tested
        if rnd.random() < 0.5 and len(leader) < k:
            c = rnd.choice("01")
            b = len(other)
            run = rnd.randint(1, b - 1)
            other = other[: b - run - 1] + c * run + ("1" if c == "0" else "0")
            if other.count("1") + leader.count("1") != k:
                continue
        got = balanced_predecessors(leader, other)
        expected = {rb.canonical(p, q) for p, q in rb.predecessors(leader, other) if len(p) == len(q) == k}
        assert sorted(got) == sorted(expected), (leader, other)
        for p1, p2 in got:
            found += 1
            # the deal or its colour swap plays one round into the state
            code, nl, no = rb.round_kernel(p1, p2)
            assert code < rb.LEADER_OUT and ((nl, no) == (leader, other) or (swap(nl), swap(no)) == (leader, other)), (
                p1,
                p2,
                leader,
                other,
            )
    assert found > 200


def owner_reference(k: int):
    """The owner rule one card at a time: (finite lengths, stopped, infinite, rounds of finite and stopped deals)."""
    lengths, stopped, infinite, rounds = Counter(), 0, 0, 0
    for rank in range(rb.canonical_deals(k)):
        leader, other = (list(map(int, d)) for d in rb.unrank_deal(k, rank))
        seen, t = set(), 0
        while True:
            state = (tuple(leader), tuple(other))
            if t > 0 and any(
                len(p) == len(q) == k and rb.rank_deal(*rb.canonical(p, q)) < rank
                for p, q in rb.predecessors_reference("".join(map(str, leader)), "".join(map(str, other)))
            ):
                stopped += 1
                rounds += t
                break
            if state in seen:
                infinite += 1
                break
            seen.add(state)
            code, leader, other, _ = rb.round_reference(leader, other)
            t += 1
            if code >= rb.LEADER_OUT:
                lengths[t] += 1
                rounds += t
                break
    return lengths, stopped, infinite, rounds


@pytest.mark.parametrize("k", range(1, 9))
def test_owner_search_equals_the_reference(k):
    res = rb.search(k, method="owner")
    lengths, stopped, infinite, rounds = owner_reference(k)
    assert res.method == "owner" and res.deals == rb.canonical_deals(k)
    assert {r: int(c) for r, c in enumerate(res.lengths) if c} == dict(lengths)
    assert res.finite == sum(lengths.values())
    # Brent sees a cycle later than the reference's set of states, so an infinite deal
    # may still be stopped on its cycle; finite and stopped-before-the-cycle deals agree
    assert res.stopped >= stopped and res.stopped + res.infinite_count == stopped + infinite
    if infinite == 0:
        assert res.rounds == rounds


@pytest.mark.parametrize(
    "k,start,stop",
    [
        (12, 0, 20_000),
        (15, 40_000_000, 40_030_001),
        (16, 0, 30_000),
        (21, 10**9, 10**9 + 20_003),
        (26, 2 * 10**14, 2 * 10**14 + 20_000),
    ],
)
def test_owner_lanes_equal_the_one_deal_owner_kernel(k, start, stop):
    """The owner rule in vector lanes (32- and 64-bit) against `_owner_play`, one deal at a time, on cycle-free windows."""
    res = rb.search_range(k, start, stop, method="owner")
    lengths, stopped, rounds = Counter(), 0, 0
    for r in range(start, stop):
        s = int(_unrank(np.int64(r), k, BINOM)) << 1
        n, lam, stop_here = _owner_play(np.int64(s), k)
        assert lam == 0  # these windows reach no cycle
        rounds += n
        stopped += bool(stop_here)
        if not stop_here:
            lengths[int(n)] += 1
    assert (res.stopped, res.rounds, res.infinite) == (stopped, rounds, [])
    assert {r: int(c) for r, c in enumerate(res.lengths) if c} == dict(lengths)


def owner_one_deal_at_a_time(k: int, start: int, stop: int):
    """The owner rule with the scalar kernel (`_owner_play`), deal after deal, as search_range reports it."""
    lengths, stopped, rounds, longest, longest_deal, infinite = Counter(), 0, 0, 0, ("", ""), []
    for r in range(start, stop):
        s = np.int64(int(_unrank(np.int64(r), k, BINOM)) << 1)
        n, lam, stop_here = _owner_play(s, k)
        rounds += int(n)
        p1, p2 = deal_strings(int(s), k, 2 * k)
        if stop_here:
            stopped += 1
        elif lam == 0:
            lengths[int(n)] += 1
            if n > longest:  # ranks ascend: a tie keeps the lowest
                longest, longest_deal = int(n), (p1, p2)
        else:
            mu, period, key, _ = _cycle_info(s & ((1 << k) - 1), k, s >> k, k, lam)
            infinite.append(
                {
                    "p1": p1,
                    "p2": p2,
                    "deal_index": r,
                    "cycle_id": cycle_id_str(int(key), 2 * k),
                    "rounds_before_cycle": int(mu),
                    "period": int(period),
                }
            )
    return lengths, stopped, rounds, longest, longest_deal, infinite


def random_rank_ranges(rnd: random.Random, count: int):
    """(k, start, stop) over both lane widths: shorter than, equal to and just past the lane count,
    not a multiple of it, and long enough that lanes run dry at different times and share ranges."""
    lanes = {k: lane_state(k).shape[1] for k in range(2, 27)}
    for _ in range(count):
        k = rnd.choice([5, 6, 7, 9, 11, 13, 15, 16, 17, 20, 26])
        total = rb.canonical_deals(k)
        size = min(
            total, rnd.choice([1, lanes[k] - 1, lanes[k], lanes[k] + 1, rnd.randint(2, 200), rnd.randint(200, 6000)])
        )
        start = rnd.randrange(total - size + 1)
        yield k, start, start + size


@pytest.mark.parametrize("k,start,stop", list(random_rank_ranges(random.Random(2026_12_01), 40)))
def test_lanes_equal_the_scalar_kernels_on_random_ranges(k, start, stop):
    """Both lane kernels against the one-deal-at-a-time kernels: every count, the longest game and its
    deal, the rounds played, the infinite rows (k = 6 ranges reach cycles, and the round budget)."""
    assert_same_as_one_lane(k, start, stop)
    res = rb.search_range(k, start, stop, method="owner")
    lengths, stopped, rounds, longest, longest_deal, infinite = owner_one_deal_at_a_time(k, start, stop)
    assert {r: int(c) for r, c in enumerate(res.lengths) if c} == dict(lengths)
    assert (res.finite, res.stopped, res.rounds) == (sum(lengths.values()), stopped, rounds)
    assert (res.longest_rounds, res.longest_deal) == (longest, longest_deal)
    assert res.infinite == infinite


def test_random_ranges_cover_both_widths_cycles_and_short_ranges():
    # guards the test above: it must see both lane widths, ranges shorter than the lanes, and cycles
    ranges = list(random_rank_ranges(random.Random(2026_12_01), 40))
    assert {lane_state(k).dtype for k, _, _ in ranges} == {np.dtype(np.int32), np.dtype(np.int64)}
    assert any(b - a < lane_state(k).shape[1] for k, a, b in ranges)
    assert any(b - a > 1000 and (b - a) % lane_state(k).shape[1] for k, a, b in ranges)
    assert any(rb.search_range(k, a, b, method="owner").infinite for k, a, b in ranges if k == 6)


def owner_vs_brute(k: int):
    brute = rb.search(k)
    owner = rb.search(k, method="owner")
    assert owner.finite + owner.stopped + owner.infinite_count == brute.deals
    assert owner.infinite_count == len(owner.infinite)
    # a game played to the end is the same game as in brute force
    assert len(owner.lengths) <= len(brute.lengths) and (owner.lengths <= brute.lengths[: len(owner.lengths)]).all()
    cycles = sorted({d["cycle_id"] for d in owner.infinite})
    assert cycles == sorted({d["cycle_id"] for d in brute.infinite})
    closure = sorted((p1, p2, cid, mu) for cid in cycles for p1, p2, mu in rb.basin(cid).deals)
    assert closure == sorted((d["p1"], d["p2"], d["cycle_id"], d["rounds_before_cycle"]) for d in brute.infinite)
    for d in owner.infinite:
        assert d in brute.infinite
    return brute, owner


@pytest.mark.parametrize("k", range(1, 13))
def test_owner_finds_every_cycle_brute_force_finds(k):
    brute, owner = owner_vs_brute(k)
    if k >= 4:
        assert owner.stopped > 0 and owner.rounds < brute.rounds


def test_owner_finds_cycles_at_all():
    # guards the comparisons above: k = 6 is the one size up to 12 with infinite balanced deals
    brute, owner = owner_vs_brute(6)
    assert owner.infinite and len(owner.infinite) < len(brute.infinite)


@pytest.mark.slow
@pytest.mark.parametrize("k", range(13, 16))
def test_owner_finds_every_cycle_brute_force_finds_larger_k(k):
    owner_vs_brute(k)


def owner_slices_find_the_cycles_of_the_whole(k: int, cuts):
    total = rb.canonical_deals(k)
    whole = {d["cycle_id"] for d in rb.search(k, method="owner").infinite}
    edges = [0, *cuts, total]
    parts = [rb.search_range(k, a, b, method="owner") for a, b in zip(edges, edges[1:])]
    assert set().union(*({d["cycle_id"] for d in p.infinite} for p in parts)) == whole
    assert sum(p.deals for p in parts) == total
    return whole


@pytest.mark.parametrize("cuts", [(1, 2), (50, 51), (100, 300), (230, 231), (400, 461)])
def test_owner_slices_find_the_cycles_of_the_whole(cuts):
    assert owner_slices_find_the_cycles_of_the_whole(6, cuts)


@pytest.mark.slow
def test_owner_slices_find_the_cycles_of_the_whole_k15():
    total = rb.canonical_deals(15)
    assert len(owner_slices_find_the_cycles_of_the_whole(15, (total // 3, 2 * total // 3))) > 0


def test_unknown_search_method_is_rejected():
    with pytest.raises(CardlabError):
        rb.search_range(5, 0, 10, method="fast")
