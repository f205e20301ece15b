"""Where a campaign of one size stands: its finished shards, the windows they make, the ranks left.

A campaign searches a size's ranks shard by shard on one grid and widens them session by
session; its ledger (engines/core/ledger.py) keeps the shards it computed.  This reads only
``results/``: a shard is finished when all its search tables are there and intact (their
counts row says which ranks it searched), and its job's timing record says what it cost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ...campaign.state import CampaignState, Covered, FinishedShard, read_state
from ...core.errors import CardlabError
from ...core.fmt import duration, plural
from ...core.layout import RESULTS
from ...core.runs import runs_text
from ...core.store import read_table
from ..kinds.search import EXHAUSTIVE_VARIANT
from ..rules import K_MAX
from .next import campaign_of, size_of

COUNTS = "redblack_counts"


def campaign_state(
    k: int, method: str = "owner", results: str | Path = RESULTS, timing: Callable[[str], dict | None] | None = None
) -> CampaignState:
    """Read a size's finished exhaustive shards of one method from a results tree (every table verified).

    timing reads a job log's timing record (the pipeline's ``read_timing``, which this layer
    cannot import); without it the shards' CPU time is unknown."""
    if not 1 <= k <= K_MAX:
        raise CardlabError(f"K must be between 1 and {K_MAX}, got {k}")
    if method not in EXHAUSTIVE_VARIANT:
        raise CardlabError(f"method must be one of {', '.join(EXHAUSTIVE_VARIANT)}, got {method!r}")
    root = str(results)
    if not Path(root).is_dir():
        raise CardlabError(f"{root}: no such results directory")
    campaign = campaign_of(k, method, root)

    def covered(n: int) -> Covered:
        """A shard whose tables are all there: each one checked byte for byte, the counts row read."""
        files = dict(zip(campaign.tables, campaign.files(n, root), strict=True))
        for table, path in files.items():
            if table != COUNTS:
                read_table(path)
        row = read_table(files[COUNTS]).select(["range_start", "range_stop"]).to_pylist()
        if len(row) != 1:
            raise CardlabError(f"{files[COUNTS]}: expected one counts row, found {len(row)}")
        return Covered(int(row[0]["range_start"]), int(row[0]["range_stop"]))

    return read_state(campaign, root, covered, timing)


def _cpu_text(hours: float) -> str:
    return f"{hours:,.2f} core-hours" if hours >= 1 else f"{duration(hours * 3600)} of one core"


def _gpu_lines(state: CampaignState) -> list[str]:
    """The shards computed on a GPU, by device: how many and their wall time (never core-hours)."""
    devices: dict[str, list[FinishedShard]] = {}
    for s in state.gpu_shards:
        devices.setdefault(str(s.machine), []).append(s)
    return [
        f"  GPU: {plural(len(done), 'shard')} in {duration(sum(s.wall_s or 0.0 for s in done))} on {name}"
        for name, done in devices.items()
    ]


def _machines(state: CampaignState) -> str:
    """Which kinds of CPU the timed shards ran on (CPU seconds compare only within one kind)."""
    kinds: dict[str, int] = {}
    for s in state.shards:
        if s.cpu_s is not None and not s.on_gpu:
            name = s.machine or "a CPU the timing record does not name"
            kinds[name] = kinds.get(name, 0) + 1
    return "; ".join(f"{n:,} on {name}" for name, n in sorted(kinds.items(), key=lambda kv: -kv[1])) or "none timed"


def cost_left_text(state: CampaignState, coverage: dict, costs: Sequence, line: Callable, warehouse: str) -> str | None:
    """The rest's cost as the report gives it (the report's ``costs_to_finish``, one per kind of CPU, and its
    ``cost_line``), brought to the shards finished since the warehouse was built: a rate per deal times
    the deals left, so the same warehouse and the same shards give the report's figure exactly."""
    if not costs or coverage.get("complete"):
        return None
    then = coverage["canonical_deals"] - (coverage["ranks_searched"] - coverage["window_only_ranks"])
    now = state.total - state.covered
    priced = [c if now == then else c.with_deals_left(c.deals_left * now // then) for c in costs]
    text = f"  cost to finish, one figure per kind of machine, a GPU its own (the report's; {warehouse}"
    if now != then:
        text += f", built when {then:,} deals were left: `snakemake --cores all` remeasures"
    return text + "):" + "".join(f"\n    {line(c)}" for c in priced)


def describe(
    state: CampaignState, results: str | Path = RESULTS, cost: str | None = None, book: Sequence[str] = ()
) -> list[str]:
    """What `cardlab redblack campaign` prints: coverage, cost so far, the windows searched, ``book`` (the
    config's block and the ledger, as lines), what is left and, given the warehouse's `cost_left_text`,
    what the rest costs."""
    k, method = size_of(state.campaign)
    rule = "owner rule" if method == "owner" else "brute force"
    if not state.shards:
        lines = [f"k = {k} ({rule}): no finished shard under {results}/ ({state.total:,} canonical deals to search)"]
        return lines + list(book) + [f"incomplete: {u} (rerun it)" for u in state.unfinished] + ([cost] if cost else [])
    share = 100 * state.covered / state.total
    d = state.per_shard
    grid = f"{d:,} deals per shard" if d else "one shard holding the whole size"
    lines = [
        f"k = {k} ({rule}): {plural(len(state.shards), 'shard')} finished, {grid}",
        f"  searched: {state.covered:,} of {state.total:,} canonical deals ({share:.1f} %)",
        f"  CPU: {_cpu_text(state.cpu_hours)} in the timing records of {state.timed:,} of them; {_machines(state)}",
        *_gpu_lines(state),
        "  windows searched: [" + ", ".join(f"[{a}, {b}]" for a, b in state.windows) + "]",
        *book,
    ]
    if state.gaps:
        left = state.total - state.covered
        count = sum(b - a + 1 for a, b in state.shards_left())
        lines += [
            "  proves: every cycle whose smallest basin deal has a rank in those windows is found",
            f"  left: {left:,} deals ({100 - share:.1f} %), shards {runs_text(state.shards_left())} ({plural(count, 'shard')})",
        ]
        lines += [cost] if cost else []
    else:
        lines.append(f"  complete: every rank of k = {k} is searched, so its list of infinite deals is complete")
    lines += [f"  incomplete: {u} (rerun it)" for u in state.unfinished]
    return lines
