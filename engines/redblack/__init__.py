"""RedBlack: rules and notation (:mod:`.rules`), reference, kernel, exhaustive search, sampling, basins.

The names below are the package's public API (outside benchmark scripts import them).
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

# name -> the submodule defining it, imported on first use
_EXPORTS = {
    "LEADER_OUT": "rules",
    "parse_cycle_id": "rules",
    "Basin": "basins",
    "basin": "basins",
    "predecessors": "basins",
    "play": "kernel",
    "round_kernel": "kernel",
    "play_reference": "reference",
    "predecessors_reference": "reference",
    "round_reference": "reference",
    "trace_reference": "reference",
    "K_MAX": "rules",
    "Outcome": "rules",
    "canonical": "rules",
    "canonical_deals": "rules",
    "colour_swap": "rules",
    "parse_deal": "rules",
    "rank_deal": "rules",
    "to_bits": "rules",
    "to_str": "rules",
    "sample_deal": "sample",
    "sample_range": "sample",
    "SearchResult": "results",
    "search": "exhaustive",
    "search_range": "exhaustive",
    "unrank_deal": "ranks",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
