"""Plain-Python reference: a direct reading of the seed's Ruby program, plus the other rule choices.

Slow and obvious on purpose; tests compare the kernel with it (rules: :mod:`.rules`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import CARDS_PER_DEAL, SECONDS_PER_GATHER, Rules


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
