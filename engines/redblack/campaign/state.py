"""Where a campaign of one size stands: its finished shards, the windows they make, the ranks left.

A campaign searches a size's ranks shard by shard on one grid and widens them session by
session; its ledger (engines/core/ledger.py) keeps the shards it computed.  This reads only
``results/``: a shard is finished when all its search tables are there and intact (their
counts row says which ranks it searched), and its job's timing record says what it cost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...campaign.book import grid_of
from ...core.errors import CardlabError
from ...core.fmt import duration, plural
from ...core.layout import RESULTS, ShardPlace, log_path, place_path, shards_present
from ...core.store import read_table
from ...kinds import on_gpu
from ..rules import K_MAX, canonical_deals
from ..search_shards import EXHAUSTIVE_VARIANT, exhaustive_experiment
from ..tables import SEARCH_TABLES

GAME = "redblack"
COUNTS = "redblack_counts"


@dataclass(frozen=True)
class FinishedShard:
    """One shard with all its tables: the ranks it searched and, from its timing record, its CPU time."""

    shard: int
    start: int
    stop: int
    cpu_s: float | None
    machine: str | None
    wall_s: float | None = None

    @property
    def on_gpu(self) -> bool:
        """Computed on a GPU: its record's CPU seconds only waited on the device, its wall time is the cost."""
        return on_gpu(self.machine)


@dataclass(frozen=True)
class CampaignState:
    """A size's exhaustive shards of one method under a results tree."""

    k: int
    method: str
    total: int
    shards: list[FinishedShard]
    unfinished: list[str] = field(default_factory=list)  # shards with some table missing, as sentences

    @property
    def deals_per_shard(self) -> int | None:
        """The grid: shard i covers [i * d, (i + 1) * d) (:func:`engines.campaign.book.grid_of`)."""
        return grid_of(self.shards, self.total)

    @property
    def per_shard(self) -> int | None:
        """The grid, as the campaign layer names it (engines/campaign/book.py)."""
        return self.deals_per_shard

    @property
    def windows(self) -> list[tuple[int, int]]:
        """The finished ranks as the fewest windows [start, stop), in rank order."""
        return merge_windows([(s.start, s.stop) for s in self.shards])

    @property
    def searched(self) -> int:
        return sum(s.stop - s.start for s in self.shards)

    @property
    def gaps(self) -> list[tuple[int, int]]:
        """The ranks left, as windows."""
        out, at = [], 0
        for a, b in self.windows:
            if a > at:
                out.append((at, a))
            at = b
        if at < self.total:
            out.append((at, self.total))
        return out

    def shards_left(self) -> list[tuple[int, int]]:
        """The shard numbers of the ranks left, as runs (first, last)."""
        d = self.deals_per_shard
        if d is None:
            return []
        return [(a // d, -(-b // d) - 1) for a, b in self.gaps]

    @property
    def cpu_hours(self) -> float:
        """CPU time of the shards computed on a CPU (a GPU shard's is its wall time, :attr:`gpu_hours`)."""
        return sum(s.cpu_s or 0.0 for s in self.shards if not s.on_gpu) / 3600

    @property
    def timed(self) -> int:
        return sum(s.cpu_s is not None and not s.on_gpu for s in self.shards)

    @property
    def gpu_shards(self) -> list[FinishedShard]:
        return [s for s in self.shards if s.on_gpu]


def merge_windows(windows: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Windows [start, stop) in rank order, adjacent ones joined."""
    runs: list[list[int]] = []
    for a, b in sorted(windows):
        if runs and runs[-1][1] == a:
            runs[-1][1] = b
        else:
            runs.append([a, b])
    return [(a, b) for a, b in runs]


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
    experiment, variant = exhaustive_experiment(k), EXHAUSTIVE_VARIANT[method]
    counts_dir = Path(place_path(ShardPlace(GAME, COUNTS, experiment, variant, 0), root)).parent
    numbers = shards_present(GAME, COUNTS, experiment, variant, root)
    total = canonical_deals(k)
    shards, unfinished = [], []
    for n in numbers:
        missing = [
            t
            for t in SEARCH_TABLES
            if not Path(place_path(ShardPlace(GAME, t, experiment, variant, n), root)).is_file()
        ]
        if missing:
            unfinished.append(f"shard {n} lacks {', '.join(missing)}")
            continue
        shards.append(_finished(root, experiment, variant, n, timing))
    state = CampaignState(k, method, total, shards, unfinished)
    _check_grid(state, counts_dir)
    return state


def _finished(root: str, experiment: str, variant: str, n: int, timing) -> FinishedShard:
    """A shard whose tables are all there: each one checked byte for byte, the counts row read."""
    for table in SEARCH_TABLES:
        if table != COUNTS:
            read_table(place_path(ShardPlace(GAME, table, experiment, variant, n), root))
    path = place_path(ShardPlace(GAME, COUNTS, experiment, variant, n), root)
    row = read_table(path).select(["range_start", "range_stop"]).to_pylist()
    if len(row) != 1:
        raise CardlabError(f"{path}: expected one counts row, found {len(row)}")
    record = (timing(log_path(GAME, experiment, variant, n, root)) if timing else None) or {}
    cpu = record.get("cpu_s")
    start, stop = int(row[0]["range_start"]), int(row[0]["range_stop"])
    return FinishedShard(n, start, stop, cpu, record.get("machine"), record.get("wall_s"))


def _check_grid(state: CampaignState, where: Path) -> None:
    """Every shard on one grid: windows of another deals_per_shard would plan other files."""
    d = state.deals_per_shard
    for s in state.shards:
        if d is None:
            return
        if (s.start, s.stop) != (s.shard * d, min((s.shard + 1) * d, state.total)):
            raise CardlabError(
                f"{where}: shard {s.shard} searched ranks [{s.start:,}, {s.stop:,}), off the grid of "
                f"{d:,} deals per shard the other shards follow; a campaign keeps one deals_per_shard "
                "(move the shards of the other grid out of results/)"
            )


def _runs(pairs: list[tuple[int, int]]) -> str:
    return ", ".join(f"{a}" if a == b else f"{a}..{b}" for a, b in pairs)


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
    now = state.total - state.searched
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
    k, method = state.k, state.method
    rule = "owner rule" if method == "owner" else "brute force"
    if not state.shards:
        lines = [f"k = {k} ({rule}): no finished shard under {results}/ ({state.total:,} canonical deals to search)"]
        return lines + list(book) + [f"incomplete: {u} (rerun it)" for u in state.unfinished] + ([cost] if cost else [])
    share = 100 * state.searched / state.total
    d = state.deals_per_shard
    grid = f"{d:,} deals per shard" if d else "one shard holding the whole size"
    lines = [
        f"k = {k} ({rule}): {plural(len(state.shards), 'shard')} finished, {grid}",
        f"  searched: {state.searched:,} of {state.total:,} canonical deals ({share:.1f} %)",
        f"  CPU: {_cpu_text(state.cpu_hours)} in the timing records of {state.timed:,} of them; {_machines(state)}",
        *_gpu_lines(state),
        "  windows searched: [" + ", ".join(f"[{a}, {b}]" for a, b in state.windows) + "]",
        *book,
    ]
    if state.gaps:
        left = state.total - state.searched
        count = sum(b - a + 1 for a, b in state.shards_left())
        lines += [
            "  proves: every cycle whose smallest basin deal has a rank in those windows is found",
            f"  left: {left:,} deals ({100 - share:.1f} %), shards {_runs(state.shards_left())} ({plural(count, 'shard')})",
        ]
        lines += [cost] if cost else []
    else:
        lines.append(f"  complete: every rank of k = {k} is searched, so its list of infinite deals is complete")
    lines += [f"  incomplete: {u} (rerun it)" for u in state.unfinished]
    return lines
