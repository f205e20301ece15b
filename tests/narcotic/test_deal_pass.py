"""Narcotic: the vector deal pass against the card-by-card pass, deck by deck.

The vector pass is compiled for the CPU at hand (AVX-512's byte compress, the pshufb
table path of AVX2 machines, or LLVM's generic lowering); whichever it is must give the
card-by-card pass's next deck and length, leave the rest of the row zero, write nothing
outside its row, and flag the freak pile-four cascades it leaves to the book.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from pass_decks import pass_decks

from engines.narcotic.deal_pass import _scalar_pass, _vector_pass
from engines.narcotic.ir import ROW, _byte_compress
from engines.narcotic.rules import GATHERS

_STALE, _GUARD = 0xEE, 0x77  # an older, longer deck in the row written; the row after it


@njit
def _both_passes(decks, lengths, how, discard, fast, slow, fast_m, slow_m, guard_ok):
    """Row 1 <- pass of row 0, by the vector pass (``fast``) and the card-by-card one (``slow``)."""
    ring = np.zeros((3, ROW), dtype=np.uint8)
    piles = np.zeros((4, ROW), dtype=np.uint8)
    heights = np.zeros(4, dtype=np.int64)
    for i in range(decks.shape[0]):
        ring[0, :] = 0
        ring[0, : lengths[i]] = decks[i, : lengths[i]]
        ring[1, :] = _STALE
        ring[2, :] = _GUARD
        fast_m[i] = _vector_pass(ring, 0, 1, how, discard)
        fast[i] = ring[1]
        guard_ok[i] = np.all(ring[2] == _GUARD)
        ring[1, :] = _STALE
        slow_m[i] = _scalar_pass(ring, 0, 1, lengths[i], how, discard, piles, heights)
        slow[i] = ring[1]


def _freak_deck() -> list[int]:
    """A deck whose pile 0 is dealt 1 2 3 3 3 3 2 2 2 1 1 1: the pile-four rule empties it
    card by card, while the vector pass's two rounds of removing fours leave 1 1 1 1."""
    firsts = [1, 2, 3, 3, 3, 3, 2, 2, 2, 1, 1, 1]
    others = [4 + i % 10 for i in range(40)]  # values 4..13, four each; any three in a row differ
    deals = [[c, *others[3 * d : 3 * d + 3]] for d, c in enumerate(firsts)] + [others[36:]]
    return [c for deal in deals for c in deal][::-1]  # the last card is dealt first


@pytest.mark.parametrize("discard", [False, True], ids=["keep", "discard"])
@pytest.mark.parametrize("how", range(4), ids=GATHERS)
def test_vector_pass_matches_card_by_card_pass(how, discard):
    decks, lengths = pass_decks(2026, [_freak_deck()])
    g = len(decks)
    fast, slow = np.zeros((g, ROW), np.uint8), np.zeros((g, ROW), np.uint8)
    fast_m, slow_m, guard_ok = np.zeros(g, np.int64), np.zeros(g, np.int64), np.zeros(g, np.bool_)
    _both_passes(decks, lengths, how, discard, fast, slow, fast_m, slow_m, guard_ok)
    assert guard_ok.all(), "the vector pass wrote past its row"
    replay = fast_m >= 256
    assert replay[0] == discard  # the freak deck asks for a replay, as only discard can
    assert replay.sum() <= (1 + len(decks) // 500 if discard else 0)  # the rare case stays rare
    assert slow_m[0] == lengths[0] - (12 if discard else 0)
    done = ~replay
    assert (fast_m[done] == slow_m[done]).all()
    assert (fast[done, :64] == slow[done, :64]).all()  # the deck, then zeros: all a later pass reads


class _Codegen:
    def __init__(self, features):
        self._tm_features = features


class _Context:
    def __init__(self, codegen):
        self._codegen = codegen

    def codegen(self):
        return self._codegen


@pytest.mark.parametrize(
    ("features", "kind"),
    [
        ("+64bit,+avx2,+avx512bw,+avx512f,+avx512vbmi2,+ssse3", "vbmi2"),
        ("+64bit,+avx2,-avx512f,-avx512vbmi2,+ssse3", "pshufb"),
        ("+64bit,-ssse3,+sse2", "generic"),
        ("+neon,+fp-armv8", "generic"),
        (None, "generic"),  # a numba that no longer states its features
    ],
)
def test_byte_compress_follows_target_features(features, kind):
    codegen = _Codegen(features) if features is not None else object()
    assert _byte_compress(_Context(codegen)) == kind
