"""research/redblack_levers.py models the owner rule outside the kernel: it must play what the kernel plays.

Not part of `make test` (pytest's testpaths are tests/): `make research-test` runs it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from engines.redblack.exhaustive import search_range
from engines.redblack.ranks import BINOM
from engines.redblack.rules import canonical_deals

STUDY = Path(__file__).resolve().parent / "redblack_levers.py"


@pytest.fixture(scope="module")
def levers():
    spec = importlib.util.spec_from_file_location("redblack_levers", STUDY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cache looks the module up by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("k", [6, 9])  # k = 6 has infinite deals: its basins' first deals cycle
def test_study_rounds_are_the_kernels(levers, k):
    deals, total = levers._all_deals(k, BINOM), canonical_deals(k)
    kernel = search_range(k, 0, total, method="owner").rounds
    rank_order = levers._rounds_in_order(deals, k, np.zeros(len(deals), np.int64), BINOM)
    assert rank_order * total == pytest.approx(kernel, rel=0, abs=1e-6)
    # the loser of the first round ends it with more than k cards (the winner played at least one)
    assert levers._rounds_past_hand(deals, k, k) == (kernel, kernel, total)
    # a hand of 2k - 1 cards leaves the other player one, and no hand holds more while the game goes on
    assert levers._rounds_past_hand(deals, k, 2 * k - 1) == (kernel, 0, 0)
    past = [levers._rounds_past_hand(deals, k, limit)[1] for limit in range(k, 2 * k)]
    assert all(a > b for a, b in zip(past, past[1:]))


@pytest.mark.parametrize("k", [6, 9])
def test_shared_reads_model_plays_the_kernels_rounds(levers, k):
    deals, total = levers._all_deals(k, BINOM), canonical_deals(k)
    colours = levers.deal_colours(deals, k)
    rounds, shared, nodes = levers._shared_reads(colours, k, levers.order_places(k, "rank"))
    assert rounds == search_range(k, 0, total, method="owner").rounds
    # other orders, read card by card, decide as the bit model given every deal's place in them
    for name in ("play", "player 2 first"):
        keys = levers.order_keys(deals, levers.order_places(k, name))
        assert len(np.unique(keys)) == total
        in_order = levers._shared_reads(colours, k, levers.order_places(k, name))[0]
        assert in_order == round(levers._rounds_in_order(deals, k, keys, BINOM) * total)
    in_play_order, shared_play, _ = levers._shared_reads(colours, k, levers.order_places(k, "play"))
    # every deal reads its first card (one of two colours after the red top card: a branch), and
    # deals share rounds only while they read the same cards: fewer shared rounds than played
    assert 0 < shared < rounds and 0 < shared_play < in_play_order
    assert nodes >= 2


def test_play_order_windows_fix_all_but_the_last_places(levers):
    k, free = 6, 5
    rows = next(levers.play_order_windows(k, 1, free, seed=3))
    places = levers.order_places(k, "play")
    assert sorted(places) == list(range(1, 2 * k))
    assert (rows.sum(axis=1) == k).all() and (rows[:, 0] == 0).all()  # balanced, canonical
    assert len({tuple(r) for r in rows}) == len(rows)
    fixed = rows[:, places[:-free]]
    assert (fixed == fixed[0]).all()


@pytest.mark.parametrize("k", [6, 9])
def test_rules_of_the_owner_kind_find_every_cycle_and_play_no_fewer_rounds_than_the_bound(levers, k):
    """Stopping a deal where an earlier deal passes (the merge bound) is the fewest rounds any such rule plays;
    the side-branch search is such a rule: at depth 1 it is the owner rule, deeper it plays fewer rounds, never
    below the bound, and finds brute force's cycles (k = 6 has infinite deals)."""
    deals, total = levers._all_deals(k, BINOM), canonical_deals(k)
    owner = search_range(k, 0, total, method="owner").rounds / total
    bound, states = levers._merge_bound(deals, k)
    assert bound == pytest.approx(states) and 1.0 <= bound < owner
    brute = np.empty(1 << 10, np.int64)
    expected = set(brute[: levers._brute_cycles(deals, k, brute)].tolist())
    assert (k == 6) == bool(expected)
    previous = None
    for depth in (1, 2, 4, 16):
        cycles = np.empty(1 << 10, np.int64)
        rounds, expanded, found = levers._rounds_side_branches(deals, k, depth, cycles)
        assert set(cycles[:found].tolist()) == expected
        assert bound <= rounds <= owner and expanded >= 1
        if depth == 1:
            assert rounds == pytest.approx(owner, rel=0, abs=1e-9)
        else:
            assert rounds <= previous
        previous = rounds
    # a table as large as the states plays between the bound and the owner rule; a tiny one changes little
    assert bound <= levers._rounds_with_state_table(deals, k, 0, 20, total) <= owner
    assert levers._rounds_with_state_table(deals, k, 2, 1, 10) <= owner
