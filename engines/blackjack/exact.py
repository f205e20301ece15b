"""The exact calculator: dealer outcome probabilities as fractions, by recursion over the dealer's hand."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache

from .rules import BUST, MAX_DRAWS, NATURAL, PEEK, SOFT17, UPCARD_VALUE, UPCARDS, parse_choice, parse_decks, shoe_counts


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def exact_outcomes(shoe: Sequence[int], upcard: int, soft17: str, infinite: bool = False) -> list[Fraction]:
    """Exact outcome probabilities (in OUTCOMES order) for one upcard value and shoe.

    ``shoe[v]`` is the number of cards of value v (1..10) *before* the upcard is
    removed; with ``infinite`` they are draw weights, never depleted.

    Integer weights instead of fractions at every step: from a state with R
    cards left and at most L draws to come, the weight vector G satisfies
    P(outcome) = G / R(R-1)...(R-L+1) (or / R**L for an infinite shoe), so
    G(state) = sum over card values v of count(v) * G(state + v) and a finished
    hand has G = that denominator on its outcome.  Only one division remains,
    at the root.  The state is the hand's multiset of values (it fixes the rest
    of the shoe), so different orders of the same cards share one memo entry.
    """
    shoe = tuple(int(c) for c in shoe)
    if len(shoe) != 11 or shoe[0] != 0 or min(shoe) < 0:
        raise ValueError("shoe must list counts for values 1..10 at indices 1..10 (index 0 = 0)")
    if not infinite and shoe[upcard] < 1:
        raise ValueError(f"upcard {upcard} is not in the shoe")
    total_cards = sum(shoe)
    left_at_start = total_cards if infinite else total_cards - 1
    depth_bound = MAX_DRAWS if infinite else min(MAX_DRAWS, left_at_start)
    # denom[d]: the denominator once d cards are drawn after the upcard, with at most
    # L - d draws to come: R_d**(L-d) for an infinite shoe, R_d (R_d - 1)...(R_d - (L-d) + 1) otherwise.
    if infinite:
        denom = [total_cards ** (depth_bound - d) for d in range(depth_bound + 1)]
    else:
        denom = [_falling(left_at_start - d, depth_bound - d) for d in range(depth_bound + 1)]
    hit17 = soft17 == "hit"
    memo: dict[tuple[int, ...], tuple[int, ...]] = {}

    def weights(hand: tuple[int, ...], hard: int, ace: bool, drawn: int) -> tuple[int, ...]:
        soft = ace and hard <= 11
        total = hard + 10 if soft else hard
        if hard > 21 or total > 17 or (total == 17 and not (soft and hit17)):
            out = [0] * 7
            out[BUST if hard > 21 else NATURAL if (total == 21 and drawn == 1) else total - 16] = denom[drawn]
            return tuple(out)
        got = memo.get(hand)
        if got is not None:
            return got
        if drawn >= depth_bound:
            raise ValueError("the shoe ran out before the dealer finished; use a larger shoe")
        acc = [0] * 7
        for v in range(1, 11):
            n = shoe[v] if infinite else shoe[v] - hand[v]
            if n <= 0:
                continue
            child = list(hand)
            child[v] += 1
            sub = weights(tuple(child), hard + v, ace or v == 1, drawn + 1)
            for i in range(7):
                if sub[i]:
                    acc[i] += n * sub[i]
        got = tuple(acc)
        memo[hand] = got
        return got

    start = [0] * 11
    start[upcard] = 1
    g = weights(tuple(start), upcard, upcard == 1, 0)
    return [Fraction(x, denom[0]) for x in g]


def condition_on_peek(probs: Sequence[Fraction]) -> list[Fraction]:
    """Outcome probabilities given that the dealer (having peeked) holds no natural."""
    p_natural = probs[NATURAL]
    if p_natural == 0:
        return list(probs)
    if p_natural == 1:  # a shoe of only aces and tens behind an ace or a ten: no deal survives the peek
        raise ValueError("the dealer holds a natural in every deal of this shoe: no deal is left after the peek")
    keep = 1 - p_natural
    return [Fraction(0) if i == NATURAL else p / keep for i, p in enumerate(probs)]


@cache
def _table_all_hands(decks: str, soft17: str) -> tuple[tuple[Fraction, ...], ...]:
    shoe = shoe_counts(decks)
    return tuple(tuple(exact_outcomes(shoe, UPCARD_VALUE[u], soft17, infinite=decks == "inf")) for u in UPCARDS)


def exact_table(decks: object = 2, soft17: str = "stand", peek: object = "no") -> dict[str, list[Fraction]]:
    """Exact outcome probabilities for every upcard: upcard -> [P(bust), P(17)..P(21), P(natural)].

    Memoised per (decks, soft17): the peek variant is derived by conditioning.
    """
    decks = parse_decks(decks)
    soft17 = parse_choice("soft17", soft17, SOFT17)
    peek = parse_choice("peek", peek, PEEK)
    rows = _table_all_hands(decks, soft17)
    return {u: (condition_on_peek(r) if peek == "yes" else list(r)) for u, r in zip(UPCARDS, rows)}


def clear_exact_cache() -> None:
    """Forget memoised tables (the bench times cold computations)."""
    _table_all_hands.cache_clear()
