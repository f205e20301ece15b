"""The progress model: numbers from one snapshot of a campaign's files, no English, no clock.

A :class:`Snapshot` holds the plan, which shard files exist, the jobs' timing records, whether a run
holds the directory, and the time; :func:`model` turns it into each shard's state, each game's tally
and the :class:`Estimate` of the time left, smoothed against the previous frame's :class:`Shown`.
The ETA: the job-seconds left (work at each shard's rate, each job's start-up, kernels still to
compile: costs.py) over the jobs running at once, no shorter than the longest chain of jobs left,
then the steps after the shards.  Shards whose files were there before the run began are *kept*:
counted apart, not as this run's work.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..bookkeeping.records import RecordFile, ShardRecord, read_shard_record
from .costs import (
    compiling,
    compiling_left,
    finishing,
    job_key,
    job_overhead,
    kernels_never_run,
    priced,
    rates_of,
    slowdown,
)

ETA_MARGIN = 0.25  # a shown ETA counts down while a new estimate is within this share of it
ETA_FLOOR_S = 20.0  # (or of this, for short ones); beyond it, the estimate is shown
ETA_DRIFT_S = 5.0  # within the margin the shown ETA drifts to the estimate with this time constant
CAP_PERCENT = 99.9  # what a game with work left shows at most


@dataclass(frozen=True)
class PlannedShard:
    """One shard of the plan: where it is, its work, which files make it done, how it is priced."""

    game: str
    kind: str
    experiment: str
    variant: str
    shard: int
    work: int
    unit: str
    main: bool  # its unit is the game's own (games, deals, hands)
    files: tuple[str, ...]
    log: str
    cost_follows_shard: bool = False
    estimate_s: float | None = None  # its kind's estimate of its CPU seconds (None: none)
    job: str = ""  # the batch job it shares with other small shards ("": a job of its own)
    kernels: str = ""  # its kind's compiled kernels it loads
    compile_s: float | None = None  # their compilation in CPU seconds (None: not measured)
    reads: tuple[str, ...] = ()  # the files of other shards it reads: its job starts after theirs

    @property
    def compiled(self) -> tuple[str, str, str]:
        return (self.game, self.kind, self.kernels)

    @property
    def group(self) -> tuple[str, str, str]:
        """Shards of like cost per unit of work: one rate is measured for each group."""
        return (self.game, self.kind, self.experiment)


@dataclass(frozen=True)
class Snapshot:
    plan: tuple[PlannedShard, ...]
    units: Mapping[str, str]  # game -> its main unit, in display order
    files: frozenset[str]  # shard files that exist
    logs: Mapping[str, RecordFile]  # the shards' timing records that exist, by their logs' paths
    alive: bool  # a run holds the directory
    now: float
    run_started: float | None = None  # when the current run began: older unfinished records are not running
    warehouse: str = ""
    reports: str = ""
    kept: frozenset[str] = frozenset()  # shard files there before this run began
    steps: tuple[str, ...] = ()  # the steps after the shards still to finish (warehouse, report, index)
    steps_since: float | None = None  # when the latest of them finished
    cores: int = 1  # the most jobs the run runs at once
    step_cpu: Mapping[str, float] = field(default_factory=dict)  # each step's CPU seconds, from its records
    load: float | None = None  # the machine's load average per CPU
    stale: int = 0  # files there but written by another engine version or spec: a run writes them again
    left_out: tuple[str, ...] = ()  # bad bookkeeping files, each "path (what is wrong)": no reader believes them


@dataclass(frozen=True)
class Shown:
    """What the previous frame showed: the ETA (None: unknown) at a time, and the most jobs seen at once."""

    eta_s: float | None
    at: float
    parallel: int = 1


@dataclass
class ShardState:
    spec: PlannedShard
    state: str  # kept (done before this run), done, running, interrupted, waiting
    done_work: float  # in the spec's unit
    log: ShardRecord | None


def shard_states(snap: Snapshot) -> list[ShardState]:
    out = []
    for spec in snap.plan:
        lf = snap.logs.get(spec.log)
        log = read_shard_record(lf.text, lf.mtime, spec.work) if lf is not None else None
        if all(f in snap.files for f in spec.files):
            kept = snap.alive and all(f in snap.kept for f in spec.files)
            out.append(ShardState(spec, "kept" if kept else "done", float(spec.work), log))
            continue
        done = min(float(spec.work), log.progress.work) if log and log.progress else 0.0
        if log is None or not log.unfinished:
            state = "waiting"
        elif snap.alive and (snap.run_started is None or log.mtime >= snap.run_started):
            state = "running"
        else:
            state = "interrupted"
        out.append(ShardState(spec, state, done, log))
    return out


def seconds_left(s: ShardState, rate: float, now: float) -> float:
    """Job-seconds a shard still needs; a running one is credited its time since its last reading."""
    left = (s.spec.work - s.done_work) / rate
    if s.state == "running" and s.log is not None:
        left -= max(0.0, now - s.log.mtime)
    return max(0.0, left)


@dataclass
class Estimate:
    done: int  # shards of this run done
    total: int  # shards of this run (the plan's, but kept ones)
    seconds: float | None  # wall seconds to the run's end
    job_seconds: float  # job-seconds left
    unmeasured: list[tuple[str, str]]  # (game, kind) with work left priced by estimates, main units first
    parallel: int
    kept: int = 0  # shards done before this run began
    slowdown: float = 1.0  # wall seconds per CPU second of a job here now


def estimate(
    states: Sequence[ShardState], snap: Snapshot, parallel: int, rates: Sequence[float | None] | None = None
) -> Estimate:
    """Wall seconds left over ``parallel`` jobs at once, at least the longest chain of jobs left."""
    rates = rates_of(states) if rates is None else rates
    prices = priced(states, rates)
    run = [(s, rate, price) for s, rate, price in zip(states, rates, prices, strict=True) if s.state != "kept"]
    left = [(s, rate, price) for s, rate, price in run if s.state != "done"]
    running_jobs = {job_key(s) for s, _, _ in left if s.state == "running"}
    jobs_left = {job_key(s) for s, _, _ in left if s.state != "running"} - running_jobs  # a batch under way
    parallel = max(1, min(parallel, len(jobs_left | running_jobs) or 1))
    slow = slowdown(states, snap)
    overhead = job_overhead(states, snap, parallel, slow)
    ours = snap.run_started is not None  # a run going here: kernels not loaded here yet compile
    under_way = compiling(states) if ours else set()
    fresh = kernels_never_run(states) if ours else {}
    unmeasured: dict[tuple[str, str], bool] = {}  # (game, kind) -> of the game's main unit
    total = 0.0
    job_seconds: dict[str, float] = {}  # each job's seconds left: its shards one after another
    job_start: dict[str, float] = {}  # and before them, a job not started: its start-up and compilation
    for s, rate, price in left:
        t = seconds_left(s, price, snap.now)
        if s.state == "running" and s.spec.compiled in under_way and s.log.progress is None:
            t = compiling_left(s, t, price, slow, snap.now)
        total += t
        if rate is None:
            unmeasured.setdefault((s.spec.game, s.spec.kind), s.spec.main)
        job = job_key(s)
        job_seconds[job] = job_seconds.get(job, 0.0) + t
        if job in jobs_left:
            job_start[job] = max(job_start.get(job, 0.0), overhead + fresh.get(s.spec.compiled, 0.0) * slow)
    longest = longest_chain(left, {job: t + job_start.get(job, 0.0) for job, t in job_seconds.items()})
    start_up = overhead * len(jobs_left) + sum(fresh.values()) * slow
    finish = finishing(snap, slow)
    seconds = max((total + start_up) / parallel, longest) + finish if left or finish else 0.0
    kept = sum(s.state == "kept" for s in states)
    return Estimate(
        len(run) - len(left), len(run), seconds, total + start_up,
        sorted(unmeasured, key=lambda k: not unmeasured[k]), parallel, kept, slow,
    )  # fmt: skip


def longest_chain(left: Sequence[tuple[ShardState, float | None, float]], seconds: Mapping[str, float]) -> float:
    """The longest path of jobs left, each after the jobs whose shards' files it reads (a basin job after its
    searches): no spreading over cores shortens it.  ``seconds``: each job's own."""
    producer = {f: job_key(s) for s, _, _ in left for f in s.spec.files}
    after: dict[str, set[str]] = {}
    for s, _, _ in left:
        job = job_key(s)
        after.setdefault(job, set()).update(
            producer[f] for f in s.spec.reads if f in producer and producer[f] != job
        )  # fmt: skip
    chain: dict[str, float] = {}

    def ends(job: str) -> float:
        if job not in chain:
            chain[job] = 0.0  # a job met again on its own path adds nothing
            chain[job] = seconds[job] + max((ends(before) for before in after[job]), default=0.0)
        return chain[job]

    return max((ends(job) for job in seconds), default=0.0)


def smoothed(new: float | None, previous: Shown | None, now: float) -> float | None:
    """The previous ETA counted down and drawn towards the new estimate while it stays within the margin."""
    if new is None or previous is None or previous.eta_s is None:
        return new
    counted = max(0.0, previous.eta_s - (now - previous.at))
    if abs(new - counted) > ETA_MARGIN * max(counted, ETA_FLOOR_S):
        return new
    return counted + (new - counted) * (1.0 - math.exp(-max(0.0, now - previous.at) / ETA_DRIFT_S))


@dataclass
class KindTally:
    """A game's shards of one unit: how many in each state, their work, and the running ones' rate."""

    unit: str
    shards: int = 0
    done: int = 0
    running: int = 0
    interrupted: int = 0
    work: float = 0.0
    work_done: float = 0.0
    rate: float = 0.0  # units/s of the running shards, at their groups' rates
    unrated: int = 0  # running shards whose group has no rate yet

    def add(self, s: ShardState, rate: float | None) -> None:
        self.shards += 1
        self.work += s.spec.work
        self.work_done += s.done_work
        self.done += s.state == "done"
        self.interrupted += s.state == "interrupted"
        if s.state == "running":
            self.running += 1
            self.unrated += rate is None
            self.rate += rate or 0.0


@dataclass
class GameTally:
    """One game: its main unit's tally and, apart, each kind of shard in another unit."""

    game: str
    main: KindTally
    others: dict[str, KindTally] = field(default_factory=dict)
    kept: int = 0

    @property
    def all_done(self) -> bool:
        return all(k.done == k.shards for k in (self.main, *self.others.values()))

    @property
    def percent(self) -> float:
        """The main unit's share done, 100 only once every shard of the game is done."""
        if self.all_done:
            return 100.0
        return min(100.0 * self.main.work_done / self.main.work if self.main.work else 0.0, CAP_PERCENT)


def tallies(snap: Snapshot, states: Sequence[ShardState], rates: Sequence[float | None]) -> list[GameTally]:
    games = {game: GameTally(game, KindTally(unit)) for game, unit in snap.units.items()}
    for s, rate in zip(states, rates, strict=True):
        game = games[s.spec.game]
        if s.state == "kept":
            game.kept += 1
            continue
        target = game.main if s.spec.main else game.others.setdefault(s.spec.kind, KindTally(s.spec.unit))
        target.add(s, rate)
    return [g for g in games.values() if g.main.shards or g.others or g.kept]


@dataclass
class Model:
    """Everything a frame shows, as numbers."""

    states: list[ShardState]
    games: list[GameTally]
    estimate: Estimate
    eta_s: float | None  # the ETA shown: None when no run goes, all is done, or it is unknown
    shown: Shown  # pass it to the next frame's call

    @property
    def done(self) -> int:
        return self.estimate.done

    @property
    def total(self) -> int:
        return self.estimate.total

    @property
    def all_done(self) -> bool:
        return self.done == self.total

    def count(self, state: str) -> int:
        return sum(s.state == state for s in self.states)


def model(snap: Snapshot, previous: Shown | None = None) -> Model:
    """The numbers of a snapshot's frame; ``previous``: the last frame's :class:`Shown`."""
    states = shard_states(snap)
    rates = rates_of(states)  # once a frame: the tallies and the estimate share them
    running = sum(s.state == "running" for s in states)
    est = estimate(states, snap, max(running, snap.cores, previous.parallel if previous else 1), rates)
    going = snap.alive and (est.done < est.total or snap.steps)
    eta = smoothed(est.seconds, previous, snap.now) if going else None
    return Model(states, tallies(snap, states, rates), est, eta, Shown(eta, snap.now, est.parallel))
