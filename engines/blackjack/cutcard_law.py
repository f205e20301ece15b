"""One cut-card setting's dealer law, by the best method that reaches it (``cardlab blackjack cutcard``).

Exact fractions (:mod:`.cutcard_exact`) where the cut is shallow enough, the forward pass over
compositions (:mod:`.cutcard_curve`, float64) for any cut of one deck, seeded simulation
(:mod:`.cutcard`) otherwise or when asked: the answer says which, with its error (a bound, or a
95 % interval).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from ..core.errors import CardlabError
from ..core.stats import Z95
from .cutcard import check_cut, shoe_of_decks, simulate_cutcard
from .cutcard_curve import cut_curve
from .cutcard_exact import check_exact, exact_rounds
from .rules import OUTCOMES

CURVE_DECKS = 1  # the forward pass holds one deck's compositions (two: 1.28e10)


@dataclass(frozen=True)
class CutcardLaw:
    """The dealer's outcome law per round dealt (``average``) and per round number (``rounds``: (r, P(round r
    dealt), law)) at one cut, how it was found (``method``) and its error (``half_width`` per outcome of a
    simulation's 95 % interval, or ``relative_error``, a bound of the float64 pass; neither: exact)."""

    method: str
    rounds_per_shoe: float
    average: list[float]
    per_round: list[tuple[int, float, list[float]]]
    exact: list[Fraction] | None = None
    half_width: list[float] | None = None
    relative_error: float | None = None


def exact_law(decks: int, cut: int, players: int, soft17: str, by_round: bool, notice=None) -> CutcardLaw:
    """Exact fractions where the layered DP reaches the cut, else the forward pass (one deck only;
    ``notice(words)`` is told before it starts, as it takes minutes)."""
    shoe = shoe_of_decks(decks)
    if not fractions_reach(shoe, cut, players, soft17):
        if decks > CURVE_DECKS:
            most = next(c for c in range(cut, 0, -1) if fractions_reach(shoe, c, players, soft17))
            raise CardlabError(
                f"cutcard: {decks} decks at cut {cut}: exact fractions reach cuts of at most {most} cards, and the "
                "forward pass over compositions takes one deck (two have 1.28e10 compositions); simulate instead "
                "(--shoes N)"
            ) from None
        if notice:
            cost = "about 10 CPU-minutes" if by_round else "about 1.5 CPU-minutes"
            notice(f"cutcard: the forward pass over one deck's 33,203,125 compositions ({cost}, 4 GB) ...")
        curve = cut_curve(shoe, players, soft17, layered=by_round, up_to=cut)
        per_round = [(r + 1, d, list(law)) for r, (d, law) in enumerate(curve.per_round(cut))] if by_round else []
        return CutcardLaw(
            "exact: a forward pass over the deck's 33,203,125 compositions (float64)",
            curve.rounds(cut), list(curve.average(cut)), per_round, relative_error=curve.relative_error,
        )  # fmt: skip
    law = exact_rounds(shoe, cut, players, soft17)
    per_round = [
        (r + 1, float(d), [float(p) for p in row]) for r, (d, row) in enumerate(zip(law["dealt"], law["outcomes"]))
    ]
    return CutcardLaw(
        "exact: fractions of the layered dynamic programme", float(law["rounds"]),
        [float(p) for p in law["average"]], per_round if by_round else [], exact=list(law["average"]),
    )  # fmt: skip


def fractions_reach(shoe, cut: int, players: int, soft17: str) -> bool:
    try:
        check_exact(shoe, cut, players, soft17)
    except CardlabError:
        return False
    return True


def simulated_law(decks: int, cut: int, players: int, soft17: str, shoes: int, seed: int) -> CutcardLaw:
    """``shoes`` seeded shoes (shoe i from stream (seed, i), as in a cut-card shard): shares and 95 % intervals
    of the per-round-dealt law (a ratio of two sums over shoes, its variance from the shoes' moments)."""
    if shoes < 1:
        raise CardlabError(f"cutcard: --shoes must be at least 1, got {shoes}")
    counts, moments = simulate_cutcard(seed, shoe_of_decks(decks), cut, players, soft17, shoes)
    rounds = int(counts.sum())
    mean_rounds = rounds / shoes
    average, half = [], []
    for o in range(len(OUTCOMES)):
        share = counts[:, o].sum() / rounds
        x2, xy, y2 = (float(v) for v in (moments[o, 0], moments[o, 1], moments[-1, 0]))
        var = max(x2 - 2 * share * xy + share * share * y2, 0.0) / shoes / mean_rounds**2
        average.append(float(share))
        half.append(Z95 * math.sqrt(var / shoes))
    per_round = [
        (r + 1, float(row.sum() / shoes), [float(c / row.sum()) for c in row])
        for r, row in enumerate(counts.astype(np.float64))
        if row.sum()
    ]
    return CutcardLaw(
        f"simulated: {shoes:,} seeded shoes (seed {seed})", mean_rounds, average, per_round, half_width=half
    )


def cutcard_law(
    decks: int, cut: int, players: int, soft17: str, method: str, by_round: bool, shoes: int, seed: int, notice=None
) -> CutcardLaw:
    """``method``: exact, simulate, or auto (exact where it can be: one deck, or a shallow cut; else simulated)."""
    shoe = shoe_of_decks(decks)
    check_cut(shoe, cut, players, soft17)
    if method == "simulate" or (
        method == "auto" and decks > CURVE_DECKS and not fractions_reach(shoe, cut, players, soft17)
    ):
        law = simulated_law(decks, cut, players, soft17, shoes, seed)
        return law if by_round else replace(law, per_round=[])
    return exact_law(decks, cut, players, soft17, by_round, notice)
