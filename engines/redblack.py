"""RedBlack: which deals never end?  Exact search for infinite games.

Rules (the one place they are written down; the kernel and the reference
below both implement exactly this):

* Only colours matter: ``0`` is red, ``1`` is black.  A *state* is the
  leader's deck and the other player's deck, each a sequence with the top
  card first.
* A round: the leader plays their top card; its colour is the *round colour*.
  Then the players alternate, starting with the other player, each playing
  their top card, until someone plays a card of the other colour.  That
  player loses the round and puts the played pile under their own deck in
  the order played (the first played card highest, i.e. drawn first among
  the pile).  The winner of the round leads the next one.
* The game is over as soon as a player has no cards left after playing a
  card of the round colour (this includes a leader who leads with their last
  card); that player wins.  A player whose last card is off-colour picks up
  the pile and play continues.
* A deal is *infinite* when play never ends, i.e. it reaches a state seen
  before.  Detection is exact (Brent's algorithm on the whole state); no
  round limit ever decides anything.
* A *balanced deal of size k*: each player holds k cards, k red and k black
  in total, player 1 leads.  Swapping the two colours maps games to games,
  so deals come in pairs; the *canonical* one has player 1's first card red.
  Notation: two strings ``P1 P2``, top card first (e.g. ``10 110``).

Counting conventions.  The dynamics only see (leader's deck, other's deck);
the *period* of a cycle is counted in rounds of the labelled game (who is
player 1 matters), as in the seed's example ``10 110`` whose cycle has two
rounds (after one round the decks are the same but the players have swapped
roles).  ``rounds`` of a finite game counts every round including the one
in which a player runs out.  ``rounds before the cycle`` (mu) is the number
of rounds played before the first state that lies on the cycle.

Representation in the kernel.  A deck of ``n <= 52`` cards is an int64 bit
string with the top card in bit 0, plus its length.  A round is a few bit
operations: the first off-colour card of each deck is a count of trailing
zeros, and who plays first of the two decides the round (the leader's t-th
card is play 2t, the other's is play 2t+1); the pile is always ``m-1`` cards
of the round colour followed by one of the other colour.

Cycle ids.  A state's key is ``(leader length << 56) | leader | (other <<
leader length)`` (bits as above); a cycle's id is its least key over all its
states and their colour swaps, written ``LEADER/OTHER`` (top card first), so
a cycle and its colour swap share an id.

Basins.  Every state has exactly one successor, so the states leading into a
cycle form in-trees hanging off the cycle: running rounds backwards from the
cycle (``predecessors``: the pile sits at the bottom of the loser's deck) visits
every state of the basin exactly once, with no visited-set needed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np
import pyarrow as pa
from numba import njit, prange
from numba.cpython.unsafe.numbers import trailing_zeros

from .errors import CardlabError
from .rng import bounded, seed_derivation, shard_seed, stream_start
from .shards import split_range

GAME = "redblack"
WORK_UNIT = "deals"
K_MAX = 26                      # a full deck; 2k bits must fit the int64 kernel state

# Round outcomes returned by the kernel's round function.
OTHER_LOST = 0                  # the leader keeps the lead
LEADER_LOST = 1                 # the lead passes to the other player
LEADER_OUT = 2                  # game over: the leader played their last card
OTHER_OUT = 3                   # game over: the other player played their last card

TABLES: dict[str, pa.Schema] = {
    # one row per search shard (exhaustive rank range or sample index range)
    "redblack_counts": pa.schema([
        ("experiment", pa.string()), ("method", pa.string()), ("k", pa.int32()),
        ("balanced", pa.bool_()), ("shard", pa.int32()),
        ("range_start", pa.int64()), ("range_stop", pa.int64()),
        ("space", pa.int64()),           # canonical balanced deals of size k (exhaustive), else deals drawn
        ("deals", pa.int64()), ("finite", pa.int64()), ("infinite", pa.int64()),
        ("longest_rounds", pa.int32()), ("longest_p1", pa.string()), ("longest_p2", pa.string()),
    ]),
    # histogram of rounds to finish (finite games only), per search shard
    "redblack_hist": pa.schema([
        ("experiment", pa.string()), ("method", pa.string()), ("k", pa.int32()),
        ("balanced", pa.bool_()), ("shard", pa.int32()),
        ("rounds", pa.int32()), ("deals", pa.int64()),
    ]),
    # one row per infinite deal met by a search shard (canonical form)
    "redblack_found": pa.schema([
        ("experiment", pa.string()), ("method", pa.string()), ("k", pa.int32()),
        ("balanced", pa.bool_()), ("shard", pa.int32()), ("deal_index", pa.int64()),
        ("p1", pa.string()), ("p2", pa.string()),
        ("cycle_id", pa.string()), ("rounds_before_cycle", pa.int32()), ("period", pa.int32()),
    ]),
    # one row per cycle whose basin a basin job enumerated
    "redblack_basins": pa.schema([
        ("experiment", pa.string()), ("k", pa.int32()), ("cards", pa.int32()),
        ("cycle_id", pa.string()), ("period", pa.int32()), ("colour_symmetric", pa.bool_()),
        ("basin_states", pa.int64()), ("basin_complete", pa.bool_()), ("basin_depth", pa.int32()),
        ("balanced_deals", pa.int64()),  # canonical balanced deals in the basin
    ]),
    # every canonical balanced deal in the basins, with its cycle
    "redblack_basin_deals": pa.schema([
        ("experiment", pa.string()), ("k", pa.int32()), ("p1", pa.string()), ("p2", pa.string()),
        ("cycle_id", pa.string()), ("rounds_before_cycle", pa.int32()),
    ]),
}
# the views of engines/sql/redblack.sql take the plain names (redblack_cycles, redblack_lengths, ...)
SEARCH_TABLES = ("redblack_counts", "redblack_hist", "redblack_found")
BASIN_TABLES = ("redblack_basins", "redblack_basin_deals")


def spec_tables(spec: dict) -> tuple[str, ...]:
    """Search shards and the basin job write different tables."""
    return BASIN_TABLES if spec.get("kind") == "basin" else SEARCH_TABLES


def expected_rows(spec: dict, table: str) -> int | None:
    """A search shard writes one counts row; other tables' sizes depend on what it finds."""
    return 1 if table == "redblack_counts" else None


# ---------------------------------------------------------------------------
# Notation
# ---------------------------------------------------------------------------

def parse_deck(text: str, who: str = "deck") -> str:
    """Check a deck in the seed's notation (a non-empty string of 0/1); returns it unchanged."""
    if not isinstance(text, str) or not text:
        raise CardlabError(f"{who} is empty; give a string of 0 (red) and 1 (black), top card first")
    if set(text) - {"0", "1"}:
        raise CardlabError(f"{who} {text!r} is not a string of 0 (red) and 1 (black)")
    if len(text) > 2 * K_MAX:
        raise CardlabError(f"{who} has {len(text)} cards; at most {2 * K_MAX} are supported")
    return text


def parse_deal(p1: str, p2: str) -> tuple[str, str]:
    """Both decks of a deal, checked; the total must fit a 52-card deck."""
    parse_deck(p1, "P1")
    parse_deck(p2, "P2")
    if len(p1) + len(p2) > 2 * K_MAX:
        raise CardlabError(f"the deal has {len(p1) + len(p2)} cards; at most {2 * K_MAX} are supported")
    return p1, p2


def to_bits(deck: str) -> int:
    """Deck string (top first) -> int with the top card in bit 0."""
    return int(deck[::-1], 2) if deck else 0


def to_str(bits: int, length: int) -> str:
    """Inverse of ``to_bits``."""
    return "".join("1" if (int(bits) >> i) & 1 else "0" for i in range(length))


def colour_swap(deck: str) -> str:
    return deck.translate(str.maketrans("01", "10"))


def canonical(p1: str, p2: str) -> tuple[str, str]:
    """The canonical member of a deal's colour-swap pair: player 1's first card red."""
    return (colour_swap(p1), colour_swap(p2)) if p1.startswith("1") else (p1, p2)


def canonical_deals(k: int) -> int:
    """Canonical balanced deals of size k: the k black cards among the 2k-1 positions after P1's red top card."""
    return math.comb(2 * k - 1, k)


def cycle_id_str(key: int, cards: int) -> str:
    """A state key (see the module docstring) of a game with ``cards`` cards, as ``LEADER/OTHER``."""
    a = key >> 56
    body = key & ((1 << 56) - 1)
    return f"{to_str(body & ((1 << a) - 1), a)}/{to_str(body >> a, cards - a)}"


def parse_cycle_id(cycle_id: str) -> tuple[str, str]:
    """``LEADER/OTHER`` -> (leader, other), checked."""
    leader, sep, other = cycle_id.partition("/")
    if not sep:
        raise CardlabError(f"cycle id {cycle_id!r} is not of the form LEADER/OTHER (e.g. 10/110)")
    parse_deal(leader, other)
    return leader, other


# ---------------------------------------------------------------------------
# Plain-Python reference (lists, one card at a time; used by tests)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """How a deal plays out: finished after ``rounds`` won by ``winner``, or a cycle."""
    finished: bool
    rounds: int                 # finished: rounds played; infinite: rounds before the cycle
    winner: int = 0             # 1 or 2 when finished
    period: int = 0             # cycle length in rounds (labelled game) when infinite
    cycle_id: str = ""


def round_reference(leader: list[int], other: list[int]) -> tuple[int, list[int], list[int], list[int]]:
    """Play one round card by card: (outcome code, new leader deck, new other deck, pile played)."""
    decks = [list(leader), list(other)]
    colour = decks[0][0]
    pile: list[int] = []
    turn = 0
    while True:
        card = decks[turn].pop(0)
        pile.append(card)
        if card != colour:
            decks[turn].extend(pile)            # loser picks up, first played card highest
            if turn == 0:
                return LEADER_LOST, decks[1], decks[0], pile
            return OTHER_LOST, decks[0], decks[1], pile
        if not decks[turn]:
            return (LEADER_OUT if turn == 0 else OTHER_OUT), decks[0], decks[1], pile
        turn = 1 - turn


def play_reference(p1: str, p2: str) -> Outcome:
    """Play a deal with a dict of every labelled state seen (the obvious, slow way)."""
    leader, other = [int(c) for c in p1], [int(c) for c in p2]
    leading = 1
    seen: dict[tuple, int] = {}
    rounds = 0
    while True:
        state = (tuple(leader), tuple(other), leading)
        if state in seen:
            mu = seen[state]
            return Outcome(False, mu, period=rounds - mu, cycle_id=cycle_id_reference(leader, other))
        seen[state] = rounds
        code, leader, other, _ = round_reference(leader, other)
        rounds += 1
        if code == LEADER_OUT:
            return Outcome(True, rounds, winner=leading)
        if code == OTHER_OUT:
            return Outcome(True, rounds, winner=3 - leading)
        if code == LEADER_LOST:
            leading = 3 - leading


def state_key_reference(leader: Sequence[int], other: Sequence[int]) -> int:
    a = len(leader)
    return (a << 56) | to_bits("".join(map(str, leader))) | (to_bits("".join(map(str, other))) << a)


def cycle_id_reference(leader: list[int], other: list[int]) -> str:
    """Least key over the cycle through (leader, other) and its colour swap (state must be on a cycle)."""
    start = (tuple(leader), tuple(other))
    state = start
    best = None
    while True:
        for l, o in (state, (tuple(1 - c for c in state[0]), tuple(1 - c for c in state[1]))):
            key = state_key_reference(l, o)
            if best is None or key < best[0]:
                best = (key, l, o)
        _, nl, no, _ = round_reference(list(state[0]), list(state[1]))
        state = (tuple(nl), tuple(no))
        if state == start:
            break
    return "".join(map(str, best[1])) + "/" + "".join(map(str, best[2]))


def predecessors_reference(leader: str, other: str) -> list[tuple[str, str]]:
    """Every state whose round leads to (leader, other), by trying every way the last pile was made.

    The winner of the previous round leads now and the pile (m cards: m-1 of the round
    colour, then one of the other colour) is at the bottom of the other deck.  With an even
    pile the current leader also led before; with an odd pile the current other player led.
    """
    out = []
    b = len(other)
    for m in range(2, b + 1):
        pile, rest = other[b - m:], other[:b - m]
        c = pile[0]
        if pile != c * (m - 1) + ("1" if c == "0" else "0"):
            continue
        off = pile[-1]
        if m % 2 == 0:                      # other lost: leader played m/2 cards, other m/2
            j = (m - 2) // 2
            out.append((c * (j + 1) + leader, c * j + off + rest))
        else:                               # leader lost: played (m+1)/2 cards, other (m-1)/2
            i = (m - 1) // 2
            out.append((c * i + off + rest, c * i + leader))
    return out


def trace_reference(p1: str, p2: str, max_rounds: int) -> Iterator[tuple[str, str, str, str]]:
    """The seed's round-by-round table: (P1 pile, P2 pile, played pile, comment) for each play."""
    decks = {1: [int(c) for c in p1], 2: [int(c) for c in p2]}
    show = lambda d: "".join(map(str, d)) or "-"
    leading = 1
    yield show(decks[1]), show(decks[2]), "-", "Starting hand, player 1 to go"
    for _ in range(max_rounds):
        colour = decks[leading][0]
        pile: list[int] = []
        turn = leading
        while True:
            card = decks[turn].pop(0)
            pile.append(card)
            yield show(decks[1]), show(decks[2]), show(pile), f"Player {turn} plays {card}"
            if card != colour:
                decks[turn].extend(pile)
                leading = 3 - turn
                yield (show(decks[1]), show(decks[2]), "-",
                       f"Player {turn} picks up, player {leading} to go")
                break
            if not decks[turn]:
                yield show(decks[1]), show(decks[2]), show(pile), f"Player {turn} has no cards left and wins"
                return
            turn = 3 - turn


# ---------------------------------------------------------------------------
# numba kernel: a round as bit operations, Brent's cycle detection
# ---------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _mask(n):
    return (np.int64(1) << n) - 1


@njit(cache=True, inline="always")
def _select(m, x, y):
    """x where the mask m is all ones, y where it is zero (a select without a branch)."""
    return (x & m) | (y & ~m)


@njit(cache=True, inline="always")
def _round(L, a, O, b):
    """One round on (leader L of a cards, other O of b cards): (L', a', O', b', outcome).

    Who loses the round is a coin flip to the branch predictor, so both outcomes are
    computed with masks and selected without branching (about 25% faster than an if).
    """
    c = L & 1
    cm = -c                                            # all ones when the round colour is black
    # first off-colour card of each deck (or the deck length when it has none)
    i = trailing_zeros(((L ^ cm) & _mask(a)) | (np.int64(1) << a))
    j = trailing_zeros(((O ^ cm) & _mask(b)) | (np.int64(1) << b))
    # The leader's t-th card is play 2t, the other's is play 2t+1; each deck's event is
    # its first off-colour card, or its last card when it has none (running out).  The
    # earlier event decides the round: the leader's comes first iff i' <= j'.
    leader_first = np.int64((i - (i == a)) <= (j - (j == b)))
    m = -leader_first
    if _select(m, np.int64(i == a), np.int64(j == b)):
        return L, a, O, b, LEADER_OUT + 1 - leader_first   # someone ran out: game over
    # The loser played `xs` cards, the winner `ws`; the pile (ws + xs cards) goes under the
    # loser's remaining deck.  Leader loses: xs = i+1, ws = i.  Other loses: both j+1.
    ws = _select(m, i, j + 1)
    xs = ws + leader_first
    pm = ws + xs - 1                                   # pile = pm cards of colour c, then one off-colour
    pile = (cm & _mask(pm)) | ((1 - c) << pm)
    winner, wl = _select(m, O, L), _select(m, b, a)
    loser, xl = _select(m, L, O), _select(m, a, b)
    return winner >> ws, wl - ws, (loser >> xs) | (pile << (xl - xs)), xl - xs + pm + 1, leader_first


@njit(cache=True)
def _play(L, a, O, b):
    """Brent's algorithm on the whole state: (rounds, reduced period or 0 if finished, winner side).

    winner side: 1 if the player who led the first round wins, 2 if the other does, 0 if infinite.
    """
    tL, ta, tO = L, a, O
    power = 1
    lam = 1
    rounds = 0
    flips = 0
    while True:
        L, a, O, b, st = _round(L, a, O, b)
        rounds += 1
        if st >= LEADER_OUT:
            leader_won = st == LEADER_OUT
            first_leads = flips == 0
            return rounds, 0, 1 if leader_won == first_leads else 2
        flips ^= st
        if L == tL and O == tO and a == ta:
            return rounds, lam, 0
        if power == lam:
            tL, ta, tO = L, a, O
            power <<= 1
            lam = 0
        lam += 1


@njit(cache=True, inline="always")
def _key(L, a, O):
    return (np.int64(a) << 56) | L | (O << a)


@njit(cache=True, inline="always")
def _swapped_key(L, a, O, b):
    return _key(~L & _mask(a), a, ~O & _mask(b))


@njit(cache=True)
def _cycle_info(L, a, O, b, lam):
    """For an infinite deal with reduced period lam: (rounds before the cycle, period, cycle key, symmetric)."""
    hL, ha, hO, hb = L, a, O, b
    for _ in range(lam):
        hL, ha, hO, hb, st = _round(hL, ha, hO, hb)
    tL, ta, tO, tb = L, a, O, b
    mu = 0
    while not (tL == hL and ta == ha and tO == hO):
        tL, ta, tO, tb, st = _round(tL, ta, tO, tb)
        hL, ha, hO, hb, st = _round(hL, ha, hO, hb)
        mu += 1
    best = _key(tL, ta, tO)
    swapped_best = _swapped_key(tL, ta, tO, tb)
    flips = 0
    for _ in range(lam):
        tL, ta, tO, tb, st = _round(tL, ta, tO, tb)
        flips ^= st
        best = min(best, _key(tL, ta, tO))
        swapped_best = min(swapped_best, _swapped_key(tL, ta, tO, tb))
    # the labelled game repeats after lam rounds only if the lead changed hands an even number of times
    period = lam if flips == 0 else 2 * lam
    return mu, period, min(best, swapped_best), best == swapped_best


# ---------------------------------------------------------------------------
# Canonical balanced deals: combinatorial number system (colex order)
# ---------------------------------------------------------------------------

def binomials(nmax: int = 2 * K_MAX) -> np.ndarray:
    t = np.zeros((nmax + 1, nmax + 1), dtype=np.int64)
    for n in range(nmax + 1):
        for r in range(n + 1):
            t[n, r] = math.comb(n, r)
    return t


BINOM = binomials()


@njit(cache=True)
def _unrank(rank, k, binom):
    """The rank-th k-subset of {0, 1, ...} in colex order, as a bit set (combinatorial number system)."""
    x = np.int64(0)
    for i in range(k, 0, -1):
        c = i - 1
        while binom[c + 1, i] <= rank:
            c += 1
        rank -= binom[c, i]
        x |= np.int64(1) << c
    return x


@njit(cache=True, inline="always")
def _next_subset(x):
    """Gosper's hack: the next larger integer with the same number of set bits (next in colex order)."""
    u = x & -x
    v = x + u
    return v | (((v ^ x) >> 2) >> trailing_zeros(x))


def unrank_deal(k: int, rank: int) -> tuple[str, str]:
    """The canonical balanced deal of size k with the given rank (0 <= rank < canonical_deals(k))."""
    if not 0 <= rank < canonical_deals(k):
        raise CardlabError(f"rank {rank} out of range for k={k} (0..{canonical_deals(k) - 1})")
    s = int(_unrank(np.int64(rank), k, BINOM)) << 1   # bit 0 (P1's top card) is red
    return to_str(s & ((1 << k) - 1), k), to_str(s >> k, k)


def rank_deal(p1: str, p2: str) -> int:
    """Inverse of ``unrank_deal`` for a canonical balanced deal."""
    s = to_bits(p1 + p2) >> 1
    ones = [i for i in range(2 * len(p1) - 1) if (s >> i) & 1]
    return sum(math.comb(c, i + 1) for i, c in enumerate(ones))


# ---------------------------------------------------------------------------
# Exhaustive search over a rank range
# ---------------------------------------------------------------------------

@njit(cache=True)
def _search_chunk(k, r0, r1, binom, hist, inf_rows):
    """Play canonical deals r0..r1-1: fills hist (finite games by rounds, if < len) and inf_rows.

    Returns (finite, infinite, longest rounds, its deal bits, max rounds seen).
    """
    mk = _mask(k)
    cap = inf_rows.shape[0]
    H = hist.shape[0]
    finite = 0
    infinite = 0
    longest = 0
    longest_deal = np.int64(-1)
    x = _unrank(r0, k, binom)
    for _ in range(r1 - r0):
        s = x << 1
        P1 = s & mk
        P2 = s >> k
        rounds, lam, side = _play(P1, k, P2, k)
        if lam == 0:
            finite += 1
            if rounds < H:
                hist[rounds] += 1
            if rounds > longest:
                longest = rounds
                longest_deal = s
        else:
            if infinite < cap:
                mu, period, key, sym = _cycle_info(P1, k, P2, k, lam)
                inf_rows[infinite, 0] = s
                inf_rows[infinite, 1] = mu
                inf_rows[infinite, 2] = period
                inf_rows[infinite, 3] = key
            infinite += 1
        x = _next_subset(x)
    return finite, infinite, longest, longest_deal


@njit(cache=True, parallel=True)
def _search_batch(k, starts, stops, binom, H, cap):
    """Chunks in parallel; each chunk's results land in its own row, so threads never share state."""
    nch = starts.shape[0]
    hist = np.zeros((nch, H), dtype=np.int64)
    inf_rows = np.zeros((nch, cap, 4), dtype=np.int64)
    stats = np.zeros((nch, 4), dtype=np.int64)
    for ch in prange(nch):
        f, n_inf, longest, deal = _search_chunk(k, starts[ch], stops[ch], binom, hist[ch], inf_rows[ch])
        stats[ch, 0] = f
        stats[ch, 1] = n_inf
        stats[ch, 2] = longest
        stats[ch, 3] = deal
    return hist, inf_rows, stats


@dataclass
class SearchResult:
    """Everything one search (exhaustive range or sample) produces."""
    k: int
    deals: int
    finite: int
    lengths: np.ndarray                 # lengths[r] = finite games of r rounds
    longest_rounds: int
    longest_deal: tuple[str, str]
    infinite: list[dict]                # p1, p2 (canonical), deal_index, cycle_id, rounds_before_cycle, period

    @property
    def infinite_count(self) -> int:
        return self.deals - self.finite


CHUNK = 1 << 13                          # deals per parallel work item
BATCH_CHUNKS = 256                       # chunks per kernel call (progress is reported between calls)


def _deal_strings(s: int, a: int, n: int) -> tuple[str, str]:
    return to_str(s & ((1 << a) - 1), a), to_str(s >> a, n - a)


def search_range(k: int, start: int, stop: int, progress=None) -> SearchResult:
    """Play every canonical balanced deal of size k with rank in [start, stop)."""
    if not 1 <= k <= K_MAX:
        raise CardlabError(f"k must be between 1 and {K_MAX}, got {k}")
    total = canonical_deals(k)
    if not 0 <= start <= stop <= total:
        raise CardlabError(f"rank range [{start}, {stop}) is not inside [0, {total}) for k={k}")
    H, cap = 1024, 8
    lengths = np.zeros(H, dtype=np.int64)
    finite, longest, longest_s = 0, 0, -1
    infinite: list[dict] = []
    pos = start
    while pos < stop:
        end = min(stop, pos + CHUNK * BATCH_CHUNKS)
        edges = np.arange(pos, end, CHUNK, dtype=np.int64)
        starts, stops = edges, np.minimum(edges + CHUNK, end).astype(np.int64)
        while True:
            hist, rows, stats = _search_batch(k, starts, stops, BINOM, H, cap)
            max_rounds = int(stats[:, 2].max()) if len(stats) else 0
            most_inf = int(stats[:, 1].max()) if len(stats) else 0
            if max_rounds < H and most_inf <= cap:
                break
            # a rare long game or crowded chunk: redo this batch with room for it (results stay exact)
            H = max(H, 1 << int(max_rounds).bit_length())
            cap = max(cap, most_inf)
            lengths = np.concatenate([lengths, np.zeros(H - len(lengths), dtype=np.int64)])
        lengths[:H] += hist.sum(axis=0)
        finite += int(stats[:, 0].sum())
        for ch in range(len(starts)):        # chunks in rank order: ties keep the lowest rank
            if stats[ch, 2] > longest:
                longest, longest_s = int(stats[ch, 2]), int(stats[ch, 3])
            for r in range(int(stats[ch, 1])):
                s, mu, period, key = (int(v) for v in rows[ch, r])
                p1, p2 = _deal_strings(s, k, 2 * k)
                infinite.append({"p1": p1, "p2": p2, "deal_index": rank_deal(p1, p2),
                                 "cycle_id": cycle_id_str(key, 2 * k), "rounds_before_cycle": mu,
                                 "period": period})
        if progress is not None:
            progress.update(end - pos)
        pos = end
    longest_deal = _deal_strings(longest_s, k, 2 * k) if longest_s >= 0 else ("", "")
    return SearchResult(k, stop - start, finite, np.trim_zeros(lengths, "b"), longest, longest_deal, infinite)


def search(k: int, progress=None) -> SearchResult:
    """Every canonical balanced deal of size k."""
    return search_range(k, 0, canonical_deals(k), progress)


# ---------------------------------------------------------------------------
# Seeded sampling
# ---------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _random_deal(seed, index, k, balanced):
    """Deal `index` of a shard: a uniformly shuffled deck of k red and k black cards.

    Balanced: player 1 gets the first k cards.  Otherwise the deck is cut at a uniform
    point, so player 1 holds 1..2k-1 cards.  Returns (deck bits, player 1's cards).
    """
    n = 2 * k
    state = stream_start(seed, index)
    s = np.int64(0)
    black_left = k
    for pos in range(n):                 # selection sampling: uniform over all arrangements
        state, r = bounded(state, n - pos)
        if r < black_left:
            s |= np.int64(1) << pos
            black_left -= 1
    a = k
    if not balanced:
        state, r = bounded(state, n - 1)
        a = r + 1
    return s, a


@njit(cache=True, parallel=True)
def _sample_batch(seed, i0, i1, k, balanced):
    """Play deals i0..i1-1 of a shard: per deal (deck bits, P1 cards, rounds, mu, period, cycle key)."""
    n = i1 - i0
    out = np.zeros((n, 6), dtype=np.int64)
    for t in prange(n):
        s, a = _random_deal(seed, i0 + t, k, balanced)
        L = s & _mask(a)
        O = s >> a
        rounds, lam, side = _play(L, a, O, 2 * k - a)
        out[t, 0] = s
        out[t, 1] = a
        out[t, 2] = rounds if lam == 0 else -1
        if lam > 0:
            mu, period, key, sym = _cycle_info(L, a, O, 2 * k - a, lam)
            out[t, 3] = mu
            out[t, 4] = period
            out[t, 5] = key
    return out


def sample_deal(seed: int, index: int, k: int, balanced: bool) -> tuple[str, str]:
    """Deal ``index`` of a sample shard with this seed, as ``(P1, P2)`` (for replaying a sample)."""
    s, a = _random_deal(np.uint64(seed), np.int64(index), k, balanced)
    return _deal_strings(int(s), int(a), 2 * k)


def sample_range(k: int, seed: int, start: int, stop: int, balanced: bool = True,
                 progress=None, batch: int = 1 << 16) -> SearchResult:
    """Play deals start..stop-1 of the seeded stream ``seed`` (deal i uses splitmix64 stream i)."""
    if not 1 <= k <= K_MAX:
        raise CardlabError(f"k must be between 1 and {K_MAX}, got {k}")
    lengths = np.zeros(0, dtype=np.int64)
    finite, longest, longest_deal = 0, 0, ("", "")
    infinite: list[dict] = []
    for b0 in range(start, stop, batch):
        b1 = min(stop, b0 + batch)
        out = _sample_batch(np.uint64(seed), np.int64(b0), np.int64(b1), k, balanced)
        rounds = out[:, 2]
        done = rounds >= 0
        finite += int(done.sum())
        counts = np.bincount(rounds[done], minlength=len(lengths))
        lengths = np.concatenate([lengths, np.zeros(len(counts) - len(lengths), dtype=np.int64)]) + counts
        if done.any():
            t = int(np.argmax(np.where(done, rounds, -1)))  # first deal with the most rounds
            if rounds[t] > longest:
                longest = int(rounds[t])
                longest_deal = _deal_strings(int(out[t, 0]), int(out[t, 1]), 2 * k)
        for t in np.flatnonzero(~done):
            p1, p2 = canonical(*_deal_strings(int(out[t, 0]), int(out[t, 1]), 2 * k))
            infinite.append({"p1": p1, "p2": p2, "deal_index": b0 + int(t),
                             "cycle_id": cycle_id_str(int(out[t, 5]), 2 * k),
                             "rounds_before_cycle": int(out[t, 3]), "period": int(out[t, 4])})
        if progress is not None:
            progress.update(b1 - b0)
    return SearchResult(k, stop - start, finite, np.trim_zeros(lengths, "b"), longest, longest_deal, infinite)


# ---------------------------------------------------------------------------
# Basins: running rounds backwards
# ---------------------------------------------------------------------------

@njit(cache=True)
def _predecessors(W, a, X, b, out):
    """Fill ``out`` (rows L, a, O, b) with every state whose round gives (W, X); returns how many.

    The pile (m cards: m-1 of the round colour c, then one of the other) is at the bottom
    of X.  Even m: W led and kept the lead; odd m: X led and lost.
    """
    c = 1 - ((X >> (b - 1)) & 1)
    cm = -c
    # run of round-colour cards just above X's bottom card
    z = (X ^ cm) & _mask(b - 1)
    top_bit = 0
    while (z >> top_bit) != 0:
        top_bit += 1
    run = (b - 1) - top_bit
    count = 0
    for m in range(2, run + 2):
        rest = X & _mask(b - m)
        off = 1 - c
        if m % 2 == 0:
            j = (m - 2) // 2
            out[count, 0] = (cm & _mask(j + 1)) | (W << (j + 1))
            out[count, 1] = a + j + 1
            out[count, 2] = (cm & _mask(j)) | (off << j) | (rest << (j + 1))
            out[count, 3] = j + 1 + b - m
        else:
            i = (m - 1) // 2
            out[count, 0] = (cm & _mask(i)) | (off << i) | (rest << (i + 1))
            out[count, 1] = i + 1 + b - m
            out[count, 2] = (cm & _mask(i)) | (W << i)
            out[count, 3] = i + a
        count += 1
    return count


@njit(cache=True)
def _basin(L0, a0, O0, b0, lam, k, max_states):
    """Enumerate the basin of the cycle through (L0, O0) with reduced period lam.

    Returns (states visited, complete, max depth, balanced deals (bits), their depths):
    balanced deals are the basin's states where both decks hold k cards.
    """
    n = a0 + b0
    cyc = np.empty((lam, 3), dtype=np.int64)
    stack = []
    L, a, O, b = L0, a0, O0, b0
    for t in range(lam):
        cyc[t, 0] = L
        cyc[t, 1] = a
        cyc[t, 2] = O
        stack.append((L, a, O, 0))
        L, a, O, b, st = _round(L, a, O, b)
    deals = []
    depths = []
    count = lam
    max_depth = 0
    preds = np.empty((n, 4), dtype=np.int64)
    complete = True
    while len(stack) > 0:
        W, a, X, d = stack.pop()
        b = n - a
        if a == k and b == k:
            deals.append(W | (X << k))
            depths.append(d)
        if d > max_depth:
            max_depth = d
        np_ = _predecessors(W, a, X, b, preds)
        for p in range(np_):
            pL, pa, pO = preds[p, 0], preds[p, 1], preds[p, 2]
            if d == 0:                   # a cycle state: one predecessor is the previous cycle state
                on_cycle = False
                for t in range(lam):
                    if cyc[t, 0] == pL and cyc[t, 1] == pa and cyc[t, 2] == pO:
                        on_cycle = True
                        break
                if on_cycle:
                    continue
            if count >= max_states:
                complete = False
                break
            count += 1
            stack.append((pL, pa, pO, d + 1))
        if not complete:
            break
    return count, complete, max_depth, np.array(deals, dtype=np.int64), np.array(depths, dtype=np.int64)


@dataclass
class Basin:
    cycle_id: str
    cards: int
    period: int
    symmetric: bool
    states: int                         # states of the basin, counting the cycle and its colour swap
    complete: bool
    depth: int                          # most rounds before the cycle within the basin
    deals: list[tuple[str, str, int]]   # canonical balanced deals: (P1, P2, rounds before the cycle)


def cycle_state(cycle_id: str) -> tuple[int, int, int, int]:
    leader, other = parse_cycle_id(cycle_id)
    return to_bits(leader), len(leader), to_bits(other), len(other)


def reduced_period(L: int, a: int, O: int, b: int) -> int:
    """Rounds until the (leader, other) state comes back, for a state on a cycle."""
    rounds, lam, side = _play(np.int64(L), np.int64(a), np.int64(O), np.int64(b))
    if lam == 0:
        raise CardlabError(f"{to_str(L, a)}/{to_str(O, b)} is not on a cycle: the game ends")
    return int(lam)


def basin(cycle_id: str, max_states: int = 50_000_000) -> Basin:
    """Every state leading into the cycle ``cycle_id`` (and its colour swap); its balanced deals."""
    L, a, O, b = cycle_state(cycle_id)
    n = a + b
    lam = reduced_period(L, a, O, b)
    mu, period, key, sym = _cycle_info(np.int64(L), np.int64(a), np.int64(O), np.int64(b), lam)
    k = n // 2 if n % 2 == 0 else -1
    count, complete, depth, deals, depths = _basin(np.int64(L), np.int64(a), np.int64(O), np.int64(b),
                                                   lam, k, max_states)
    full = (1 << n) - 1
    canon: dict[int, int] = {}
    for s, d in zip(deals.tolist(), depths.tolist()):
        if s & 1:                        # player 1's first card black: take the colour swap
            s = ~s & full
        canon[s] = min(d, canon.get(s, d))
    out = [(*_deal_strings(s, k, n), d) for s, d in canon.items()]
    out.sort()
    states = int(count) if sym else 2 * int(count)
    return Basin(cycle_id_str(int(key), n), n, int(period), bool(sym), states, bool(complete),
                 int(depth), out)


# ---------------------------------------------------------------------------
# Playing one deal (kernel) and the replay summary
# ---------------------------------------------------------------------------

def play(p1: str, p2: str) -> Outcome:
    """Play a deal with the kernel (player 1 leads)."""
    parse_deal(p1, p2)
    L, a, O, b = to_bits(p1), len(p1), to_bits(p2), len(p2)
    rounds, lam, side = _play(np.int64(L), np.int64(a), np.int64(O), np.int64(b))
    if lam == 0:
        return Outcome(True, int(rounds), winner=int(side))
    mu, period, key, sym = _cycle_info(np.int64(L), np.int64(a), np.int64(O), np.int64(b), lam)
    return Outcome(False, int(mu), period=int(period), cycle_id=cycle_id_str(int(key), a + b))


def round_kernel(leader: str, other: str) -> tuple[int, str, str]:
    """One kernel round on a state in notation: (outcome, new leader, new other)."""
    L, a, O, b, st = _round(np.int64(to_bits(leader)), np.int64(len(leader)),
                            np.int64(to_bits(other)), np.int64(len(other)))
    return int(st), to_str(int(L), int(a)), to_str(int(O), int(b))


def predecessors(leader: str, other: str) -> list[tuple[str, str]]:
    """Kernel predecessors of a state, in notation."""
    out = np.empty((len(leader) + len(other), 4), dtype=np.int64)
    n = _predecessors(np.int64(to_bits(leader)), np.int64(len(leader)),
                      np.int64(to_bits(other)), np.int64(len(other)), out)
    return [(to_str(int(r[0]), int(r[1])), to_str(int(r[2]), int(r[3]))) for r in out[:n]]


# ---------------------------------------------------------------------------
# Engine interface (docs/engines.md)
# ---------------------------------------------------------------------------

def exhaustive_sizes(section: dict) -> list[int]:
    """The sizes k searched exhaustively: ``exhaustive.k`` (a list) or ``k_min..k_max``."""
    ex = section.get("exhaustive") or {}
    if "k" in ex:
        ks = sorted(set(int(k) for k in ex["k"]))
    elif "k_max" in ex:
        lo, hi = int(ex.get("k_min", 1)), int(ex["k_max"])
        if lo > hi:
            raise CardlabError(f"redblack.exhaustive: k_min ({lo}) is larger than k_max ({hi})")
        ks = list(range(lo, hi + 1))
    else:
        ks = []
    bad = [k for k in ks if not 1 <= k <= K_MAX]
    if bad:
        raise CardlabError(f"redblack.exhaustive: k must be between 1 and {K_MAX}, got {bad}")
    return ks


def shard_threads(section: dict, spec: dict) -> int:
    """numba threads for a shard job: exhaustive.threads for exhaustive shards, else 1.

    Kept out of the spec on purpose: the thread count never changes results, so
    changing it must not rerun finished shards.
    """
    if spec.get("kind") == "exhaustive":
        return int(((section or {}).get("exhaustive") or {}).get("threads", 1))
    return 1


def exhaustive_experiment(k: int) -> str:
    return f"exhaustive_k{k:02d}"


def plan(section: dict) -> list[dict]:
    """Shard specs: exhaustive rank ranges, seeded samples, then the basin job (second stage)."""
    section = section or {}
    specs: list[dict] = []
    ex = section.get("exhaustive") or {}
    per_shard = int(ex.get("deals_per_shard", 20_000_000))
    for k in exhaustive_sizes(section):
        total = canonical_deals(k)
        name = exhaustive_experiment(k)
        for shard, (r0, r1) in enumerate(split_range(total, max(1, math.ceil(total / per_shard)))):
            specs.append({"experiment": name, "variant": "canonical", "shard": shard, "kind": "exhaustive",
                          "k": k, "ranks": [r0, r1], "work": r1 - r0})
    for i, exp in enumerate(section.get("experiments") or []):
        name, k, balanced = exp["name"], int(exp["k"]), bool(exp.get("balanced", True))
        if name.startswith("exhaustive_") or name == BASIN_EXPERIMENT:
            raise CardlabError(f"redblack.experiments[{i}].name: {name!r} is reserved "
                               "(exhaustive_* and basins name the other jobs); choose another name")
        variant = "balanced" if balanced else "any_split"
        root = int(exp["seed"])
        for shard, (d0, d1) in enumerate(split_range(int(exp["deals"]), int(exp.get("shards", 1)))):
            specs.append({"experiment": name, "variant": variant, "shard": shard, "kind": "sample",
                          "k": k, "balanced": balanced, "root_seed": root,
                          "seed": shard_seed(root, GAME, name, variant, shard),
                          "seed_derivation": seed_derivation(root, GAME, name, variant, shard),
                          "range": [0, d1 - d0], "work": d1 - d0})
    if section.get("basins", True) and specs:
        # One job for the cycles of every experiment: a cycle met by several shards or
        # experiments is enumerated once, and a job costs seconds of start-up on its own.
        specs.append({"experiment": BASIN_EXPERIMENT, "variant": BASIN_VARIANT, "shard": 0, "kind": "basin",
                      "max_states": int(section.get("basin_max_states", 50_000_000)),
                      "work": 1})
    return specs


BASIN_EXPERIMENT, BASIN_VARIANT = "basins", "all"


def basin_sources(plan_: Sequence[dict]) -> list[dict]:
    """The search shards whose infinite deals the basin job reads: all of them."""
    return [s for s in plan_ if s["kind"] != "basin"]


def run_shard(spec: dict, progress, inputs: Sequence[str]) -> dict[str, dict]:
    kind = spec.get("kind")
    if kind == "exhaustive":
        r0, r1 = spec["ranks"]
        res = search_range(int(spec["k"]), int(r0), int(r1), progress)
        return search_tables(spec, res, "exhaustive", True, canonical_deals(int(spec["k"])), r0, r1)
    if kind == "sample":
        d0, d1 = spec["range"]
        res = sample_range(int(spec["k"]), int(spec["seed"]), int(d0), int(d1), bool(spec["balanced"]), progress)
        return search_tables(spec, res, "sample", bool(spec["balanced"]), int(d1) - int(d0), d0, d1)
    if kind == "basin":
        return basin_tables(spec, inputs, progress)
    raise CardlabError(f"redblack: unknown shard kind {kind!r}")


def search_tables(spec: dict, res: SearchResult, method: str, balanced: bool, space: int,
                  start: int, stop: int) -> dict[str, dict]:
    common = {"experiment": spec["experiment"], "method": method, "k": int(spec["k"]),
              "balanced": balanced, "shard": int(spec["shard"])}
    rounds = np.flatnonzero(res.lengths)
    infinite = sorted(res.infinite, key=lambda r: (r["p1"], r["p2"], r["deal_index"]))
    return {
        "redblack_counts": {**{c: [v] for c, v in common.items()},
                            "range_start": [int(start)], "range_stop": [int(stop)], "space": [int(space)],
                            "deals": [res.deals], "finite": [res.finite], "infinite": [res.infinite_count],
                            "longest_rounds": [res.longest_rounds],
                            "longest_p1": [res.longest_deal[0]], "longest_p2": [res.longest_deal[1]]},
        "redblack_hist": {**{c: [v] * len(rounds) for c, v in common.items()},
                             "rounds": rounds.astype(np.int32), "deals": res.lengths[rounds]},
        "redblack_found": {**{c: [v] * len(infinite) for c, v in common.items()},
                           **{c: [r[c] for r in infinite] for c in
                              ("deal_index", "p1", "p2", "cycle_id", "rounds_before_cycle", "period")}},
    }


def read_cycle_ids(inputs: Sequence[str]) -> list[str]:
    """Distinct cycle ids in search shard files (their redblack_found tables)."""
    from .store import read_meta, read_table

    ids: set[str] = set()
    for path in inputs:
        if read_meta(path).get("table") != "redblack_found":
            continue
        ids.update(read_table(path).column("cycle_id").to_pylist())
    return sorted(ids)


def basin_tables(spec: dict, inputs: Sequence[str], progress=None) -> dict[str, dict]:
    cycles = {c: [] for c in TABLES["redblack_basins"].names}
    deals = {c: [] for c in TABLES["redblack_basin_deals"].names}
    ids = read_cycle_ids(inputs)
    if progress is not None:  # the cycles are only known now, from the search shards
        progress.total, progress.unit = max(1, len(ids)), "cycles"
    for cid in ids:
        bas = basin(cid, int(spec.get("max_states", 50_000_000)))
        row = {"experiment": spec["experiment"], "k": bas.cards // 2, "cards": bas.cards,
               "cycle_id": bas.cycle_id, "period": bas.period, "colour_symmetric": bas.symmetric,
               "basin_states": bas.states, "basin_complete": bas.complete, "basin_depth": bas.depth,
               "balanced_deals": len(bas.deals)}
        for c, v in row.items():
            cycles[c].append(v)
        for p1, p2, d in bas.deals:
            for c, v in (("experiment", spec["experiment"]), ("k", bas.cards // 2), ("p1", p1), ("p2", p2),
                         ("cycle_id", bas.cycle_id), ("rounds_before_cycle", d)):
                deals[c].append(v)
        if progress is not None:
            progress.update(1)
    return {"redblack_basins": cycles, "redblack_basin_deals": deals}
