"""Audit a list of claimed infinite deals: replay each exactly, and walk the basin of every cycle reached.

What an audit proves, per size k: which listed deals are infinite (each replayed to a
repeated state: an exact cycle, no round limit) and which are finite; and, because a
basin walk is complete, every balanced deal in the basin of a cycle some listed deal
reaches, so the infinite deals the list misses *in those basins*.  It does not prove a
list complete for a size: only an exhaustive search of that size does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import CardlabError
from .basins import basin
from .kernel import play
from .rules import BASIN_MAX_STATES, canonical, parse_deal

LISTED_INFINITE, LISTED_FINITE, MISSING = "listed-infinite", "listed-finite", "missing"
MAX_LIST_LINES = 1_000_000  # a list longer than this is refused (each deal is replayed)


@dataclass(frozen=True)
class AuditRow:
    k: int  # cards per player (0 when the two hands differ in size)
    p1: str
    p2: str
    status: str  # listed-infinite, listed-finite or missing
    cycle_id: str  # the cycle the deal enters ('' for a finite deal)
    period: int  # the cycle's period in rounds (0 for a finite deal)
    rounds: int  # rounds before the cycle, or rounds to the end of a finite game


def read_deal_list(path: str | Path) -> list[tuple[str, str]]:
    """``P1 P2`` per line; ``#`` comments and blank lines ignored; a bad line is named."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CardlabError(f"{path}: deal list not found") from None
    except UnicodeDecodeError as exc:
        raise CardlabError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    deals = []
    for number, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0].split()
        if not body:
            continue
        if len(body) != 2:
            raise CardlabError(f"{path}:{number}: expected two decks 'P1 P2', got {line.strip()!r}")
        try:
            deals.append(parse_deal(body[0], body[1]))
        except CardlabError as exc:
            raise CardlabError(f"{path}:{number}: {exc}") from None
        if len(deals) > MAX_LIST_LINES:
            raise CardlabError(f"{path}: more than {MAX_LIST_LINES:,} deals; split the list")
    if not deals:
        raise CardlabError(f"{path}: no deals (one 'P1 P2' per line, 0 red 1 black, top card first)")
    return deals


def list_digest(path: str | Path) -> str:
    """sha256 of a list file: an audit is recomputed when its list changes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def audit(deals: Iterable[tuple[str, str]], max_states: int = BASIN_MAX_STATES, progress=None) -> list[AuditRow]:
    """One row per distinct listed deal (as listed), then one per missing canonical balanced deal.

    A listed deal and its colour swap are the same game: the swap of a listed deal is
    never reported missing."""
    rows: list[AuditRow] = []
    listed_canonical: set[tuple[str, str]] = set()
    cycles: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    for p1, p2 in deals:
        if (p1, p2) in seen:
            continue
        seen.add((p1, p2))
        listed_canonical.add(canonical(p1, p2))
        outcome = play(p1, p2)
        k = len(p1) if len(p1) == len(p2) else 0
        if outcome.finished:
            rows.append(AuditRow(k, p1, p2, LISTED_FINITE, "", 0, outcome.rounds))
        else:
            rows.append(AuditRow(k, p1, p2, LISTED_INFINITE, outcome.cycle_id, outcome.period, outcome.rounds))
            cycles.setdefault(outcome.cycle_id, len(p1) + len(p2))
        if progress is not None:
            progress.update(1)
    for cycle_id in sorted(cycles):
        bas = basin(cycle_id, max_states)
        if not bas.complete:
            raise CardlabError(
                f"the basin of cycle {cycle_id} has more than {max_states:,} states; raise basin_max_states "
                "(an audit must see the whole basin to name what a list misses)"
            )
        for p1, p2, depth in bas.deals:
            if (p1, p2) not in listed_canonical:
                rows.append(AuditRow(len(p1), p1, p2, MISSING, bas.cycle_id, bas.period, depth))
    return rows
