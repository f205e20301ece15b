"""Plain-Python reference of the RedBlack rules (:mod:`.rules`): lists, one card at a time; used by tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .rules import LEADER_LOST, LEADER_OUT, OTHER_LOST, OTHER_OUT, Outcome, to_bits


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
            decks[turn].extend(pile)  # loser picks up, first played card highest
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
        pile, rest = other[b - m :], other[: b - m]
        c = pile[0]
        if pile != c * (m - 1) + ("1" if c == "0" else "0"):
            continue
        off = pile[-1]
        if m % 2 == 0:  # other lost: leader played m/2 cards, other m/2
            j = (m - 2) // 2
            out.append((c * (j + 1) + leader, c * j + off + rest))
        else:  # leader lost: played (m+1)/2 cards, other (m-1)/2
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
                yield (show(decks[1]), show(decks[2]), "-", f"Player {turn} picks up, player {leading} to go")
                break
            if not decks[turn]:
                yield show(decks[1]), show(decks[2]), show(pile), f"Player {turn} has no cards left and wins"
                return
            turn = 3 - turn
