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
from .cutcard import BLOCK_SHOES, check_cut, max_dealer_cards, shoe_of_decks, simulate_cutcard
from .cutcard_bounds import MAX_SHOES
from .cutcard_curve import cut_curve
from .cutcard_exact import MAX_EXACT_CARDS, check_exact, exact_rounds
from .rules import OUTCOMES

# The fractions' multisets hold up to cut - 1 + players + the dealer's most cards; at 19 or 20 (the deepest they
# reach) they took 15-60 CPU-s here (2 decks cut 10: 61 s, 1 deck cut 11: 38 s, 8 decks cut 9: 22 s), at 18 3 s
SLOW_FRACTION_CARDS = MAX_EXACT_CARDS - 1
CURVE_DECKS = 1  # the forward pass holds one deck's compositions (two: 1.28e10)
PASS_METHOD = "exact: a forward pass over the deck's 33,203,125 compositions (float64)"
# Shoes simulated a call: the kernel allocates counts per block of shoes, so memory stays at a few MB
# however many shoes are asked for (one call for all of 10^9 shoes would want GBs).
CHUNK_SHOES = BLOCK_SHOES * 256


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


def exact_law(decks: int, cut: int, players: int, soft17: str, by_round: bool, notice=None, kept=None) -> CutcardLaw:
    """Exact fractions where the layered DP reaches the cut, else the forward pass (one deck only;
    ``notice(words)`` is told before it starts, as it takes minutes), or the pass's kept answer when
    ``kept(decks, cut, players, soft17, by_round)`` has one (a law, else None)."""
    shoe = shoe_of_decks(decks)
    if not fractions_reach(shoe, cut, players, soft17):
        if decks > CURVE_DECKS:
            most = next(c for c in range(cut, 0, -1) if fractions_reach(shoe, c, players, soft17))
            raise CardlabError(
                f"cutcard: {decks} decks at cut {cut}: exact fractions reach cuts of at most {most} cards, and the "
                "forward pass over compositions takes one deck (two have 1.28e10 compositions); simulate instead "
                "(--shoes N)"
            ) from None
        if kept is not None and (law := kept(decks, cut, players, soft17, by_round)) is not None:
            return law
        if notice:
            cost = "about 10 CPU-minutes" if by_round else "about 1.5 CPU-minutes"
            notice(f"cutcard: the forward pass over one deck's 33,203,125 compositions ({cost}, 4 GB) ...")
        curve = cut_curve(shoe, players, soft17, layered=by_round, up_to=cut)
        per_round = [(r + 1, d, list(law)) for r, (d, law) in enumerate(curve.per_round(cut))] if by_round else []
        return CutcardLaw(
            PASS_METHOD, curve.rounds(cut), list(curve.average(cut)), per_round, relative_error=curve.relative_error,
        )  # fmt: skip
    cards = cut - 1 + players + max_dealer_cards(shoe, soft17)
    if notice and cards >= SLOW_FRACTION_CARDS:
        notice(f"cutcard: exact fractions over multisets of up to {cards} cards (up to about a CPU-minute) ...")
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
    if not 2 <= shoes <= MAX_SHOES:
        raise CardlabError(
            f"cutcard: {shoes} shoes: an interval needs at least 2 shoes, and at most {MAX_SHOES:,} are simulated "
            f"in one go; use 2..{MAX_SHOES:,}"
        )
    counts, moments = simulated_counts(decks, cut, players, soft17, shoes, seed)
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


def simulated_counts(
    decks: int, cut: int, players: int, soft17: str, shoes: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.cutcard.simulate_cutcard`'s counts and moments of shoes [0, shoes), a chunk of shoes a call
    (shoe i uses stream (seed, i) whatever the chunks, so the sums are the same)."""
    shoe = shoe_of_decks(decks)
    counts, moments = simulate_cutcard(seed, shoe, cut, players, soft17, min(shoes, CHUNK_SHOES))
    for first in range(CHUNK_SHOES, shoes, CHUNK_SHOES):
        more = simulate_cutcard(seed, shoe, cut, players, soft17, min(CHUNK_SHOES, shoes - first), first=first)
        counts, moments = counts + more[0], moments + more[1]
    return counts, moments


def cutcard_law(
    decks: int,
    cut: int,
    players: int,
    soft17: str,
    method: str,
    by_round: bool,
    shoes: int,
    seed: int,
    notice=None,
    kept=None,
) -> CutcardLaw:
    """``method``: exact, simulate, or auto (exact where it can be: one deck, or a shallow cut; else simulated);
    ``kept``: where the forward pass has kept its answer (see :func:`exact_law`)."""
    shoe = shoe_of_decks(decks)
    check_cut(shoe, cut, players, soft17)
    if method == "simulate" or (
        method == "auto" and decks > CURVE_DECKS and not fractions_reach(shoe, cut, players, soft17)
    ):
        law = simulated_law(decks, cut, players, soft17, shoes, seed)
        return law if by_round else replace(law, per_round=[])
    return exact_law(decks, cut, players, soft17, by_round, notice, kept)


KEPT_CURVE = """
SELECT experiment, round, outcome_order, dealt, probability, relative_error FROM blackjack_cutcard_curve
WHERE TRY_CAST(decks AS DOUBLE) = ? AND players = ? AND soft17 = ? AND cut = ?
ORDER BY experiment, round, outcome_order
"""  # decks compared as a number: the column held text ('1', '0.5') before it held numbers


def kept_curve_law(con, decks: int, cut: int, players: int, soft17: str, by_round: bool) -> CutcardLaw | None:
    """The forward pass's answer at this setting from a warehouse's kept curve (``blackjack_cutcard_curve``
    over connection ``con``), or None where it keeps none (with ``by_round``: none counted by round number)."""
    known = "SELECT count(*) FROM information_schema.tables WHERE table_name = 'blackjack_cutcard_curve'"
    if not con.execute(known).fetchone()[0]:
        return None
    found: dict[str, dict[int, list[tuple]]] = {}
    for exp, rnd, o, dealt, p, err in con.execute(KEPT_CURVE, [float(decks), players, soft17, cut]).fetchall():
        found.setdefault(exp, {}).setdefault(rnd, []).append((o, dealt, p, err))
    for rounds in found.values():
        whole = all([o for o, *_ in rows] == list(range(len(OUTCOMES))) for rows in rounds.values())
        if whole and 0 in rounds and (len(rounds) > 1 or not by_round):
            return law_of_kept_rows(rounds, by_round)
    return None


def law_of_kept_rows(rounds: dict[int, list[tuple]], by_round: bool) -> CutcardLaw:
    """A law from one kept curve's rows at one cut: round -> [(outcome order, dealt, probability, bound)]."""
    average = rounds[0]
    per_round = [(r, float(rows[0][1]), [float(p) for _, _, p, _ in rows]) for r, rows in sorted(rounds.items()) if r]
    return CutcardLaw(
        f"{PASS_METHOD}, kept in the warehouse", float(average[0][1]), [float(p) for _, _, p, _ in average],
        per_round if by_round else [], relative_error=float(average[0][3]),
    )  # fmt: skip
