"""The cut card's effect at every depth at once: one forward pass over the shoe's compositions.

The model is :mod:`.cutcard`'s.  A round starts from a composition (the cards left) only if every
earlier round of the shoe started with fewer cards dealt than the cut, and cards dealt only grow:
so the probability that a round starts from composition c, in a shoe that is never cut, is the
same for every cut deeper than the cards c has dealt.  With ``start(d)``, the expected number of
rounds that start with d cards dealt, and ``ends(d, o)``, those of them that end in outcome o, a
cut of C cards deals ``sum_{d < C} start(d)`` rounds a shoe on average, and the share of rounds
with outcome o (renewal-reward, as :func:`.cutcard_exact.exact_rounds`'s ``average``) is
``sum_{d < C} ends(d, o) / sum_{d < C} start(d)``: every cut from one pass.

The pass walks the compositions in order of cards dealt, one *slice* (compositions with d cards
dealt) at a time, carrying the probability of every (composition, round in progress) pair: a round
in progress is the players' cards drawn so far, then the dealer's (cards, hard total, ace).  Each
card drawn moves mass to the next slice; a finished round adds its mass to its outcome at the
round's start (cards dealt minus the round's cards) and to a new round's start.  With
``layered=True`` the rounds are counted by their number in the shoe too (one pass a round number):
the law of the 14th, 15th, ... round for every cut.

Arithmetic is float64 over sums of positive terms, so no cancellation: a sum of m terms carries a
relative error of at most (m - 1) * 2**-53 beyond its terms' own.  A mass crosses at most one slice
a card (a product, a division and a sum of at most 10 * states terms each), and the figures sum
every composition's, so :func:`relative_error` bounds a figure's relative error, to first order, by
2 * 2**-53 * (cards * (10 * states + 2) + compositions) (one deck: about 7e-9, a ratio of two such
sums); what occurs is far smaller: tests compare the pass with the exact fractions of
:mod:`.cutcard_exact` at every cut they reach (agreement to about 1e-13).
One deck has 5^9 * 17 = 33,203,125 compositions
(several GB of slices at its widest); two decks, 9^9 * 33 = 1.28e10, are beyond one machine's memory
in this form (docs/blackjack.md, "The cut card at every depth").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..core.errors import CardlabError
from .cutcard import check_cut, max_dealer_cards
from .rules import BUST, NATURAL, OUTCOMES, SOFT17, dealer_stands, parse_choice

N_OUT = len(OUTCOMES)
DOUBLE_EPS = 2.0**-53
# the widest composition space the pass takes (one deck: 33,203,125; its slices about 3 GB at r = 0)
MAX_COMPOSITIONS = 40_000_000


def relative_error(shoe: Sequence[int], states: int) -> float:
    """A first-order bound on the relative error of any ratio the pass gives on this shoe (docstring)."""
    compositions = int(np.prod([c + 1 for c in shoe]))
    return 2 * DOUBLE_EPS * (sum(shoe) * (10 * states + 2) + compositions)


@dataclass(frozen=True)
class RoundStates:
    """The states of a round in progress and how a card moves them.

    ``step[h, v]``: the state after drawing value v in state h, or ``-1 - o`` when the round ends in
    outcome o; ``cards[h]``: the round's cards so far in state h (state 0: a round about to start)."""

    step: np.ndarray
    cards: np.ndarray


def round_states(shoe: Sequence[int], players: int, soft17: str) -> RoundStates:
    """Every state a round can be in on this shoe: k < players players' cards drawn, then the dealer's
    (cards n, hard total, ace held), pruned to hands the shoe can hold."""
    hit17 = parse_choice("soft17", soft17, SOFT17) == "hit"
    values = sorted(v for v in range(1, 11) for _ in range(shoe[v]))
    fewest = np.cumsum([0, *values])  # the least hard total of n cards of this shoe
    index: dict[tuple, int] = {}
    order: list[tuple] = []

    def state(key: tuple) -> int:
        if key not in index:
            index[key] = len(order)
            order.append(key)
        return index[key]

    state(("players", 0) if players else ("dealer", 0, 0, False))
    steps: list[list[int]] = []
    at = 0
    while at < len(order):
        key = order[at]
        row = [0] * 11
        for v in range(1, 11):
            if key[0] == "players":
                k = key[1] + 1
                row[v] = state(("players", k) if k < players else ("dealer", 0, 0, False))
                continue
            _, n, hard, ace = key
            n, hard, ace = n + 1, hard + v, ace or v == 1
            total = hard + 10 if ace and hard + 10 <= 21 else hard
            if n >= 2 and (total > 21 or dealer_stands(total, ace and total != hard, "hit" if hit17 else "stand")):
                row[v] = -1 - (BUST if total > 21 else NATURAL if n == 2 and total == 21 else total - 16)
            elif n < len(fewest) and fewest[n] <= hard:
                row[v] = state(("dealer", n, hard, ace))
            else:
                row[v] = -1 - BUST  # no shoe of these cards holds this hand: never drawn (mass 0)
        steps.append(row)
        at += 1
    cards = [k[1] if k[0] == "players" else players + k[1] for k in order]
    return RoundStates(np.array(steps, np.int64), np.array(cards, np.int64))


@dataclass(frozen=True)
class Compositions:
    """The shoe's compositions (cards dealt of each value, a mixed-radix key) sorted by cards dealt."""

    stride: np.ndarray  # key of one card of value v (index 0..10)
    order: np.ndarray  # keys by cards dealt
    offsets: np.ndarray  # slice d is order[offsets[d]:offsets[d + 1]]
    position: np.ndarray  # a key's place in its slice


def compositions(shoe: Sequence[int]) -> Compositions:
    radix = np.array([c + 1 for c in shoe], np.int64)
    size = int(np.prod(radix))
    if size > MAX_COMPOSITIONS:
        raise CardlabError(
            f"cutcard: {size:,} compositions of a shoe of {sum(shoe)} cards; the pass holds at most "
            f"{MAX_COMPOSITIONS:,} (one deck: 33,203,125)"
        )
    stride = np.concatenate(([1], np.cumprod(radix[:-1]))).astype(np.int64)
    keys = np.arange(size, dtype=np.int64)
    dealt = np.zeros(size, np.int64)
    for v in range(11):
        dealt += (keys // stride[v]) % radix[v]
    order = np.argsort(dealt, kind="stable").astype(np.int64)
    counts = np.bincount(dealt, minlength=sum(shoe) + 1)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    position = np.empty(size, np.int64)
    position[order] = np.arange(size, dtype=np.int64) - offsets[dealt[order]]
    return Compositions(stride, order, offsets, position)


@njit(cache=True)
def _forward(shoe, stride, order, offsets, position, step, cards, last_start, layered, start, out_start, out_ends):
    """The pass (module docstring): out_start[r, d] and out_ends[r, d, o] from the round starts ``start``
    (the full shoe's key 0 holds 1); ``layered``: one pass a round number r, else every round in r = 0."""
    n_cards = offsets.shape[0] - 2
    n_states = step.shape[0]
    left = np.empty(11, np.int64)
    r = 0
    while True:
        following = np.zeros(start.shape[0]) if layered else start
        anything = False
        width = offsets[1] - offsets[0]
        cur = np.zeros((width, n_states))
        for d in range(n_cards + 1):
            a = offsets[d]
            b = offsets[d + 1]
            nxt = np.zeros((offsets[d + 2] - b if d < n_cards else 0, n_states))
            if d <= last_start:
                for i in range(a, b):
                    m = start[order[i]]
                    if m != 0.0:
                        cur[i - a, 0] += m
                        out_start[r, d] += m
                        anything = True
            for i in range(a, b):
                key = order[i]
                row = cur[i - a]
                total = n_cards - d
                for v in range(11):
                    left[v] = shoe[v] - (key // stride[v]) % (shoe[v] + 1)
                for h in range(n_states):
                    m = row[h]
                    if m == 0.0:
                        continue
                    for v in range(1, 11):
                        if left[v] == 0:
                            continue
                        p = m * left[v] / total
                        nkey = key + stride[v]
                        t = step[h, v]
                        if t >= 0:
                            nxt[position[nkey], t] += p
                        else:
                            out_ends[r, d + 1 - (cards[h] + 1), -1 - t] += p
                            if d + 1 <= last_start:
                                following[nkey] += p
            cur = nxt
        if not layered or not anything:
            break
        start = following
        r += 1
        if r == out_start.shape[0]:
            break
    return r


@dataclass(frozen=True)
class Curve:
    """What the pass found: rounds starting with d cards dealt (``start[r, d]``) and ending in outcome o
    (``ends[r, d, o]``), round number r (one row when not layered), and the cuts it answers."""

    shoe: tuple[int, ...]
    players: int
    soft17: str
    start: np.ndarray
    ends: np.ndarray
    max_cut: int
    relative_error: float  # a bound on any ratio's (module docstring)

    def rounds(self, cut: int) -> float:
        """Expected rounds a shoe at this cut."""
        return float(self.start[:, :cut].sum())

    def average(self, cut: int) -> np.ndarray:
        """The share of rounds of each outcome at this cut (bust, 17..21, natural)."""
        self.check(cut)
        return self.ends[:, :cut].sum(axis=(0, 1)) / self.rounds(cut)

    def per_round(self, cut: int) -> list[tuple[float, np.ndarray]]:
        """Per round number r = 1, 2, ...: P(round r is dealt) and the law of its outcome, at this cut."""
        self.check(cut)
        if self.start.shape[0] == 1 and self.rounds(cut) > self.start[0, 0] + 1e-12:
            raise CardlabError("cutcard: this pass did not count rounds by number (layered=False)")
        out = []
        for r in range(self.start.shape[0]):
            dealt = float(self.start[r, :cut].sum())
            if dealt > 0:
                out.append((dealt, self.ends[r, :cut].sum(axis=0) / dealt))
        return out

    def check(self, cut: int) -> None:
        if not 1 <= cut <= self.max_cut:
            raise CardlabError(f"cutcard: the pass answers cuts 1..{self.max_cut}, not {cut}")


def cut_curve(shoe: Sequence[int], players: int, soft17: str, layered: bool = False, up_to: int | None = None) -> Curve:
    """The pass over every composition of ``shoe`` (counts per value, index 0..10) for every valid cut
    (or every cut up to ``up_to``: rounds start no deeper, so a shallow cut costs less)."""
    shoe = tuple(int(c) for c in shoe)
    size = sum(shoe)
    max_cut = size - players - max_dealer_cards(shoe, soft17) + 1
    if up_to is not None:
        check_cut(shoe, up_to, players, soft17)
        max_cut = up_to
    check_cut(shoe, max_cut, players, soft17)
    states = round_states(shoe, players, soft17)
    comps = compositions(shoe)
    start = np.zeros(len(comps.position))
    start[0] = 1.0
    most_rounds = -(-max_cut // (players + 2)) if layered else 1
    out_start = np.zeros((most_rounds, size + 1))
    out_ends = np.zeros((most_rounds, size + 1, N_OUT))
    _forward(
        np.array(shoe, np.int64), comps.stride, comps.order, comps.offsets, comps.position,
        states.step, states.cards, max_cut - 1, layered, start, out_start, out_ends,
    )  # fmt: skip
    bound = relative_error(shoe, len(states.cards))
    return Curve(shoe, players, parse_choice("soft17", soft17, SOFT17), out_start, out_ends, max_cut, bound)
