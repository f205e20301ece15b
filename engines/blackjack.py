"""Blackjack dealer outcomes: exact probabilities over the shoe and a seeded simulator.

Rules (the single place they are stated; every function below follows them)
--------------------------------------------------------------------------
* The shoe holds ``decks`` standard 52-card decks (1..8), or ``inf``: an
  infinite shoe where every draw has the composition of one fresh deck
  (each of A, 2..9 with probability 1/13, a ten-valued card 4/13).
* Tens, jacks, queens and kings are distinct ranks in the shoe but all count
  10; 2..9 count their pip value; an ace counts 11 unless that would bust the
  hand, and several aces are valued together: the hand's hard total counts
  every ace as 1, and at most one ace is raised to 11 when that keeps the
  total at 21 or less (A, A, 10 is 12, not 22).  Such a hand is *soft*.
* The dealer's upcard is given; it is removed from the shoe before the hole
  card is drawn.  The dealer then draws until the total is 17 or more;
  ``soft17 = "stand"`` stands on every 17, ``soft17 = "hit"`` draws to a soft 17.
* Outcomes: ``bust`` (hard total over 21), ``17`` .. ``21``, and ``natural``
  (21 with the first two cards, i.e. upcard and hole card).
* ``peek = "no"``: probabilities over all hands (the seed's table).
  ``peek = "yes"``: the dealer has checked for a natural (ace or ten upcard),
  so the probabilities are conditioned on the dealer not holding one.
  For other upcards the two tables are identical.

Methods
-------
* :func:`exact_table` is exact: a recursion over the dealer's hand (a multiset
  of card values, which fixes the remaining shoe) with integer weights,
  memoised on that multiset, giving :class:`fractions.Fraction` results.
* :func:`simulate` deals hands with numba kernels in two shoe modes:
  ``fresh`` (a fresh shoe for every hand; the exact table's probability space)
  and ``continuous`` (deal through one shuffled shoe until a penetration limit,
  then reshuffle, as a casino does).  Randomness comes from the counter-based
  splitmix64 streams of :mod:`engines.rng` keyed by (shard seed, index), so
  counts do not depend on the number of threads.
* :func:`simulate_py` is a plain-Python reference of the same algorithm (same
  seeds, same counts) and :func:`simulate_numpy` an independent vectorised one.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Callable, Iterable, Sequence

import numpy as np
import pyarrow as pa
from numba import njit, prange

from .errors import CardlabError
from .rng import (bounded, bounded_py, seed_derivation, shard_seed, shuffle_inplace, shuffle_py, stream_start,
                  stream_start_py)
from .shards import split_range

GAME = "blackjack"
WORK_UNIT = "hands"

# --------------------------------------------------------------------------- rules

DECKS = ("1", "2", "3", "4", "5", "6", "7", "8", "inf")
SOFT17 = ("stand", "hit")
PEEK = ("no", "yes")
SHOES = ("fresh", "continuous")

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
RANK_VALUE = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in RANKS}

# Table rows: one per upcard *value* (a J upcard gives exactly the ten's row, by symmetry),
# in the seed's order 2..10 then ace.  Value 1 is the ace.
UPCARDS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "A")
UPCARD_VALUE = {u: (1 if u == "A" else int(u)) for u in UPCARDS}
OUTCOMES = ("bust", "17", "18", "19", "20", "21", "natural")
BUST, NATURAL = 0, 6  # outcome indices; 17..21 are total - 16

# Copies of each card value (index 1..10) in one deck; index 0 unused.
ONE_DECK = (0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 16)

# At most this many cards after the upcard: each adds >= 1 to the hard total and the
# dealer stands by hard 17 at the latest (upcard ace: 1 + 16 aces would be 17).
MAX_DRAWS = 16


def parse_decks(decks: object) -> str:
    """Normalise a deck count (1..8 or 'inf') to its canonical string, or raise a clear error."""
    text = str(decks).strip().lower()
    if text in ("inf", "infinite", "infinity"):
        return "inf"
    if text.isdigit() and str(int(text)) in DECKS:
        return str(int(text))
    raise CardlabError(f"decks: {decks!r} is not allowed; allowed values: 1..8 or inf")


def parse_choice(field: str, value: object, allowed: Sequence[str]) -> str:
    """A rule value from config or the command line; YAML turns yes/no into booleans, so map those back."""
    if isinstance(value, bool) and tuple(allowed) == PEEK:
        value = "yes" if value else "no"
    text = str(value).strip().lower()
    if text not in allowed:
        raise CardlabError(f"{field}: {value!r} is not allowed; allowed values: {', '.join(allowed)}")
    return text


def shoe_counts(decks: str) -> tuple[int, ...]:
    """Copies of each card value (index 1..10) in the shoe; for 'inf', one deck's weights."""
    n = 1 if decks == "inf" else int(decks)
    return tuple(c * n for c in ONE_DECK)


def hand_value(values: Iterable[int]) -> tuple[int, bool]:
    """(total, soft) of a hand of card values (ace = 1): all aces are valued together.

    Counting every ace as 1 gives the hard total; one ace (never two: 22 > 21)
    is raised to 11 when that does not bust.  This is what the seed's buggy
    scorers got wrong by valuing aces one at a time.
    """
    hard, ace = 0, False
    for v in values:
        hard += v
        ace = ace or v == 1
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


def dealer_stands(total: int, soft: bool, soft17: str) -> bool:
    """Whether the dealer stops drawing at this total."""
    if total > 17:
        return True
    if total == 17:
        return not (soft and soft17 == "hit")
    return False


def outcome_index(values: Sequence[int]) -> int:
    """Index into OUTCOMES of a finished dealer hand (upcard first)."""
    total, _ = hand_value(values)
    if total > 21:
        return BUST
    if total == 21 and len(values) == 2:
        return NATURAL
    return total - 16


def play_hand(upcard: int, draw: Callable[[], int], soft17: str) -> list[int]:
    """The dealer's finished hand: the upcard, then cards from ``draw()`` until the dealer stands."""
    hand = [upcard]
    while True:
        total, soft = hand_value(hand)
        if total > 21 or dealer_stands(total, soft, soft17):
            return hand
        hand.append(draw())


# --------------------------------------------------------------------------- exact calculator

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
    keep = 1 - p_natural
    return [Fraction(0) if i == NATURAL else p / keep for i, p in enumerate(probs)]


@lru_cache(maxsize=None)
def _table_all_hands(decks: str, soft17: str) -> tuple[tuple[Fraction, ...], ...]:
    shoe = shoe_counts(decks)
    return tuple(tuple(exact_outcomes(shoe, UPCARD_VALUE[u], soft17, infinite=decks == "inf"))
                 for u in UPCARDS)


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


# --------------------------------------------------------------------------- numba simulator

@njit(cache=True, inline="always")
def _outcome_of(hard: np.int64, ace: bool, ncards: np.int64) -> np.int64:
    if hard > 21:
        return 0
    total = hard + 10 if (ace and hard <= 11) else hard
    if total == 21 and ncards == 2:
        return 6
    return total - 16


@njit(cache=True, inline="always")
def _keeps_drawing(hard: np.int64, ace: bool, hit17: bool) -> bool:
    if hard > 21:
        return False
    soft = ace and hard <= 11
    total = hard + 10 if soft else hard
    if total < 17:
        return True
    return total == 17 and soft and hit17


@njit(cache=True, parallel=True)
def deal_fresh(seed: np.uint64, stream_base: np.int64, first: np.int64, n_hands: np.int64,
               upcard: np.int64, shoe: np.ndarray, infinite: bool, hit17: bool,
               block: np.int64) -> np.ndarray:
    """Outcome counts of hands [first, first + n_hands) with a fresh shoe each.

    ``shoe`` holds the card values left after removing the upcard (for an
    infinite shoe: one deck, drawn with replacement).  Hand i uses stream
    (seed, stream_base + i) and draws by partial Fisher-Yates from the tail of
    the array; the swaps are undone afterwards, so each hand is a function of
    its stream alone and replays the same in any block or thread.
    """
    nblocks = (n_hands + block - 1) // block
    out = np.zeros((nblocks, 7), np.int64)
    for b in prange(nblocks):
        cards = shoe.copy()
        swaps = np.empty(MAX_DRAWS, np.int64)
        size = cards.shape[0]
        lo = b * block
        hi = min(lo + block, n_hands)
        for h in range(lo, hi):
            state = stream_start(seed, stream_base + first + h)
            hard = upcard
            ace = upcard == 1
            ncards = 1
            left = size
            while _keeps_drawing(hard, ace, hit17):
                state, j = bounded(state, left)
                v = cards[j]
                if not infinite:
                    left -= 1
                    cards[j] = cards[left]
                    cards[left] = v
                    swaps[ncards - 1] = j
                hard += v
                ace = ace or v == 1
                ncards += 1
            if not infinite:  # undo in reverse order: the array is back to the shoe's order
                for k in range(ncards - 2, -1, -1):
                    j = swaps[k]
                    top = size - 1 - k
                    t = cards[j]
                    cards[j] = cards[top]
                    cards[top] = t
            out[b, _outcome_of(hard, ace, ncards)] += 1
    return out.sum(axis=0)


@njit(cache=True, parallel=True)
def deal_continuous(seed: np.uint64, stream_base: np.int64, first_block: np.int64, n_hands: np.int64,
                    upcard: np.int64, shoe: np.ndarray, hit17: bool, cut: np.int64,
                    block: np.int64) -> np.ndarray:
    """Outcome counts of ``n_hands`` hands dealt in sequence through shuffled shoes.

    Hands are cut into blocks of ``block``; each block starts a new shoe, and
    its k-th shuffle uses stream (seed, stream_base + (block << 24) + k).  A
    shoe is reshuffled before a hand once ``cut`` cards are dealt, or when
    fewer than MAX_DRAWS + 1 remain (so a hand never runs out of cards).
    """
    nblocks = (n_hands + block - 1) // block
    out = np.zeros((nblocks, 7), np.int64)
    for b in prange(nblocks):
        cards = shoe.copy()
        size = cards.shape[0]
        base = stream_base + ((first_block + b) << 24)
        shuffles = 0
        pos = size  # forces a shuffle before the first hand
        lo = b * block
        hi = min(lo + block, n_hands)
        for h in range(lo, hi):
            if pos >= cut or size - pos <= MAX_DRAWS:
                cards[:] = shoe  # every shoe starts from the same order, so it replays alone
                shuffle_inplace(stream_start(seed, base + shuffles), cards)
                shuffles += 1
                pos = 0
            hard = upcard
            ace = upcard == 1
            ncards = 1
            while _keeps_drawing(hard, ace, hit17):
                v = cards[pos]
                pos += 1
                hard += v
                ace = ace or v == 1
                ncards += 1
            out[b, _outcome_of(hard, ace, ncards)] += 1
    return out.sum(axis=0)


# Stream indices: the upcard value sits in the top bits so every upcard has its own streams.
def _stream_base(upcard: int) -> int:
    return upcard << 56


def shoe_after_upcard(decks: str, upcard: int) -> np.ndarray:
    """The card values left in a fresh shoe once the upcard is out (ranks T/J/Q/K all give 10),
    in a fixed order: deck by deck, suit by suit, rank by rank."""
    n = 1 if decks == "inf" else int(decks)
    values = [RANK_VALUE[r] for _ in range(n) for _suit in range(4) for r in RANKS]
    if decks != "inf":
        values.remove(upcard)  # first card of that value; which copy is irrelevant
    return np.array(values, dtype=np.int64)


def penetration_cut(decks: str, penetration: float) -> int:
    """Cards dealt from a shoe (of decks*52 less the upcard) before it is reshuffled."""
    size = 52 * int(decks) - 1
    return max(1, min(size, int(round(penetration * size))))


BLOCK_FRESH = 1 << 16
BLOCK_CONTINUOUS = 1 << 16


def simulate(seed: int, upcard: int, decks: object, soft17: str, shoe_mode: str, hands: int,
             first: int = 0, penetration: float = 0.75, block: int | None = None) -> np.ndarray:
    """Outcome counts (OUTCOMES order) for ``hands`` dealer hands with one upcard value.

    ``first`` is the index of the first hand (fresh) or must be a multiple of
    the block size (continuous), so that shards of one experiment use disjoint streams.
    ``block`` (hands per parallel task) changes nothing for fresh shoes; for
    continuous shoes it is where a new shoe starts, so it is part of the experiment.
    """
    decks = parse_decks(decks)
    hit17 = parse_choice("soft17", soft17, SOFT17) == "hit"
    shoe_mode = parse_choice("shoe", shoe_mode, SHOES)
    shoe = shoe_after_upcard(decks, upcard)
    base = _stream_base(upcard)
    if shoe_mode == "fresh":
        return deal_fresh(np.uint64(seed), np.int64(base), np.int64(first), np.int64(hands),
                          np.int64(upcard), shoe, decks == "inf", hit17, np.int64(block or BLOCK_FRESH))
    if decks == "inf":
        raise CardlabError("shoe: continuous dealing needs a finite shoe (decks 1..8), not inf")
    block = block or BLOCK_CONTINUOUS
    if first % block:
        raise ValueError("continuous shards must start on a block boundary")
    return deal_continuous(np.uint64(seed), np.int64(base), np.int64(first // block),
                           np.int64(hands), np.int64(upcard), shoe, hit17,
                           np.int64(penetration_cut(decks, penetration)), np.int64(block))


# --------------------------------------------------------------------------- plain references

def simulate_py(seed: int, upcard: int, decks: object, soft17: str, shoe_mode: str, hands: int,
                first: int = 0, penetration: float = 0.75, block: int | None = None) -> list[int]:
    """Plain-Python reference of :func:`simulate`: the same streams and draws, so the same counts.

    Written from the rules (``play_hand``/``outcome_index``), not from the kernel's
    incremental totals; a fresh hand draws from a list without replacement.
    """
    decks = parse_decks(decks)
    soft17 = parse_choice("soft17", soft17, SOFT17)
    shoe = [int(v) for v in shoe_after_upcard(decks, upcard)]
    base = _stream_base(upcard)
    counts = [0] * 7
    if shoe_mode == "fresh":
        for h in range(first, first + hands):
            state = stream_start_py(seed, base + h)
            cards = list(shoe)

            def draw() -> int:
                nonlocal state
                state, j = bounded_py(state, len(cards))
                if decks == "inf":
                    return cards[j]
                cards[j], cards[-1] = cards[-1], cards[j]
                return cards.pop()

            counts[outcome_index(play_hand(upcard, draw, soft17))] += 1
        return counts
    block = BLOCK_CONTINUOUS if block is None else block
    cut = penetration_cut(decks, penetration)
    for b0 in range(0, hands, block):
        b = first // block + b0 // block
        stream = base + (b << 24)
        shuffles, cards, pos = 0, [], len(shoe)
        for _ in range(b0, min(b0 + block, hands)):
            if pos >= cut or len(shoe) - pos <= MAX_DRAWS:
                cards = shuffle_py(seed, stream + shuffles, shoe)
                shuffles += 1
                pos = 0

            def draw() -> int:
                nonlocal pos
                pos += 1
                return cards[pos - 1]

            counts[outcome_index(play_hand(upcard, draw, soft17))] += 1
    return counts


def simulate_numpy(rng: np.random.Generator, upcard: int, decks: object, soft17: str, hands: int) -> np.ndarray:
    """An independent vectorised fresh-shoe simulator (numpy Generator): the bench's baseline.

    All hands advance one card at a time; a hand draws uniform positions in the
    shoe and redraws a position it already holds, which is sampling without
    replacement.
    """
    decks = parse_decks(decks)
    hit17 = parse_choice("soft17", soft17, SOFT17) == "hit"
    shoe = shoe_after_upcard(decks, upcard)
    size = shoe.shape[0]
    hard = np.full(hands, upcard, np.int64)
    ace = np.full(hands, upcard == 1)
    ncards = np.ones(hands, np.int64)
    held = np.full((hands, MAX_DRAWS), -1, np.int64)
    active = np.arange(hands)
    for step in range(MAX_DRAWS):
        soft = ace[active] & (hard[active] <= 11)
        total = np.where(soft, hard[active] + 10, hard[active])
        go = (hard[active] <= 21) & ((total < 17) | ((total == 17) & soft & hit17))
        active = active[go]
        if active.size == 0:
            break
        pos = rng.integers(0, size, active.size)
        if decks != "inf":
            while True:
                clash = (held[active, :step] == pos[:, None]).any(axis=1)
                if not clash.any():
                    break
                pos[clash] = rng.integers(0, size, int(clash.sum()))
            held[active, step] = pos
        v = shoe[pos]
        hard[active] += v
        ace[active] |= v == 1
        ncards[active] += 1
    total = np.where(ace & (hard <= 11), hard + 10, hard)
    out = np.where(hard > 21, BUST, np.where((total == 21) & (ncards == 2), NATURAL, total - 16))
    return np.bincount(out, minlength=7)


# --------------------------------------------------------------------------- engine interface

TABLES = {
    "blackjack_exact_probs": pa.schema([
        ("decks", pa.string()),
        ("soft17", pa.string()),
        ("peek", pa.string()),
        ("upcard", pa.string()),
        ("upcard_order", pa.int32()),
        ("outcome", pa.string()),
        ("outcome_order", pa.int32()),
        ("probability", pa.float64()),
        ("exact", pa.string()),
    ]),
    "blackjack_sim_counts": pa.schema([
        ("experiment", pa.string()),
        ("shard", pa.int32()),
        ("shoe", pa.string()),
        ("decks", pa.string()),
        ("soft17", pa.string()),
        ("peek", pa.string()),
        ("penetration", pa.float64()),
        ("upcard", pa.string()),
        ("upcard_order", pa.int32()),
        ("outcome", pa.string()),
        ("outcome_order", pa.int32()),
        ("hands", pa.int64()),
        ("count", pa.int64()),
    ]),
}

EXACT_EXPERIMENT = "exact"


def exact_variants(section: dict) -> list[tuple[str, str, str]]:
    """(decks, soft17, peek) of every exact variant to compute: all combinations of the
    configured values (absent: all 36), plus each simulation's own variant, so that
    every simulated table has an exact one to be compared with."""
    spec = section.get("exact") or {}
    decks = [parse_decks(d) for d in spec.get("decks", DECKS)]
    soft17 = [parse_choice("soft17", s, SOFT17) for s in spec.get("soft17", SOFT17)]
    peek = [parse_choice("peek", p, PEEK) for p in spec.get("peek", PEEK)]
    variants = set(product(decks, soft17, peek))
    for exp in section.get("experiments", []) or []:
        variants.add((parse_decks(exp["decks"]), parse_choice("soft17", exp.get("soft17", "stand"), SOFT17),
                      parse_choice("peek", exp.get("peek", "no"), PEEK)))
    return sorted(variants, key=lambda v: (DECKS.index(v[0]), SOFT17.index(v[1]), PEEK.index(v[2])))


def expected_rows(spec: dict, table: str) -> int:
    """Rows per table of a shard: one per upcard and outcome (and exact variant); the other table is empty."""
    per_table = len(UPCARDS) * len(OUTCOMES)
    exact = spec.get("method") == "exact"
    if table == "blackjack_exact_probs":
        return per_table * len(spec.get("variants", [])) if exact else 0
    return 0 if exact else per_table


def sim_variant(decks: str, soft17: str, peek: str) -> str:
    return f"decks={decks}+soft17={soft17}+peek={peek}"


def plan(section: dict) -> list[dict]:
    """One shard for every exact variant together (well under a second), then each
    simulation experiment cut into ``shards`` ranges of hands per upcard."""
    specs: list[dict] = []
    variants = exact_variants(section)
    if variants:
        specs.append({"experiment": EXACT_EXPERIMENT, "variant": "all", "shard": 0,
                      "method": "exact", "variants": [list(v) for v in variants],
                      "work": len(variants) * len(UPCARDS), "work_unit": "upcard tables"})
    for i, exp in enumerate(section.get("experiments", []) or []):
        name, where = exp["name"], f"blackjack.experiments[{i}]"  # paths as the config checks write them
        decks = parse_decks(exp["decks"])
        soft17 = parse_choice(f"{where}.soft17", exp.get("soft17", "stand"), SOFT17)
        peek = parse_choice(f"{where}.peek", exp.get("peek", "no"), PEEK)
        shoe = parse_choice(f"{where}.shoe", exp.get("shoe", "fresh"), SHOES)
        if shoe == "continuous" and decks == "inf":
            raise CardlabError(f"{where}: shoe 'continuous' needs decks 1..8, not inf")
        if name == EXACT_EXPERIMENT:
            raise CardlabError(f"{where}.name: the name {name!r} is reserved for the exact tables")
        hands, shards = int(exp["hands_per_upcard"]), int(exp.get("shards", 1))
        variant = sim_variant(decks, soft17, peek)
        root = int(exp["seed"])
        # Continuous shards start on block boundaries: a block is a run of shoes dealt in
        # sequence, so it must not be cut in two by a shard boundary.
        unit = BLOCK_CONTINUOUS if shoe == "continuous" else 1
        blocks = split_range(-(-hands // unit), shards)
        for shard, (b0, b1) in enumerate(blocks):
            start, stop = b0 * unit, min(b1 * unit, hands)
            specs.append({
                "experiment": name, "variant": variant, "shard": shard, "method": "sim",
                "shoe": shoe, "decks": decks, "soft17": soft17, "peek": peek,
                "penetration": float(exp.get("penetration", 0.75)),
                "range": [start, max(start, stop)],
                "work": max(0, stop - start) * len(UPCARDS),
                "root_seed": root,
                "seed": shard_seed(root, GAME, name, variant, shard),
                "seed_derivation": seed_derivation(root, GAME, name, variant, shard),
            })
    return specs


def _exact_columns(variants: Iterable[Sequence[str]], progress) -> dict[str, list]:
    cols: dict[str, list] = {name: [] for name in TABLES["blackjack_exact_probs"].names}
    for decks, soft17, peek in variants:
        table = exact_table(decks, soft17, peek)
        for ui, upcard in enumerate(UPCARDS):
            for oi, (outcome, p) in enumerate(zip(OUTCOMES, table[upcard])):
                for k, v in (("decks", decks), ("soft17", soft17), ("peek", peek), ("upcard", upcard),
                             ("upcard_order", ui), ("outcome", outcome), ("outcome_order", oi),
                             ("probability", float(p)), ("exact", f"{p.numerator}/{p.denominator}")):
                    cols[k].append(v)
            progress.update(1)
    return cols


def _sim_columns(spec: dict, progress) -> dict[str, list]:
    cols: dict[str, list] = {name: [] for name in TABLES["blackjack_sim_counts"].names}
    start, stop = spec["range"]
    for ui, upcard in enumerate(UPCARDS):
        counts = simulate(int(spec["seed"]), UPCARD_VALUE[upcard], spec["decks"], spec["soft17"],
                          spec["shoe"], stop - start, first=start, penetration=spec["penetration"])
        for oi, outcome in enumerate(OUTCOMES):
            for k, v in (("experiment", spec["experiment"]), ("shard", int(spec["shard"])),
                         ("shoe", spec["shoe"]), ("decks", spec["decks"]), ("soft17", spec["soft17"]),
                         ("peek", spec["peek"]), ("penetration", float(spec["penetration"])),
                         ("upcard", upcard), ("upcard_order", ui), ("outcome", outcome),
                         ("outcome_order", oi), ("hands", stop - start), ("count", int(counts[oi]))):
                cols[k].append(v)
        progress.update(stop - start)
    return cols


def run_shard(spec: dict, progress, inputs: list[str]) -> dict[str, dict]:
    """Exact shard: every configured variant's table; sim shard: counts per upcard and outcome.

    Both tables are written by every shard (the interface gives each shard the
    same outputs); the one that does not apply is empty.
    """
    empty = {table: {name: [] for name in schema.names} for table, schema in TABLES.items()}
    if spec["method"] == "exact":
        return {**empty, "blackjack_exact_probs": _exact_columns(spec["variants"], progress)}
    return {**empty, "blackjack_sim_counts": _sim_columns(spec, progress)}
