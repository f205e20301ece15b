"""The options of ``cardlab verify --recompute``: light (argparse types only), so the parser adds them
without loading the recompute machinery (engines/pipeline/trust/recompute.py), which reads them back."""

from __future__ import annotations

from typing import Any

from ...core import argtypes
from ...core.layout import RESULTS

MAX_CPU_S = argtypes.TEN_YEARS_S  # ten years of one core: a budget beyond any recompute, and still a bound

ALLOW_UNPRICED = "--allow-unpriced"


def draw_or_path(text: str) -> str:
    """``--recompute``'s words: ``all``, a number of shards to draw (at least 1), or a shard file."""
    if text.strip().isdigit():
        return str(argtypes.integer(1, None, " shards to draw")(text))
    return text


def add_recompute_options(parser: Any) -> None:
    g = parser.add_argument_group("recomputing shards to compare (independent checks)")
    g.add_argument(
        "--recompute",
        nargs="+",
        metavar="N|all|PATH",
        type=draw_or_path,
        help="compute shards again in a scratch directory and compare them with results/: N drawn at "
        "random from the plan, all, or the shard files named",
    )
    g.add_argument("--seed", type=argtypes.seed, default=0, help="seed of the random draw (default: %(default)s)")
    g.add_argument(
        "--cores", type=argtypes.cores, default=1, help="shards recomputed side by side (default: %(default)s)"
    )
    g.add_argument(
        "--max-cpu-s",
        type=argtypes.real(0, MAX_CPU_S, " CPU seconds", open_lo=True),
        default=None,
        help="leave out drawn shards once their timing records' CPU seconds would pass this budget; a shard "
        "its record cannot price (computed on a GPU) counts as over it",
    )
    g.add_argument(
        ALLOW_UNPRICED,
        action="store_true",
        help="with --max-cpu-s: recompute the shards no timing record prices too (asked on a terminal)",
    )
    g.add_argument(
        "--no-record",
        action="store_true",
        help=f"do not add the checks of kept campaign shards to {RESULTS}/checks/ (the reports' record)",
    )
