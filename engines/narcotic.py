"""Narcotic solitaire: the rules in one place, a numba kernel and a plain-Python reference.

The game (seed ``000_…``): a 52-card deck, card values 1..13 (suits do not
matter).  The deck is an array whose LAST element is dealt first (the seed's
``Array#pop``).  Cards are dealt four at a time onto piles 0..3, left to right.
When the deck is used up the four piles are gathered into the next deck.
A game is *won* when the deck is empty after a pass; it *loops* when a
gathered deck repeats one gathered earlier in the same game (compared exactly,
as the seed does; the initial shuffled deck is not recorded, as in the seed).

Three explicit rule choices:

``matching``
    ``deal`` (the seed): only the four cards of one deal are compared; each
    card goes onto the leftmost pile whose dealt card has its value (the seed's
    ``proper_piles``).  ``cascade``: only pile tops are in play; after a deal,
    while two piles show equal top cards, the leftmost pile whose top equals a
    top further left gives its top card to the leftmost pile showing that
    value, and the uncovered card is in play at once.  In both, four equal
    dealt cards are discarded.
``gather``
    How the piles become the next deck, named by the card dealt first
    afterwards: ``top-right`` (the seed: piles concatenated pile 0 first),
    ``bottom-left`` (that stack turned over), ``top-left`` (pile 3 first),
    ``bottom-right`` (that stack turned over).
``pile_four``
    ``keep`` (the seed) or ``discard``: four equal cards on top of one pile are
    discarded as soon as they form.

Presets: ``seed`` = deal/top-right/keep, ``classic`` = cascade/top-right/keep.

Time model (the seed's): 4 s per deal of four cards, 5 s per gather.  The
seed charges the gather that empties the game (a won game's last, empty
gather) but not the gather whose deck repeats (a loop is detected before the
charge).  ``passes`` counts passes through the deck (gathers, the last one
included); for a loop, the deck gathered after pass ``passes`` equals the deck
gathered after pass ``cycle_start``, and ``cycle_length = passes - cycle_start``.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numba
import numpy as np
import pyarrow as pa
from numba import njit, prange

from .errors import CardlabError
from .rng import seed_derivation, shard_seed, shuffle_inplace, stream_start
from .shards import split_range

GAME = "narcotic"
WORK_UNIT = "games"

CARDS_IN_DECK = 52
VALUES = 13
CARDS_PER_DEAL = 4
SECONDS_PER_DEAL = 4
SECONDS_PER_GATHER = 5

MATCHINGS = ("deal", "cascade")
GATHERS = ("top-right", "bottom-left", "top-left", "bottom-right")
PILE_FOURS = ("keep", "discard")
PRESETS = {
    "seed": ("deal", "top-right", "keep"),
    "classic": ("cascade", "top-right", "keep"),
}

WON, LOOPED = 1, 0


@dataclass(frozen=True)
class Rules:
    matching: str = "deal"
    gather: str = "top-right"
    pile_four: str = "keep"

    def __post_init__(self) -> None:
        for field, value, allowed in (("matching", self.matching, MATCHINGS),
                                      ("gather", self.gather, GATHERS),
                                      ("pile_four", self.pile_four, PILE_FOURS)):
            if value not in allowed:
                raise CardlabError(f"unknown {field} {value!r}; allowed: {', '.join(allowed)}")

    @classmethod
    def preset(cls, name: str) -> "Rules":
        if name not in PRESETS:
            raise CardlabError(f"unknown rules preset {name!r}; allowed: {', '.join(PRESETS)}")
        return cls(*PRESETS[name])

    @property
    def variant(self) -> str:
        """Path-safe name of the rule combination, e.g. ``deal.top-right.keep``."""
        return f"{self.matching}.{self.gather}.{self.pile_four}"

    @property
    def preset_name(self) -> str | None:
        for name, combo in PRESETS.items():
            if combo == (self.matching, self.gather, self.pile_four):
                return name
        return None

    def codes(self) -> tuple[int, int, int]:
        return (MATCHINGS.index(self.matching), GATHERS.index(self.gather),
                PILE_FOURS.index(self.pile_four))


def all_rules() -> list[Rules]:
    """The sixteen rule combinations, in a fixed order."""
    return [Rules(m, g, p) for m, g, p in itertools.product(MATCHINGS, GATHERS, PILE_FOURS)]


def fresh_deck() -> list[int]:
    """The seed's unshuffled deck: ``i % 13 + 1`` for i in 0..51."""
    return [i % VALUES + 1 for i in range(CARDS_IN_DECK)]


# ---------------------------------------------------------------------------
# Plain-Python reference: a direct reading of the seed's Ruby program, plus the
# other rule choices.  Slow and obvious on purpose; tests compare the kernel to it.


def proper_piles(cards: list[int]) -> list[list[int]]:
    """The seed's ``proper_piles``, transliterated (including its j == i self-move)."""
    piles: list[list[int]] = [[] for _ in range(CARDS_PER_DEAL)]
    if all(card == cards[0] for card in cards):
        return piles
    piles = [[card] for card in cards]
    for i in range(len(piles)):
        for j in range(i, len(piles)):
            top_i = piles[i][0] if piles[i] else None
            top_j = piles[j][0] if piles[j] else None
            if top_i == top_j:
                moved = piles[j].pop(0) if piles[j] else None
                if moved is not None:
                    piles[i].append(moved)
    return piles


def _discard_pile_four(pile: list[int]) -> None:
    if len(pile) >= 4 and pile[-1] == pile[-2] == pile[-3] == pile[-4]:
        del pile[-4:]


def _cascade(piles: list[list[int]], pile_four: str) -> None:
    """Move top cards left while two piles show equal tops (cascade matching)."""
    while True:
        tops = [p[-1] if p else None for p in piles]
        move = None
        for j in range(1, 4):
            if tops[j] is None:
                continue
            for i in range(j):
                if tops[i] == tops[j]:
                    move = (i, j)
                    break
            if move:
                break
        if move is None:
            return
        i, j = move
        piles[i].append(piles[j].pop())
        if pile_four == "discard":
            _discard_pile_four(piles[i])


def deal_round(piles: list[list[int]], cards: list[int], rules: Rules) -> None:
    """Place one deal of four cards (cards[0] onto pile 0 ...) under ``rules``."""
    if all(card == cards[0] for card in cards):
        return  # four equal dealt cards are discarded
    if rules.matching == "deal":
        for i, group in enumerate(proper_piles(cards)):
            piles[i] += group
            if group and rules.pile_four == "discard":
                _discard_pile_four(piles[i])
    else:
        for i, card in enumerate(cards):
            piles[i].append(card)
            if rules.pile_four == "discard":
                _discard_pile_four(piles[i])
        _cascade(piles, rules.pile_four)


def gather(piles: list[list[int]], how: str) -> list[int]:
    """The next deck (seed array order: last element dealt first)."""
    if how == "top-right":
        return [c for p in piles for c in p]
    if how == "bottom-left":
        return [c for p in piles for c in p][::-1]
    if how == "top-left":
        return [c for p in reversed(piles) for c in p]
    return [c for p in reversed(piles) for c in p][::-1]


@dataclass(frozen=True)
class Outcome:
    won: bool
    passes: int
    time_s: int
    cycle_start: int  # 0 for won games
    cycle_length: int  # 0 for won games

    def line(self) -> str:
        if self.won:
            return f"won {self.passes} {self.time_s} - -"
        return f"looped {self.passes} {self.time_s} {self.cycle_start} {self.cycle_length}"


def play_reference(deck: list[int], rules: Rules = Rules()) -> Outcome:
    """Play one game by the rules, the way the seed's ``narcotic_iterations`` does."""
    deck = list(deck)
    time_s = 0
    passes = 0
    seen: dict[tuple, int] = {}
    while deck:
        piles: list[list[int]] = [[] for _ in range(CARDS_PER_DEAL)]
        while deck:
            cards = [deck.pop() for _ in range(CARDS_PER_DEAL)]
            deal_round(piles, cards, rules)
            time_s += CARDS_PER_DEAL * 1  # the seed: 1 s to place each card
        deck = gather(piles, rules.gather)
        passes += 1
        key = tuple(deck)
        if key in seen:
            start = seen[key]
            return Outcome(False, passes, time_s, start, passes - start)
        seen[key] = passes
        time_s += SECONDS_PER_GATHER
    return Outcome(True, passes, time_s, 0, 0)


# ---------------------------------------------------------------------------
# numba kernel: the same rules on fixed arrays.  Piles are stored bottom to top;
# decks in the seed's array order.  Past decks are kept in an open-addressing
# hash table keyed by a 64-bit hash and confirmed by an exact comparison.

_HASH_BITS = 11  # 2048 slots: games of up to 1024 passes run without a replay


@njit(cache=True, inline="always")
def _all_equal4(a, b, c, d):
    return a == b and a == c and a == d


@njit(cache=True, inline="always")
def _drop_top_four(piles, heights, i):
    h = heights[i]
    if h >= 4:
        v = piles[i, h - 1]
        if piles[i, h - 2] == v and piles[i, h - 3] == v and piles[i, h - 4] == v:
            heights[i] = h - 4


@njit(cache=True)
def _cascade_kernel(piles, heights, discard):
    while True:
        src = -1
        dst = -1
        for j in range(1, 4):
            hj = heights[j]
            if hj == 0:
                continue
            tj = piles[j, hj - 1]
            for i in range(j):
                hi = heights[i]
                if hi > 0 and piles[i, hi - 1] == tj:
                    src = j
                    dst = i
                    break
            if src >= 0:
                break
        if src < 0:
            return
        hs = heights[src] - 1
        piles[dst, heights[dst]] = piles[src, hs]
        heights[src] = hs
        heights[dst] += 1
        if discard:
            _drop_top_four(piles, heights, dst)


@njit(cache=True)
def _deal_kernel(piles, heights, c0, c1, c2, c3, matching, discard):
    if _all_equal4(c0, c1, c2, c3):
        return
    cards = (c0, c1, c2, c3)
    if matching == 0:
        # Each card joins the pile of the first card of its value in this deal;
        # appending in deal order keeps the seed's order within each pile.
        for j in range(4):
            c = cards[j]
            dest = j
            for f in range(j):
                if cards[f] == c:
                    dest = f
                    break
            piles[dest, heights[dest]] = c
            heights[dest] += 1
        if discard:
            for i in range(4):
                _drop_top_four(piles, heights, i)
    else:
        for i in range(4):
            piles[i, heights[i]] = cards[i]
            heights[i] += 1
            if discard:
                _drop_top_four(piles, heights, i)
        _cascade_kernel(piles, heights, discard)


@njit(cache=True)
def _gather_kernel(piles, heights, how, deck):
    """Write the next deck into ``deck``; returns its length.

    Copies eight bytes at a time (a fixed-length inner loop LLVM turns into
    word moves); the slack after each pile row and after the deck absorbs the
    overshoot, and the caller zeroes the deck's tail before hashing."""
    n = 0
    for k in range(4):
        p = k if how == 0 or how == 1 else 3 - k
        h = heights[p]
        for w in range(0, h, 8):
            for j in range(8):
                deck[n + w + j] = piles[p, w + j]
        n += h
    if how == 1 or how == 3:
        for k in range(n // 2):
            t = deck[k]
            deck[k] = deck[n - 1 - k]
            deck[n - 1 - k] = t
    return n


WORDS = 7  # a deck of at most 52 one-byte cards, padded to 56 bytes = 7 words
BUFFER = 64  # deck and pile rows: 52 cards plus slack for eight-byte copies


@njit(cache=True, inline="always")
def _deck_hash(words, nwords):
    h = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(nwords)
    for k in range(nwords):
        h = (h ^ words[k]) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h | np.uint64(1)  # 0 marks an empty slot


@njit(cache=True)
def _pass_deal_keep(deck, n, piles, heights):
    """One pass with the seed's rules (deal matching, keep), without branches.

    Each card goes onto the pile of the first card of its value in its deal:
    b to pile 0 if b == a else 1; c to 0 if c == a, else 1 if c == b, else 2;
    d likewise.  Four equal cards are written but not kept (k = 0).  Later
    passes deal long runs of equal cards, which made a branchy version
    mispredict; the four pile heights live in one register (16 bits each)."""
    hs = np.uint64(0)
    m16 = np.uint64(0xFFFF)
    pos = n
    while pos > 0:
        a = deck[pos - 1]
        b = deck[pos - 2]
        c = deck[pos - 3]
        d = deck[pos - 4]
        pos -= 4
        eab = np.int64(a == b)
        eac = np.int64(a == c)
        ead = np.int64(a == d)
        ebc = np.int64(b == c)
        ebd = np.int64(b == d)
        ecd = np.int64(c == d)
        k = np.uint64(1 - (eab & eac & ead))
        db = 1 - eab
        dc = (1 - eac) * (2 - ebc)
        dd = (1 - ead) * (1 + (1 - ebd) * (2 - ecd))
        piles[0, np.int64(hs & m16)] = a
        hs += k
        sb = np.uint64(16 * db)
        piles[db, np.int64((hs >> sb) & m16)] = b
        hs += k << sb
        sc = np.uint64(16 * dc)
        piles[dc, np.int64((hs >> sc) & m16)] = c
        hs += k << sc
        sd = np.uint64(16 * dd)
        piles[dd, np.int64((hs >> sd) & m16)] = d
        hs += k << sd
    for p in range(4):
        heights[p] = np.int64((hs >> np.uint64(16 * p)) & m16)


@njit(cache=True)
def play_kernel(deck0, matching, how, discard, table_bits):
    """One game from ``deck0`` (seed order).

    Returns (won, passes, time_s, cycle_start, cycle_length); won is -1 when
    the game outlasts the table of past decks (2**(table_bits-1) passes), and
    the caller replays it with a bigger table.  A fixed table keeps the hot
    loop free of reallocation."""
    deck = np.zeros(BUFFER, dtype=np.uint8)
    n = deck0.shape[0]
    for k in range(n):
        deck[k] = deck0[k]
    words = deck.view(np.uint64)
    piles = np.empty((4, BUFFER), dtype=np.uint8)
    heights = np.zeros(4, dtype=np.int64)
    cap = 1 << table_bits
    mask = cap - 1
    table_hash = np.zeros(cap, dtype=np.uint64)
    table_pass = np.empty(cap, dtype=np.int64)
    # store[p-1] holds the words of the deck gathered after pass p, lens[p-1] its length
    store = np.empty((cap // 2, WORDS), dtype=np.uint64)
    lens = np.empty(cap // 2, dtype=np.int64)
    time_s = 0
    passes = 0
    fast = matching == 0 and discard == 0
    while n > 0:
        if fast:
            _pass_deal_keep(deck, n, piles, heights)
        else:
            heights[:] = 0
            for pos in range(n, 0, -4):
                _deal_kernel(piles, heights, deck[pos - 1], deck[pos - 2], deck[pos - 3],
                             deck[pos - 4], matching, discard)
        time_s += n // CARDS_PER_DEAL * SECONDS_PER_DEAL
        n = _gather_kernel(piles, heights, how, deck)
        passes += 1
        if n == 0:
            time_s += SECONDS_PER_GATHER
            break
        if passes > cap // 2:
            return -1, passes, time_s, 0, 0
        for k in range(n, BUFFER):
            deck[k] = 0
        nwords = (n + 7) // 8
        h = _deck_hash(words, nwords)
        slot = np.int64(h & np.uint64(mask))
        while table_hash[slot] != 0:
            if table_hash[slot] == h:
                q = table_pass[slot]
                if lens[q - 1] == n:
                    same = True
                    for k in range(nwords):
                        if store[q - 1, k] != words[k]:
                            same = False
                            break
                    if same:
                        return 0, passes, time_s, q, passes - q
            slot = (slot + 1) & mask
        table_hash[slot] = h
        table_pass[slot] = passes
        for k in range(nwords):
            store[passes - 1, k] = words[k]
        lens[passes - 1] = n
        time_s += SECONDS_PER_GATHER
    return 1, passes, time_s, 0, 0


@njit(cache=True, parallel=True)
def play_many(decks, matching, how, discard):
    """Play every row of ``decks`` (games in parallel; each game independent)."""
    g = decks.shape[0]
    won = np.empty(g, dtype=np.bool_)
    passes = np.empty(g, dtype=np.int32)
    time_s = np.empty(g, dtype=np.int64)
    cstart = np.empty(g, dtype=np.int32)
    clen = np.empty(g, dtype=np.int32)
    for i in prange(g):
        w, p, t, s, l = play_kernel(decks[i], matching, how, discard, _HASH_BITS)
        bits = _HASH_BITS
        while w < 0:  # rare: more passes than the table holds; replay with a bigger one
            bits += 4
            w, p, t, s, l = play_kernel(decks[i], matching, how, discard, bits)
        won[i] = w == 1
        passes[i] = p
        time_s[i] = t
        cstart[i] = s
        clen[i] = l
    return won, passes, time_s, cstart, clen


@njit(cache=True, parallel=True)
def shuffled_decks(seed, start, stop):
    """Decks of games ``start..stop`` of a shard: game i is a Fisher-Yates shuffle
    of the fresh deck driven by the splitmix64 stream (seed, i), so any game can
    be re-dealt alone and the result does not depend on the thread count."""
    out = np.empty((stop - start, CARDS_IN_DECK), dtype=np.uint8)
    for r in prange(stop - start):
        for k in range(CARDS_IN_DECK):
            out[r, k] = k % VALUES + 1
        state = stream_start(np.uint64(seed), np.int64(start + r))
        shuffle_inplace(state, out[r])
    return out


def deal_deck(seed: int, index: int) -> list[int]:
    """The deck of game ``index`` in a shard with ``seed`` (seed array order)."""
    return [int(c) for c in shuffled_decks(np.uint64(seed), index, index + 1)[0]]


def play(decks: np.ndarray, rules: Rules) -> dict[str, np.ndarray]:
    """Play many decks (rows, seed order) with the kernel."""
    decks = np.ascontiguousarray(decks, dtype=np.uint8)
    m, g, p = rules.codes()
    # Games differ in length a hundredfold: small dynamic chunks keep threads busy.
    with numba.parallel_chunksize(64):
        won, passes, time_s, cstart, clen = play_many(decks, m, g, p)
    return {"won": won, "passes": passes, "time_s": time_s, "cycle_start": cstart, "cycle_length": clen}


def check_deck(values: list[int]) -> str | None:
    """Why ``values`` is not a full Narcotic deck, or None if it is one."""
    if len(values) != CARDS_IN_DECK:
        return f"expected {CARDS_IN_DECK} cards, got {len(values)}"
    bad = [v for v in values if not 1 <= v <= VALUES]
    if bad:
        return f"card value {bad[0]} out of range 1..{VALUES}"
    counts = np.bincount(np.asarray(values), minlength=VALUES + 1)[1:]
    wrong = [v + 1 for v in range(VALUES) if counts[v] != 4]
    if wrong:
        return f"value {wrong[0]} appears {counts[wrong[0] - 1]} times, expected exactly 4 of each value 1..13"
    return None


# ---------------------------------------------------------------------------
# Engine interface for the workflow (see docs/engines.md)

TABLES = {
    "narcotic_games": pa.schema([
        ("experiment", pa.string()),
        ("variant", pa.string()),
        ("matching", pa.string()),
        ("gather", pa.string()),
        ("pile_four", pa.string()),
        ("shard", pa.int32()),
        ("game", pa.int64()),
        ("won", pa.bool_()),
        ("passes", pa.int32()),
        ("time_s", pa.int64()),
        ("cycle_start", pa.int32()),
        ("cycle_length", pa.int32()),
    ]),
}


def experiment_rules(exp: dict) -> list[Rules]:
    """The rule combinations an experiment runs: a preset, ``all`` sixteen, or explicit choices."""
    name = exp.get("rules")
    if name == "all":
        return all_rules()
    if name is not None:
        return [Rules.preset(name)]
    return [Rules(exp.get("matching", "deal"), exp.get("gather", "top-right"), exp.get("pile_four", "keep"))]


def plan(section: dict) -> list[dict]:
    """Shard specs: for each experiment, each rule combination, ``shards`` seeded shards."""
    specs = []
    for exp in section.get("experiments", []):
        for rules in experiment_rules(exp):
            for shard, (start, stop) in enumerate(split_range(int(exp["games"]), int(exp["shards"]))):
                root = int(exp["seed"])
                specs.append({
                    "experiment": exp["name"],
                    "variant": rules.variant,
                    "shard": shard,
                    "matching": rules.matching,
                    "gather": rules.gather,
                    "pile_four": rules.pile_four,
                    "games": [start, stop],
                    "work": stop - start,
                    "root_seed": root,
                    "seed": shard_seed(root, GAME, exp["name"], rules.variant, shard),
                    "seed_derivation": seed_derivation(root, GAME, exp["name"], rules.variant, shard),
                })
    return specs


def expected_rows(spec: dict, table: str) -> int:
    """One row per game of the shard (checked by ``cardlab verify``)."""
    start, stop = spec["games"]
    return int(stop) - int(start)


CHUNK = 50_000  # games per kernel call: progress between calls, bounded memory


def run_shard(spec: dict, progress, inputs: list[str]) -> dict[str, dict]:
    """Play games [start, stop) of one shard; game i's deck comes from stream (seed, i)."""
    rules = Rules(spec["matching"], spec["gather"], spec["pile_four"])
    start, stop = spec["games"]
    parts = []
    for a in range(start, stop, CHUNK):
        b = min(a + CHUNK, stop)
        decks = shuffled_decks(np.uint64(spec["seed"]), a, b)
        res = play(decks, rules)
        res["game"] = np.arange(a, b, dtype=np.int64)
        parts.append(res)
        progress.update(b - a)
    cols = {k: (np.concatenate([p[k] for p in parts]) if parts else np.empty(0)) for k in
            ("game", "won", "passes", "time_s", "cycle_start", "cycle_length")}
    n = stop - start
    return {"narcotic_games": {
        "experiment": [spec["experiment"]] * n,
        "variant": [rules.variant] * n,
        "matching": [rules.matching] * n,
        "gather": [rules.gather] * n,
        "pile_four": [rules.pile_four] * n,
        "shard": np.full(n, int(spec["shard"]), dtype=np.int32),
        **cols,
    }}
