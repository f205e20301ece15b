"""The progress model of a campaign: numbers, computed from one snapshot of its files (no English).

A :class:`Snapshot` holds the plan (every shard with its work and unit), which shard
files exist, the shard logs' text and modification times, whether a run holds the
directory, and the time.  :func:`model` turns it into a :class:`Model`: each shard's
state, each game's tally, and the :class:`Estimate` of the time left, and takes the
:class:`Shown` state of the previous frame so a redrawn ETA moves only when the
estimate really changes.  Rates are computed once a frame.  engines/pipeline/progress/snapshot.py
reads snapshots from disk; tests replay recorded ones (tests/live_recording.py); the
renderer (engines/pipeline/progress/live.py) is the only place that puts them into words.

Each shard's rate is its measured one where its group, or its kind, has been measured, else
its kind's estimate at this machine's measured scale (engines/pipeline/progress/pricing.py): the first
frame of a cold run has an ETA, refined as work is measured.  The ETA is the job-seconds left
spread over the jobs running at once, no shorter than the longest chain of jobs left (a job after the
jobs whose shards' files it reads, :func:`longest_chain`), then the steps after the
shards, plus a start-up step still under way before Snakemake runs (recording the kept files'
metadata).  The job-seconds: the work at those rates; each job's start-up beyond its timed
computation, as this run's jobs measure it; and the kernels still to compile, each set once, by the
first job that loads it (its kind's measured compilation, :attr:`PlannedShard.compile_s`; a first job
under way is credited its time).  The steps after the shards (warehouse, reports side by side on the
run's cores, index, Snakemake's end): each step's CPU seconds as its timing records say, this run's
or an earlier run's, else a price measured here.  What no timing record of this run measures yet is
priced in CPU seconds and stretched by the machine's *slowdown*, the wall seconds this run's jobs took
per CPU second: one price fits an idle machine and a loaded one (engines/pipeline/progress/run_costs.py: those
prices, how each was measured, and the slowdown).  The kinds still
priced by estimates are named beside the ETA.  Shards whose files were there before the run began are
*kept*: counted apart, not as this run's work.  Each game's tally counts this run's work of its main
unit (games, deals, hands) and the shards of other units (Blackjack's exact tables, RedBlack's audit
and basin jobs) apart, and reaches 100 % only once every shard of the game is done.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .pricing import priced, rates_of
from .run_costs import (
    COMPILE_CPU_S,
    compiling,
    compiling_left,
    finishing,
    job_key,
    job_overhead,
    kernels_never_run,
    slowdown,
)
from .timings import RecordFile, ShardRecord, read_shard_record

# A redrawn ETA keeps counting down while a new estimate is within this share of it
# (or of ETA_FLOOR_S for short ones); outside it, the new estimate is shown.
ETA_MARGIN = 0.25
ETA_FLOOR_S = 20.0
# Within the margin the shown ETA drifts towards the estimate, closing this share of the gap per second
# (a time constant of 5 s): a steady estimate 18 % below the shown one (a cold default run, half-way) held
# the shown one 30 s above it when it only counted down.
ETA_DRIFT_S = 5.0
CAP_PERCENT = 99.9  # what a game with work left shows at most


@dataclass(frozen=True)
class PlannedShard:
    """One shard of the plan: where it is, what its spec's work counts, which files make it done."""

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
    cost_follows_shard: bool = False  # its kind's: priced by the measured shards around it
    estimate_s: float | None = None  # its kind's estimate of its CPU seconds (None: the kind gives none)
    job: str = ""  # the batch job it shares with other small shards ("": a job of its own)
    kernels: str = ""  # its kind's compiled kernels it loads ("": the kind's one set)
    compile_s: float | None = None  # its kernels' compilation in CPU seconds, its kind's measure (None: not measured)
    reads: tuple[str, ...] = ()  # the files of other shards it reads: its job starts after theirs

    @property
    def compiled(self) -> tuple[str, str, str]:
        """The kernels its job loads, compiled by the first job of them on a cold numba cache."""
        return (self.game, self.kind, self.kernels)

    @property
    def compile_cpu_s(self) -> float:
        """Its kernels' compilation: its kind's measure, else the mean of the kinds' (``COMPILE_CPU_S``)."""
        return COMPILE_CPU_S if self.compile_s is None else self.compile_s

    @property
    def group(self) -> tuple[str, str, str]:
        """Shards of like cost per unit of work: one rate is measured for each group."""
        return (self.game, self.kind, self.experiment)


@dataclass(frozen=True)
class Snapshot:
    """What the view is computed from: the plan, the files, the logs, the run and the time."""

    plan: tuple[PlannedShard, ...]
    units: Mapping[str, str]  # game -> its main unit, in display order
    files: frozenset[str]  # shard files that exist
    logs: Mapping[str, RecordFile]  # shard logs that exist
    alive: bool  # a snakemake holds the directory
    now: float
    run_started: float | None = None  # when the current run began, if known: older unfinished logs are not running
    warehouse: str = ""
    reports: str = ""
    kept: frozenset[str] = frozenset()  # shard files there before this run began: not this run's work
    steps: tuple[str, ...] = ()  # the steps after the shards this run has still to finish (warehouse, report, index)
    steps_since: float | None = None  # when the latest of them finished: the next has run since
    cores: int = 1  # the most jobs the run runs at once
    step_cpu: Mapping[str, float] = field(default_factory=dict)  # each step's CPU seconds, from its timing records
    load: float | None = None  # the machine's load average per CPU (None: not known)
    stale: int = 0  # shard files there but written by another engine version or spec: a run writes them again


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
    """Job-seconds a shard still needs at its group's rate; a running one is credited its time since its last line."""
    left = (s.spec.work - s.done_work) / rate
    if s.state == "running" and s.log is not None:
        left -= max(0.0, now - s.log.mtime)
    return max(0.0, left)


@dataclass
class Estimate:
    """The time left: shards done of the run's, and wall seconds to the run's end with their parts."""

    done: int  # shards of this run done
    total: int  # shards of this run (the plan's, but kept ones)
    seconds: float | None  # wall seconds to the run's end (its last shard, then the warehouse and reports)
    measured_part: float  # the same over what is measured so far (the rest priced by estimates)
    job_seconds: float  # job-seconds left
    unmeasured: list[tuple[str, str]]  # (game, kind) of the games' main units with work left priced by estimates
    unmeasured_jobs: list[tuple[str, str]]  # the same for jobs of other units (a basin job, an audit)
    parallel: int
    kept: int = 0  # shards done before this run began
    slowdown: float = 1.0  # wall seconds per CPU second of a job here now (run_costs.slowdown)


def estimate(
    states: Sequence[ShardState], snap: Snapshot, parallel: int, rates: Sequence[float | None] | None = None
) -> Estimate:
    """Wall seconds left: job-seconds left (work at each shard's rate, each job's start-up, the kernels still
    to compile, the warehouse and reports) over ``parallel`` jobs at once, at least the longest chain of jobs left
    (``rates``: each shard's measured one, beside ``states``, computed once a frame; by default here)."""
    rates = rates_of(states) if rates is None else rates
    prices = priced(states, rates)
    kept = sum(s.state == "kept" for s in states)
    run = [(s, rate, price) for s, rate, price in zip(states, rates, prices, strict=True) if s.state != "kept"]
    left = [(s, rate, price) for s, rate, price in run if s.state != "done"]
    running_jobs = {job_key(s) for s, _, _ in left if s.state == "running"}
    # a batch job under way starts no new job for its shards still waiting
    jobs_left = {job_key(s) for s, _, _ in left if s.state != "running"} - running_jobs
    parallel = max(1, min(parallel, len(jobs_left | running_jobs) or 1))
    slow = slowdown(states, snap)
    overhead = job_overhead(states, snap, parallel, slow)
    ours = snap.run_started is not None  # the view of a run going here: kernels not loaded here yet compile
    under_way = compiling(states) if ours else set()
    fresh = kernels_never_run(states) if ours else {}
    unmeasured: list[tuple[str, str]] = []
    unmeasured_jobs: list[tuple[str, str]] = []
    total = measured_total = 0.0
    job_seconds: dict[str, float] = {}  # each job's seconds left: its shards one after another
    job_start: dict[str, float] = {}  # and before them, a job not started yet: its start-up and compilation
    for s, rate, price in left:
        t = seconds_left(s, price, snap.now)
        if s.state == "running" and s.spec.compiled in under_way and s.log.progress is None:
            t = compiling_left(s, t, price, slow, snap.now)
        total += t
        if rate is None:
            names = unmeasured if s.spec.main else unmeasured_jobs
            if (s.spec.game, s.spec.kind) not in names:
                names.append((s.spec.game, s.spec.kind))
        else:
            measured_total += t
        job = job_key(s)
        job_seconds[job] = job_seconds.get(job, 0.0) + t
        if job in jobs_left:
            first = fresh.get(s.spec.compiled, 0.0) * slow
            job_start[job] = max(job_start.get(job, 0.0), overhead + first)
    longest = longest_chain(left, {job: t + job_start.get(job, 0.0) for job, t in job_seconds.items()})
    start_up = overhead * len(jobs_left) + sum(fresh.values()) * slow
    finish = finishing(snap, slow)
    seconds = max((total + start_up) / parallel, longest) + finish if left or finish else 0.0
    measured = max((measured_total + start_up) / parallel, longest) + finish
    done = len(run) - len(left)
    return Estimate(
        done, len(run), seconds, measured, total + start_up, unmeasured, unmeasured_jobs, parallel, kept, slow
    )


def longest_chain(left: Sequence[tuple[ShardState, float | None, float]], seconds: Mapping[str, float]) -> float:
    """The longest path of jobs left, each after the jobs left whose shards' files it reads (a RedBlack basin
    job after the searches it lists the deals of): no spreading over cores shortens it.  ``seconds``: each
    job's own seconds left."""
    producer = {f: job_key(s) for s, _, _ in left for f in s.spec.files}
    after: dict[str, set[str]] = {}
    for s, _, _ in left:
        job = job_key(s)
        needs = after.setdefault(job, set())
        needs.update(producer[f] for f in s.spec.reads if f in producer and producer[f] != job)
    chain: dict[str, float] = {}

    def ends(job: str) -> float:
        if job not in chain:
            chain[job] = 0.0  # a job met again on its own path (no plan has one) adds nothing
            chain[job] = seconds[job] + max((ends(before) for before in after[job]), default=0.0)
        return chain[job]

    return max((ends(job) for job in seconds), default=0.0)


def smoothed(new: float | None, previous: Shown | None, now: float) -> float | None:
    """The ETA to show: the previous one counted down, drawn towards the new estimate by the time passed
    (``ETA_DRIFT_S``), while the estimate stays within the margin; beyond it, the estimate."""
    if new is None or previous is None or previous.eta_s is None:
        return new
    counted = max(0.0, previous.eta_s - (now - previous.at))
    if abs(new - counted) > ETA_MARGIN * max(counted, ETA_FLOOR_S):
        return new
    return counted + (new - counted) * (1.0 - math.exp(-max(0.0, now - previous.at) / ETA_DRIFT_S))


@dataclass
class KindTally:
    """A game's shards of one unit: how many, in which state, their work, and the running ones' rate."""

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
            if rate is None:
                self.unrated += 1
            else:
                self.rate += rate


@dataclass
class GameTally:
    """One game: its main unit's tally and, apart, each kind of shard in another unit."""

    game: str
    main: KindTally
    others: dict[str, KindTally] = field(default_factory=dict)  # kind -> its shards, in another unit
    kept: int = 0  # shards done before this run began: counted apart, not this run's work

    @property
    def all_done(self) -> bool:
        return all(k.done == k.shards for k in (self.main, *self.others.values()))

    @property
    def percent(self) -> float:
        """The main unit's share done, 100 only once every shard of the game is done."""
        if self.all_done:
            return 100.0
        pct = 100.0 * self.main.work_done / self.main.work if self.main.work else 0.0
        return min(pct, CAP_PERCENT)


def tallies(snap: Snapshot, states: Sequence[ShardState], rates: Sequence[float | None]) -> list[GameTally]:
    """Each game's tally of this run's work and its kept shards apart, in the snapshot's order of games
    (games with no shard left out)."""
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
    """Everything a frame shows, as numbers: the shards' states, the games' tallies, the estimate, the ETA."""

    states: list[ShardState]
    games: list[GameTally]
    estimate: Estimate
    eta_s: float | None  # the ETA shown (smoothed): None when no run goes, all is done, or it is unknown
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
    """The numbers of a snapshot's frame; ``previous``: the last frame's :class:`Shown` (a steady ETA)."""
    states = shard_states(snap)
    rates = rates_of(states)  # once a frame: the tallies and the estimate share them
    running = sum(s.state == "running" for s in states)
    parallel = max(running, snap.cores, previous.parallel if previous else 1)
    est = estimate(states, snap, parallel, rates)
    going = snap.alive and (est.done < est.total or snap.steps)
    eta = smoothed(est.seconds, previous, snap.now) if going else None
    return Model(states, tallies(snap, states, rates), est, eta, Shown(eta, snap.now, est.parallel))


def run_share(done: Sequence[str], progress: Mapping[str, float], work: Mapping[str, int]) -> float:
    """A run's share of its work done: finished shards whole, running ones by ``progress`` (name -> the
    share their job logs' last progress line reports)."""
    units = sum(work[n] for n in done)
    units += sum(min(share * work[n], work[n]) for n, share in progress.items() if n not in done)
    return units / max(1, sum(work.values()))
