"""Where a campaign stands: its finished shards under a results tree, for every game.

A shard is finished when every table of its campaign is there (engines/campaign/book.py's
``Campaign.tables``); the game's book reads and checks what its tables say (the items
[start, stop) it covers and, where the game counts them, the games won); the job's timing
record says what it cost.  Everything else is the same for every game and is here: the grid
the shards follow, the windows they cover, the shards left and the next ones to run, the CPU.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.errors import CardlabError
from ..core.layout import shards_present
from ..core.runs import Run, merge_windows, runs_of, subtract_runs, windows_left
from ..kinds import on_gpu
from .book import Campaign


@dataclass(frozen=True)
class Covered:
    """What a finished shard's tables say, checked by the game: the items [start, stop) it covers and,
    where the game counts them, the games it stands for (a canonical deck's r! orders) and those won."""

    start: int
    stop: int
    games: int = 0
    won: int = 0


@dataclass(frozen=True)
class FinishedShard:
    """One shard with all its tables: the items it covers, its games and, from its timing record, its cost."""

    shard: int
    start: int
    stop: int
    cpu_s: float | None = None
    machine: str | None = None
    wall_s: float | None = None
    games: int = 0
    won: int = 0

    @property
    def on_gpu(self) -> bool:
        """Computed on a GPU: its record's CPU seconds only waited on the device, its wall time is the cost."""
        return on_gpu(self.machine)


@dataclass(frozen=True)
class CampaignState:
    """A campaign's finished shards under a results tree (and those with a table missing, as sentences)."""

    campaign: Campaign
    shards: list[FinishedShard]
    unfinished: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.campaign.total

    @property
    def per_shard(self) -> int | None:
        """The grid the finished shards follow: shard i covers [i * d, (i + 1) * d); None while they do not
        tell (none yet, or one shard 0 holding the whole size: any d that large plans it)."""
        for s in self.shards:
            if s.shard > 0:
                return s.start // s.shard
            if s.stop < self.total:
                return s.stop
        return None

    @property
    def covered(self) -> int:
        """Items of the finished shards (deals, decks, games)."""
        return sum(s.stop - s.start for s in self.shards)

    @property
    def windows(self) -> list[tuple[int, int]]:
        """The finished items as the fewest windows [start, stop), in order."""
        return merge_windows((s.start, s.stop) for s in self.shards)

    @property
    def gaps(self) -> list[tuple[int, int]]:
        """The items left, as windows."""
        return windows_left(self.windows, self.total)

    def shards_left(self, per_shard: int | None = None) -> list[Run]:
        """The shard numbers not finished on the grid (the shards' own unless given), as runs (first, last)."""
        d = per_shard or self.per_shard
        if d is None:
            return []
        return list(subtract_runs([(0, self.campaign.shard_count(d) - 1)], runs_of(s.shard for s in self.shards)))

    def next_shards(self, per_shard: int, count: int, from_top: bool) -> list[int]:
        """The next ``count`` shards left, lowest first or, from the top, highest first."""
        if count < 1:
            raise CardlabError(f"--run: the number of shards to run must be at least 1, got {count}")
        left = self.shards_left(per_shard)
        out: list[int] = []
        for a, b in reversed(left) if from_top else left:
            span = range(b, a - 1, -1) if from_top else range(a, b + 1)
            out += list(span[: count - len(out)])
            if len(out) == count:
                break
        return out

    @property
    def cpu_hours(self) -> float:
        """CPU time of the shards computed on a CPU (a GPU shard's cost is its wall time)."""
        return sum(s.cpu_s or 0.0 for s in self.shards if not s.on_gpu) / 3600

    @property
    def timed(self) -> int:
        """How many shards computed on a CPU have a timing record."""
        return sum(s.cpu_s is not None and not s.on_gpu for s in self.shards)

    @property
    def gpu_shards(self) -> list[FinishedShard]:
        return [s for s in self.shards if s.on_gpu]

    def rate(self) -> float | None:
        """Items a CPU-second over the finished shards whose jobs' records have a timing."""
        timed = [s for s in self.shards if s.cpu_s]
        cpu = sum(s.cpu_s for s in timed)
        return sum(s.stop - s.start for s in timed) / cpu if cpu else None


def read_state(
    campaign: Campaign,
    results: str,
    covered: Callable[[int], Covered],
    timing: Callable[[str], dict | None] | None = None,
) -> CampaignState:
    """The campaign's finished shards under a results tree: each with every table of the campaign,
    ``covered(shard)`` reading (and checking) what its tables say, ``timing`` (the pipeline's reader of a
    job's timing record) its cost; a shard off the grid the others follow is an error."""
    shards, unfinished = [], []
    first = campaign.tables[0]
    for n in shards_present(campaign.game, first, campaign.experiment, campaign.variant, results):
        files = campaign.files(n, results)
        missing = [t for t, f in zip(campaign.tables, files, strict=True) if not os.path.isfile(f)]
        if missing:
            unfinished.append(f"shard {n} lacks {', '.join(missing)}")
            continue
        got = covered(n)
        record = (timing(campaign.log(n, results)) if timing else None) or {}
        shards.append(
            FinishedShard(
                n,
                got.start,
                got.stop,
                record.get("cpu_s"),
                record.get("machine"),
                record.get("wall_s"),
                got.games,
                got.won,
            )
        )
    state = CampaignState(campaign, shards, unfinished)
    check_grid(state, os.path.dirname(campaign.files(0, results)[0]))
    return state


def check_grid(state: CampaignState, where: str) -> None:
    """Every shard on one grid: windows of another per_shard would plan other files."""
    d = state.per_shard
    if d is None:
        return
    for s in state.shards:
        if (s.start, s.stop) != state.campaign.window(s.shard, d):
            unit = state.campaign.unit
            raise CardlabError(
                f"{where}: shard {s.shard} covers {unit} [{s.start:,}, {s.stop:,}), off the grid of {d:,} {unit} per "
                f"shard the other shards follow; a campaign keeps one shard size (move the shards of the other "
                "grid out of results/)"
            )
