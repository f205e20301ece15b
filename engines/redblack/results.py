"""What a RedBlack search produces (an exhaustive rank range or a sample), as one value."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SearchResult:
    """Everything one search (exhaustive range or sample) produces."""

    k: int
    deals: int
    finite: int
    lengths: np.ndarray  # lengths[r] = finite games of r rounds
    longest_rounds: int
    longest_deal: tuple[str, str]
    infinite: list[dict]  # p1, p2 (canonical), deal_index, cycle_id, rounds_before_cycle, period
    # Method "owner" stops deals whose game merges into a smaller deal's: their length is
    # not known, so finite/lengths/longest count only games played to the end, and
    # `infinite` lists only the unstopped deals that reached a cycle (the complete list is
    # the balanced deals in the basins of their cycles).
    stopped: int = 0
    rounds: int = 0  # rounds the search played (every deal to its end, stop or cycle check)
    method: str = "brute"

    @property
    def infinite_count(self) -> int:
        return self.deals - self.finite - self.stopped
