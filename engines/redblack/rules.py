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

from ..core.errors import CardlabError

K_MAX = 26  # a full deck; 2k bits must fit the int64 kernel state

# A basin walk stops after this many states (and says so) unless told otherwise.
BASIN_MAX_STATES = 50_000_000

# Round outcomes returned by the kernel's round function.
OTHER_LOST = 0  # the leader keeps the lead
LEADER_LOST = 1  # the lead passes to the other player
LEADER_OUT = 2  # game over: the leader played their last card
OTHER_OUT = 3  # game over: the other player played their last card


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


def rank_deal(p1: str, p2: str) -> int:
    """A canonical balanced deal's rank, its place in the search order (inverse of ``unrank_deal``):
    the colex rank of its black cards after player 1's red top card."""
    s = to_bits(p1 + p2) >> 1
    ones = [i for i in range(2 * len(p1) - 1) if (s >> i) & 1]
    return sum(math.comb(c, i + 1) for i, c in enumerate(ones))


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


@dataclass(frozen=True)
class Outcome:
    """How a deal plays out: finished after ``rounds`` won by ``winner``, or a cycle."""

    finished: bool
    rounds: int  # finished: rounds played; infinite: rounds before the cycle
    winner: int = 0  # 1 or 2 when finished
    period: int = 0  # cycle length in rounds (labelled game) when infinite
    cycle_id: str = ""


def deal_strings(s: int, a: int, n: int) -> tuple[str, str]:
    """A state's bits (leader in bits 0..a-1, the other's n-a cards above) as two deck strings."""
    return to_str(s & ((1 << a) - 1), a), to_str(s >> a, n - a)
