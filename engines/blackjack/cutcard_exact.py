"""The cut-card effect on the dealer, exactly: dynamic programming over the shoe's composition.

The model is :mod:`.cutcard`'s (one shuffled shoe; each round deals ``players`` cards, then
the dealer's hand; reshuffle at the end of the round in which the cut card came out).

Why integers suffice: every ordering of the same multiset T of dealt card values has the same
probability, ``prod_v ff(shoe_v, T_v) / ff(n, |T|)`` (ff the falling factorial), so a
probability is a *count of value sequences* times that.  The number of value sequences a
round can deal with multiset U and dealer outcome o, ``W(U, o)``, does not depend on the
cards already gone (only on whether U is still in the shoe).  The DP therefore carries, for
every multiset S of cards dealt by complete rounds, the integer ``C_r(S)``: the number of value
sequences of S that are exactly r complete rounds.  Layer r + 1 adds every round U still in
the shoe to every S with fewer than ``cut`` cards.  Results are exact :class:`Fraction`s.

Cost grows with the number of multisets reached (up to cut - 1 + players + the dealer's most cards,
at most MAX_EXACT_CARDS): one deck at a cut of 8 cards is seconds; the deepest cuts the fractions
reach take up to about a CPU-minute (2 decks at a cut of 10), deeper cuts are for the simulation.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import permutations
from math import prod

import numpy as np
from numba import njit

from ..core.errors import CardlabError
from .cutcard import check_cut, deal_shoe, dealer_hand_sequences, max_dealer_cards
from .rules import OUTCOMES, outcome_index

N_OUT = len(OUTCOMES)
# Sequence counts of a multiset of k cards are at most k! / (its repeats), below 2**63 for k <= 20.
MAX_EXACT_CARDS = 20


def falling(n: int, k: int) -> int:
    """n (n - 1) ... (n - k + 1); 0 when k > n."""
    return prod(range(n - k + 1, n + 1)) if k <= n else 0


def round_weights(shoe: Sequence[int], players: int, soft17: str, stride: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """W: the multisets U one round can deal (mixed-radix keys over ``stride``) and their value sequences per outcome.

    A round is ``players`` cards, then the dealer's hand. Its sequences are the dealer's with one player card put
    in front, ``players`` times over: each step adds every value the shoe still holds and sums the sequences that
    meet in one multiset, over arrays (pairing each player multiset with each hand took minutes at 8 players)."""
    hands = dealer_hand_sequences(shoe, soft17)
    keys = np.array(list(hands), np.int64) @ stride
    w = np.zeros((len(hands), N_OUT), np.int64)
    for i, (o, seqs) in enumerate(hands.values()):
        w[i, o] = seqs
    for _ in range(players):
        held = _decode(keys, shoe, stride)
        fits = [held[:, v] < shoe[v] for v in range(1, 11)]
        keys, w = _merged(
            np.concatenate([keys[f] + stride[v] for v, f in enumerate(fits, 1)]), np.concatenate([w[f] for f in fits])
        )
    return keys, w


def _merged(keys: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct key once, with the rows of ``w`` that share it summed."""
    order = np.argsort(keys, kind="stable")
    keys, w = keys[order], w[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[starts], np.add.reduceat(w, starts, axis=0)


def sequence_weight(shoe: Sequence[int], dealt: Sequence[int]) -> int:
    """prod_v ff(shoe_v, dealt_v): the numerator shared by every ordering of ``dealt``."""
    return prod(falling(shoe[v], dealt[v]) for v in range(1, 11))


def check_exact(shoe: Sequence[int], cut: int, players: int, soft17: str, where: str = "cutcard") -> None:
    """A CardlabError unless the model is valid and its sequence counts fit 64 bits."""
    check_cut(shoe, cut, players, soft17, where)
    most = MAX_EXACT_CARDS + 1 - players - max_dealer_cards(shoe, soft17)
    if cut > most:
        raise CardlabError(
            f"{where}: a cut of {cut} cards is too deep for the exact method (sequence counts of more than "
            f"{MAX_EXACT_CARDS} cards overflow 64 bits); use a cut of at most {most} cards, or exact: false"
        )


def exact_rounds(shoe: Sequence[int], cut: int, players: int, soft17: str) -> dict:
    """Exact law of the rounds dealt from one shoe (counts per value, index 1..10) with a cut card.

    Returns ``{"dealt": [P(round r is dealt)], "outcomes": [[P(outcome o | round r dealt)]],
    "average": [per round dealt, all rounds], "rounds": E[rounds per shoe]}`` (rounds r = 1, 2, ...;
    Fractions).  The per-round average is E[rounds of outcome o per shoe] / E[rounds per shoe],
    the long-run share of rounds dealt (renewal-reward)."""
    shoe = tuple(int(c) for c in shoe)
    check_exact(shoe, cut, players, soft17)
    n = sum(shoe)
    radix = np.array([c + 1 for c in shoe], np.int64)
    stride = np.concatenate(([1], np.cumprod(radix[:-1]))).astype(np.int64)
    card_keys, w = round_weights(shoe, players, soft17, stride)
    cards = _decode(card_keys, shoe, stride)
    keys, counts = np.zeros(1, np.int64), np.ones(1, np.int64)
    joint: list[list[Fraction]] = []  # P(round r dealt and outcome o)
    while len(keys):
        ends, acc = _next_rounds(keys, counts, cards, card_keys, w, np.array(shoe, np.int64), stride)
        joint.append(_probabilities(ends, acc, shoe, stride, n))
        sizes = _decode(ends, shoe, stride).sum(axis=1)
        going = sizes < cut
        keys, counts = ends[going], acc[going].sum(axis=1)
    return summarise(joint)


def _decode(keys: np.ndarray, shoe: Sequence[int], stride: np.ndarray) -> np.ndarray:
    """Counts per value (columns 0..10) of multisets given by their mixed-radix keys."""
    return (keys[:, None] // stride[None, :]) % np.array([c + 1 for c in shoe], np.int64)[None, :]


def _probabilities(ends, acc, shoe, stride, n) -> list[Fraction]:
    """sum over end multisets T of acc[T, o] * P(one given ordering of T), exactly, per outcome o.

    P(one ordering of T) depends only on which counts T takes of values the shoe holds equally
    often, so the multisets are first grouped into those classes (a few hundred), their sequence
    counts summed in two 31-bit limbs (int64 sums that cannot overflow), and only the classes
    are weighted with Python integers."""
    dealt = _decode(ends, shoe, stride)
    groups = [[v for v in range(1, 11) if shoe[v] == c] for c in sorted(set(shoe[1:]))]
    signature = np.concatenate([np.sort(dealt[:, g], axis=1) for g in groups], axis=1)
    # one int64 per signature (unique on rows would sort them far slower): its digits are dealt counts, at most
    # MAX_EXACT_CARDS, so the code is below 21^10; a radix of the shoe's largest count (129 for 8 decks) overflowed
    radix = int(dealt.max()) + 1
    codes, which = np.unique(signature @ radix ** np.arange(signature.shape[1], dtype=np.int64), return_inverse=True)
    classes = (codes[:, None] // radix ** np.arange(signature.shape[1], dtype=np.int64)[None, :]) % radix
    which = which.reshape(-1)
    limbs = []
    for part in (acc >> 31, acc & ((1 << 31) - 1)):
        summed = np.zeros((len(classes), N_OUT), np.int64)
        np.add.at(summed, which, part)
        limbs.append(summed.tolist())
    out = [Fraction(0)] * N_OUT
    for k, cls in enumerate(classes.tolist()):
        counts = [0] * 11
        for v, c in zip((v for g in groups for v in g), cls):
            counts[v] = c
        scale = Fraction(sequence_weight(shoe, counts), falling(n, sum(counts)))
        for o in range(N_OUT):
            out[o] += ((limbs[0][k][o] << 31) + limbs[1][k][o]) * scale
    return out


@njit(cache=True)
def _next_rounds(keys, counts, cards, card_keys, w, shoe, stride):
    """One more round after every multiset ``keys`` (with ``counts`` sequences): the end multisets
    and, per outcome, the number of value sequences reaching them (int64: exact, see MAX_EXACT_CARDS).

    End multisets are found through an open-addressing table of plain arrays: numba's typed Dict took
    most of a deep cut's minute."""
    slots = np.full(1 << 12, -1, np.int64)  # a power of two, at most half full: -1 or the end's row
    acc = np.zeros((1024, w.shape[1]), np.int64)
    ends = np.zeros(1024, np.int64)
    left = np.empty(shoe.shape[0], np.int64)
    m = 0
    for i in range(keys.shape[0]):
        for v in range(shoe.shape[0]):
            left[v] = shoe[v] - (keys[i] // stride[v]) % (shoe[v] + 1)
        for u in range(cards.shape[0]):
            fits = True
            for v in range(shoe.shape[0]):
                if cards[u, v] > left[v]:
                    fits = False
                    break
            if not fits:
                continue
            end = keys[i] + card_keys[u]
            s = _slot(slots, ends, end)
            j = slots[s]
            if j < 0:
                if m == ends.shape[0]:
                    ends = np.concatenate((ends, np.zeros(m, np.int64)))
                    acc = np.concatenate((acc, np.zeros((m, w.shape[1]), np.int64)))
                j = m
                ends[j] = end
                slots[s] = j
                m += 1
                if 2 * m > slots.shape[0]:
                    slots = _rehashed(ends, m, 2 * slots.shape[0])
            for o in range(w.shape[1]):
                acc[j, o] += counts[i] * w[u, o]
    return ends[:m], acc[:m]


@njit(cache=True)
def _slot(slots, ends, key):
    """The slot holding ``key``, else the empty one where it goes (linear probing from a Fibonacci hash)."""
    mask = np.uint64(slots.shape[0] - 1)
    s = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20) & mask)
    while slots[s] >= 0 and ends[slots[s]] != key:
        s = (s + 1) & np.int64(mask)
    return s


@njit(cache=True)
def _rehashed(ends, m, size):
    """A table of ``size`` slots holding the first ``m`` ends."""
    slots = np.full(size, -1, np.int64)
    for j in range(m):
        slots[_slot(slots, ends, ends[j])] = j
    return slots


def summarise(joint: list[list[Fraction]]) -> dict:
    """Per-round laws, the per-round average and E[rounds] from P(round r dealt and outcome o)."""
    dealt = [sum(row) for row in joint]
    rounds = sum(dealt)
    return {
        "dealt": dealt,
        "outcomes": [[x / d for x in row] for row, d in zip(joint, dealt)],
        "average": [sum(row[o] for row in joint) / rounds for o in range(N_OUT)],
        "rounds": rounds,
    }


def brute_rounds(shoe: Sequence[int], cut: int, players: int, soft17: str) -> dict:
    """The same law by dealing every distinct ordering of a tiny shoe (tests only)."""
    cards = [v for v in range(1, 11) for _ in range(shoe[v])]
    orders = set(permutations(cards))
    joint: list[list[Fraction]] = []
    for order in orders:
        for r, (_, hand) in enumerate(deal_shoe(list(order), cut, players, soft17)):
            while len(joint) <= r:
                joint.append([Fraction(0)] * N_OUT)
            joint[r][outcome_index(hand)] += Fraction(1, len(orders))
    return summarise(joint)
