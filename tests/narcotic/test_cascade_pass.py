"""Narcotic: the fast cascade pass against the card-by-card cascade, and its gather against the reference.

The pass and the gather are compiled for the CPU at hand (AVX-512's byte compress and
expand, or the stored join of other CPUs); whichever it is must give the reference's
next deck, leave the rest of the deck's 64 bytes zero and write nothing outside its row.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from pass_decks import pass_decks

from engines import narcotic as N
from engines.narcotic.cascade import _BASE, _cascade_deal_slow, _cascade_pass, _gather_piles
from engines.narcotic.ir import ROW
from engines.narcotic.rules import GATHERS

_STALE, _GUARD = 0xEE, 0x77  # an older, longer deck in the row written; the rows around it


@njit
def _gather_rows(pile_rows, heights, how, decks, lengths, guard_ok):
    """decks[i] <- the gather of pile_rows[i] (four rows, bottom card first), heights[i]."""
    ring = np.empty((3, ROW), dtype=np.uint8)
    top = np.zeros(4, dtype=np.int64)
    for i in range(pile_rows.shape[0]):
        ring[:, :] = _GUARD
        ring[1, :] = _STALE
        top[:] = heights[i]
        lengths[i] = _gather_piles(pile_rows[i], top, how, ring, 1)
        decks[i] = ring[1]
        guard_ok[i] = np.all(ring[0] == _GUARD) and np.all(ring[2] == _GUARD)


@pytest.mark.parametrize("how", range(4), ids=GATHERS)
def test_gather_matches_reference(how):
    """Piles of every height up to a whole deck, doubled cards below their tops and
    anything above them (the pass leaves old cards there)."""
    rng = np.random.default_rng(7 + how)
    g = 3000
    heights = np.zeros((g, 4), dtype=np.int64)
    pile_rows = rng.integers(1, 256, (g, 4, ROW)).astype(np.uint8)
    for i in range(g):
        total = rng.integers(0, 53)
        heights[i] = rng.multinomial(total, rng.dirichlet(np.ones(4) * rng.choice([0.2, 1.0, 5.0])))
        for k in range(4):
            cards = rng.integers(1, 14, heights[i, k])
            pile_rows[i, k, _BASE + 1 : _BASE + 1 + heights[i, k]] = 2 * cards
    decks, lengths, guard_ok = np.zeros((g, ROW), np.uint8), np.zeros(g, np.int64), np.zeros(g, np.bool_)
    _gather_rows(pile_rows, heights, how, decks, lengths, guard_ok)
    assert guard_ok.all(), "the gather wrote outside its row"
    for i in range(g):
        piles = [list(pile_rows[i, k, _BASE + 1 : _BASE + 1 + heights[i, k]] // 2) for k in range(4)]
        expected = N.gather(piles, GATHERS[how])
        n = len(expected)
        assert lengths[i] == n
        assert list(decks[i, :n]) == expected, i
        assert not decks[i, n:64].any(), i  # zeros after the deck: all a later pass reads


@njit
def _both_passes(decks, lengths, how, discard, fast, slow, fast_m, slow_m, guard_ok):
    """Row 1 <- pass of row 0, by the fast cascade pass (``fast``) and deal by deal with
    the card-by-card cascade (``slow``)."""
    ring = np.zeros((3, ROW), dtype=np.uint8)
    piles = np.zeros((4, ROW), dtype=np.uint8)
    top = np.zeros(4, dtype=np.int64)
    for i in range(decks.shape[0]):
        n = lengths[i]
        ring[0, :] = 0
        ring[0, :n] = decks[i, :n]
        ring[1, :] = _STALE
        ring[2, :] = _GUARD
        fast_m[i] = _cascade_pass(ring, 0, 1, n, how, discard, piles, top)
        fast[i] = ring[1]
        guard_ok[i] = np.all(ring[2] == _GUARD)
        ring[1, :] = _STALE
        piles[:, :] = 0
        for k in range(4):
            piles[k, _BASE] = 0x40 + 2 * k
        top[:] = 0
        for pos in range(n - 4, -1, -4):
            c = ring[0, pos : pos + 4]
            if c[0] == c[1] and c[0] == c[2] and c[0] == c[3]:
                continue
            _cascade_deal_slow(piles, top, 2 * c[3], 2 * c[2], 2 * c[1], 2 * c[0], discard)
        slow_m[i] = _gather_piles(piles, top, how, ring, 1)
        slow[i] = ring[1]


@pytest.mark.parametrize("discard", [False, True], ids=["keep", "discard"])
@pytest.mark.parametrize("how", range(4), ids=GATHERS)
def test_cascade_pass_matches_card_by_card_cascade(how, discard):
    decks, lengths = pass_decks(2027)
    g = len(decks)
    fast, slow = np.zeros((g, ROW), np.uint8), np.zeros((g, ROW), np.uint8)
    fast_m, slow_m, guard_ok = np.zeros(g, np.int64), np.zeros(g, np.int64), np.zeros(g, np.bool_)
    _both_passes(decks, lengths, how, discard, fast, slow, fast_m, slow_m, guard_ok)
    assert guard_ok.all(), "the cascade pass wrote past its row"
    assert (fast_m == slow_m).all()
    assert (fast[:, :64] == slow[:, :64]).all()  # the deck, then zeros: all a later pass reads
    assert len(set(slow_m)) >= 12  # the decks make passes of many lengths (multiples of 4)
