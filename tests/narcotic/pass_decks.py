"""Decks for the tests that compare a fast Narcotic pass with a card-by-card one."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engines import narcotic as N


def pass_decks(seed: int, first: Sequence[list[int]] = ()) -> tuple[np.ndarray, np.ndarray]:
    """``first``, then 6,000 decks: shuffled ones, nearly sorted ones (long runs of equal
    cards: deep cascades and pile fours) and decks with some values gone (shorter,
    zero-padded); rows of 64 bytes and their lengths."""
    rng = np.random.default_rng(seed)
    decks = list(first)
    for i in range(6000):
        deck = np.array(N.fresh_deck())
        if i % 3 == 0:
            rng.shuffle(deck)
        else:
            deck = np.sort(deck)
            for _ in range(rng.integers(0, 12)):
                a, b = rng.integers(0, len(deck), 2)
                deck[a], deck[b] = deck[b], deck[a]
        if i % 3 == 2:
            deck = deck[np.isin(deck, rng.permutation(13)[: rng.integers(1, 13)] + 1)]
        decks.append(list(deck))
    rows = np.zeros((len(decks), 64), dtype=np.uint8)
    for i, deck in enumerate(decks):
        rows[i, : len(deck)] = deck
    return rows, np.array([len(d) for d in decks], dtype=np.int64)
