"""The progress model of a campaign: numbers, computed from one snapshot of its files (no English).

A :class:`Snapshot` holds the plan (every shard with its work and unit), which shard
files exist, the shard logs' text and modification times, whether a run holds the
directory, and the time.  :func:`model` turns it into a :class:`Model`: each shard's
state, each game's tally, and the :class:`Estimate` of the time left, and takes the
:class:`Shown` state of the previous frame so a redrawn ETA moves only when the
estimate really changes.  Rates are computed once a frame.  engines/pipeline/snapshot.py
reads snapshots from disk; tests replay recorded ones (tests/live_recording.py); the
renderer (engines/pipeline/live.py) is the only place that puts them into words.

Rates come from work actually done, per *group* of shards of like cost (a game's
kind and experiment: a RedBlack exhaustive deal at k = 26 and a sampled one cost very
differently): the timing line of every finished job (this run's or an earlier one's:
logs stay) and the last progress line of every unfinished one, summed as work over
job-seconds, so a rate is a mean over everything measured, never the last instant,
and a game whose shards print no progress until they end still gets one.  A group
none of whose shards has reported yet takes its kind's rate over the game's other
experiments until it has its own.  Where a kind's cost per unit follows the shard (RedBlack's
exhaustive ranks: a low rank's deal plays several times the rounds of a high one), a shard
left is priced instead by the rates of its group's measured shards on either side,
interpolated geometrically by shard number, so a campaign that did its cheap shards first does not promise
the costly rest at their rate.  A group's finished jobs count only where they ran on the kind of CPU
its latest finished job ran on (timing lines name it), so a campaign moved to a faster machine is
priced by the new one's times.  The overall ETA is the job-seconds left (work
left over the rate, plus the start-up each job of the run has cost beyond its timed
computation) spread over the jobs running at once, and no shorter than the longest
shard left; it is "unknown" while a kind with work left has no measurement at all,
and a follow-up job of another unit (RedBlack's basin job, which runs last) not yet
measured is named beside it.  Each game's tally counts
the work of its main unit (games, deals, hands) and the shards of other units
(Blackjack's exact tables, RedBlack's audit and basin jobs) apart, and reaches 100 %
only once every shard of the game is done.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .runlog import LogFile, Measure, ShardLog, read_shard_log

# A redrawn ETA keeps counting down while a new estimate is within this share of it
# (or of ETA_FLOOR_S for short ones); outside it, the new estimate is shown.
ETA_MARGIN = 0.25
ETA_FLOOR_S = 20.0
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
    logs: Mapping[str, LogFile]  # shard logs that exist
    alive: bool  # a snakemake holds the directory
    now: float
    run_started: float | None = None  # when the current run began, if known: older unfinished logs are not running
    warehouse: str = ""
    reports: str = ""


@dataclass(frozen=True)
class Shown:
    """What the previous frame showed: the ETA (None: unknown) at a time, and the most jobs seen at once."""

    eta_s: float | None
    at: float
    parallel: int = 1


@dataclass
class ShardState:
    spec: PlannedShard
    state: str  # done, running, interrupted, waiting
    done_work: float  # in the spec's unit
    log: ShardLog | None


def shard_states(snap: Snapshot) -> list[ShardState]:
    out = []
    for spec in snap.plan:
        lf = snap.logs.get(spec.log)
        log = read_shard_log(lf.text, lf.mtime, spec.work) if lf is not None else None
        if all(f in snap.files for f in spec.files):
            out.append(ShardState(spec, "done", float(spec.work), log))
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


def measures_of(s: ShardState, machine: str | None = None) -> list[Measure]:
    """What a shard's log measured: its last finished job and its attempt under way; given ``machine``,
    a finished job timed on another kind of CPU (or on one not recorded) is left out."""
    if s.log is None:
        return []
    finished = s.log.finished if machine is None or s.log.machine == machine else None
    return [m for m in (finished, s.log.progress) if m is not None and m.seconds > 0 and m.work > 0]


def current_machines(states: Sequence[ShardState]) -> dict[tuple[str, str, str], str]:
    """Per group, the kind of CPU of its latest finished job that recorded one, where that kind timed
    work of the group: a campaign's remaining shards run where its latest ones ran.  A campaign spans
    sessions, and a machine of another generation (the same name can hide one 2.5 times slower) must
    not price them; a group with no recorded kind keeps every measurement."""
    latest: dict[tuple[str, str, str], tuple[float, str]] = {}
    for s in states:
        log = s.log
        if log is not None and log.machine and log.finished is not None and log.finished.seconds > 0:
            if s.spec.group not in latest or log.mtime >= latest[s.spec.group][0]:
                latest[s.spec.group] = (log.mtime, log.machine)
    return {group: machine for group, (_, machine) in latest.items()}


def group_measures(states: Sequence[ShardState]) -> dict[tuple[str, str, str], Measure]:
    """Each group's measured work and job-seconds: finished jobs' timing lines plus unfinished ones' progress,
    the finished ones on the group's current kind of CPU (:func:`current_machines`) where it has one.

    With more than one measurement, the slowest is left out: the first job of a kind on a machine
    compiles its kernels (numba caches them for the rest), which is not the rate of the others."""
    machines = current_machines(states)
    found: dict[tuple[str, str, str], list[Measure]] = {}
    for s in states:
        for m in measures_of(s, machines.get(s.spec.group)):
            found.setdefault(s.spec.group, []).append(m)
    measures = {}
    for group, ms in found.items():
        if len(ms) > 1:
            ms = sorted(ms, key=lambda m: m.work / m.seconds)[1:]
        measures[group] = sum(ms, Measure())
    return measures


def shard_rates(states: Sequence[ShardState]) -> dict[tuple[str, str, str], float | None]:
    """Each group's rate: its own measurement, else (a group none of whose shards has reported yet, e.g. a
    RedBlack size not started) its kind's over the game's other experiments; None when the kind has none."""
    measures = group_measures(states)
    by_kind: dict[tuple[str, str], Measure] = {}
    for (game, kind, _exp), m in measures.items():
        by_kind[game, kind] = by_kind.get((game, kind), Measure()) + m
    rates = {}
    for s in states:
        g = s.spec.group
        own = measures.get(g)
        rates[g] = own.rate if own is not None and own.rate else by_kind.get(g[:2], Measure()).rate
    return rates


def interpolated_rate(shards: Sequence[int], measures: Sequence[Measure], shard: int) -> float | None:
    """A shard's rate from its group's measured ones (``shards`` sorted and distinct, ``measures`` beside
    them): its own measure, else the rates of the nearest measured shard on each side, interpolated
    geometrically by shard number (beyond the measured ones, the nearest one's)."""
    i = bisect_left(shards, shard)
    if i < len(shards) and shards[i] == shard:
        return measures[i].rate
    if i == 0 or i == len(shards):
        return measures[min(i, len(shards) - 1)].rate
    lo = shards[i - 1]
    hi = shards[i]
    # geometrically: costs several-fold apart (a rank's cost falls steeply from the lowest ranks) are
    # interpolated in proportion, which a straight line across a gap would overstate
    return measures[i - 1].rate ** ((hi - shard) / (hi - lo)) * measures[i].rate ** ((shard - lo) / (hi - lo))


def rates_of(states: Sequence[ShardState]) -> list[float | None]:
    """Each shard's rate, beside ``states``: its group's (:func:`shard_rates`), or, where its kind's cost
    follows the shard, the one interpolated between its group's measured shards around it."""
    group_rates = shard_rates(states)
    machines = current_machines(states)
    points: dict[tuple[str, str, str], dict[int, Measure]] = {}
    for s in states:
        if s.spec.cost_follows_shard:
            for m in measures_of(s, machines.get(s.spec.group)):
                found = points.setdefault(s.spec.group, {})
                found[s.spec.shard] = found.get(s.spec.shard, Measure()) + m
    measured = {g: (sorted(found), [found[n] for n in sorted(found)]) for g, found in points.items()}
    rates = []
    for s in states:
        near = measured.get(s.spec.group)
        rate = interpolated_rate(*near, s.spec.shard) if near else None
        rates.append(rate or group_rates.get(s.spec.group))
    return rates


def seconds_left(s: ShardState, rate: float, now: float) -> float:
    """Job-seconds a shard still needs at its group's rate; a running one is credited its time since its last line."""
    left = (s.spec.work - s.done_work) / rate
    if s.state == "running" and s.log is not None:
        left -= max(0.0, now - s.log.mtime)
    return max(0.0, left)


@dataclass
class Estimate:
    """The time left: shards done of the plan's, and wall seconds to the last shard with its parts."""

    done: int  # shards done
    total: int  # shards planned
    seconds: float | None  # wall seconds to the last shard, None when unknown
    measured_part: float  # the same over the groups measured so far
    job_seconds: float  # job-seconds left in the groups measured so far
    unmeasured: list[tuple[str, str]]  # (game, kind) of the games' main units with work left and no rate
    unmeasured_jobs: list[tuple[str, str]]  # the same for jobs of other units (a basin job, an audit)
    parallel: int


def started_in_run(s: ShardState, run_started: float) -> bool:
    return s.log is not None and s.log.mtime >= run_started and (s.state == "running" or s.log.finished is not None)


def job_overhead(states: Sequence[ShardState], snap: Snapshot, parallel: int) -> float:
    """Seconds a job of this run spends outside its measured computation (process start, imports, writing).

    The jobs' timing lines time only the computation; the rest of the run's capacity (the jobs
    running at once times the time since the run began) went into start-up, spread over the jobs
    started.  Unknown (0) without the run's start, and none once the run has stopped."""
    if snap.run_started is None or not snap.alive:
        return 0.0
    started = [s for s in states if started_in_run(s, snap.run_started)]
    if not started:
        return 0.0
    measured = 0.0
    for s in started:
        if s.state == "running":
            measured += (s.log.progress.seconds if s.log.progress else 0.0) + max(0.0, snap.now - s.log.mtime)
        else:
            measured += s.log.finished.seconds
    return max(0.0, parallel * (snap.now - snap.run_started) - measured) / len(started)


def estimate(
    states: Sequence[ShardState], snap: Snapshot, parallel: int, rates: Sequence[float | None] | None = None
) -> Estimate:
    """Wall seconds left: job-seconds left over ``parallel`` jobs at once, at least the longest shard left
    (``rates``: each shard's, beside ``states``, computed once a frame; by default computed here)."""
    total = 0.0
    longest = 0.0
    unmeasured: list[tuple[str, str]] = []
    unmeasured_jobs: list[tuple[str, str]] = []
    rates = rates_of(states) if rates is None else rates
    left = [(s, rate) for s, rate in zip(states, rates, strict=True) if s.state != "done"]
    parallel = max(1, min(parallel, len(left) or 1))
    overhead = job_overhead(states, snap, parallel)
    now = snap.now
    for s, rate in left:
        if rate is None:
            names = unmeasured if s.spec.main else unmeasured_jobs
            name = (s.spec.game, s.spec.kind)
            if name not in names:
                names.append(name)
            continue
        t = seconds_left(s, rate, now) + (overhead if s.state != "running" else 0.0)
        total += t
        longest = max(longest, t)
    measured = max(total / parallel, longest)
    done = len(states) - len(left)
    seconds = None if unmeasured else measured
    return Estimate(done, len(states), seconds, measured, total, unmeasured, unmeasured_jobs, parallel)


def smoothed(new: float | None, previous: Shown | None, now: float) -> float | None:
    """The ETA to show: the previous one counted down while the new estimate stays within the margin."""
    if new is None or previous is None or previous.eta_s is None:
        return new
    counted = max(0.0, previous.eta_s - (now - previous.at))
    return counted if abs(new - counted) <= ETA_MARGIN * max(counted, ETA_FLOOR_S) else new


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
    """Each game's tally, in the snapshot's order of games (games with no shard left out)."""
    games = {game: GameTally(game, KindTally(unit)) for game, unit in snap.units.items()}
    for s, rate in zip(states, rates, strict=True):
        game = games[s.spec.game]
        target = game.main if s.spec.main else game.others.setdefault(s.spec.kind, KindTally(s.spec.unit))
        target.add(s, rate)
    return [g for g in games.values() if g.main.shards or g.others]


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
    parallel = max(running, previous.parallel if previous else 1)
    est = estimate(states, snap, parallel, rates)
    eta = smoothed(est.seconds, previous, snap.now) if snap.alive and est.done < est.total else None
    return Model(states, tallies(snap, states, rates), est, eta, Shown(eta, snap.now, est.parallel))


def run_share(done: Sequence[str], progress: Mapping[str, float], work: Mapping[str, int]) -> float:
    """A run's share of its work done: finished shards whole, running ones by ``progress`` (name -> the
    share their job logs' last progress line reports)."""
    units = sum(work[n] for n in done)
    units += sum(min(share * work[n], work[n]) for n, share in progress.items() if n not in done)
    return units / max(1, sum(work.values()))
