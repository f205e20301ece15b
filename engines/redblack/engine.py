"""The RedBlack engine: exhaustive rank-range shards, seeded sample shards, cost windows, audits of lists,
then one basin job.

The shard kinds live in ``kinds/``: ``search.py`` (exhaustive, sample), ``windows.py``
(cost windows) and ``basin.py`` (basin, audit); their tables in ``tables.py``.
"""

from __future__ import annotations

from pathlib import Path

from ..core.rng import bounded_py, stream_start_py
from ..interface import Engine, ReportFile
from .kernel import play
from .kinds.basin import Audit, Basin
from .kinds.search import SEARCH_RESULT_VERSION, ExhaustiveSearch, SampleSearch
from .kinds.windows import CostWindows
from .reference import play_reference
from .tables import TABLES

__all__ = ["SEARCH_RESULT_VERSION", "TABLES", "RedBlackEngine"]


class RedBlackEngine(Engine):
    name = "redblack"
    title = "RedBlack"
    question = "Which deals never end, and does one exist for a full deck?"
    work_unit = "deals"
    tables = TABLES
    # planning order: the basin job reads the search shards planned before it
    kinds = (ExhaustiveSearch(), SampleSearch(), CostWindows(), Audit(), Basin())
    sharded_field = "deals"
    report_files = (
        ReportFile("infinite_games.md"),
        ReportFile("infinite_games.csv", "infinite_games"),
        ReportFile("redblack_cycles.csv", "redblack_cycles"),
        ReportFile("redblack_infinite_share.png", "redblack_infinite_share"),
        ReportFile("redblack_lengths.png", "redblack_lengths"),
        ReportFile("redblack_cost_windows.png", "redblack_cost_windows"),
    )
    figure_basis = {
        "redblack_infinite_share": (
            "SELECT coalesce(sum(deals) FILTER (WHERE method = 'exhaustive'), 0), "
            "coalesce(sum(deals) FILTER (WHERE method = 'sample'), 0) FROM redblack_summary",
            "{0:,} deals searched exhaustively and {1:,} sampled",
        ),
        "redblack_lengths": ("SELECT coalesce(sum(deals), 0) FROM redblack_lengths", "{0:,} finite deals"),
        "redblack_cost_windows": (
            "SELECT count(*), coalesce(sum(deals), 0) FROM redblack_cost_windows",
            "{0:,} timed cost windows, {1:,} deals",
        ),
    }

    def reference_checks(self, n: int):
        """Kernel against the plain-Python reference on seeded random deals of every size up to 8 cards a player."""
        state = stream_start_py(2026, 0)
        for i in range(n):
            state, k = bounded_py(state, 8)
            cards = []
            for _ in range(2 * (k + 1)):
                state, c = bounded_py(state, 2)
                cards.append(str(c))
            p1, p2 = "".join(cards[: k + 1]), "".join(cards[k + 1 :])
            yield f"{p1} {p2}", play(p1, p2), play_reference(p1, p2)

    def tiny_config(self) -> dict:
        published = Path(__file__).resolve().parents[2] / "workflow" / "data" / "redblack" / "published_infinite.txt"
        return {
            "exhaustive": [
                {"k_min": 1, "k_max": 6, "method": "brute", "deals_per_shard": 100},
                {"k": [8], "method": "owner", "deals_per_shard": 1000},
            ],
            "audit": [{"name": "published", "file": str(published)}],
            "basins": True,
            "experiments": [{"name": "sample26", "k": 26, "deals": 50, "shards": 2, "seed": 3}],
            "cost_windows": {"k": 10, "windows": 2, "window": 100, "seed": 4},
        }
