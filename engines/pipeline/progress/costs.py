"""What the work left costs: each shard's rate, measured or estimated, and the run's costs beyond its shards.

Rates come from work done, per *group* of like cost (game, kind, experiment): every finished job's timing
record and every unfinished one's last reading, on the group's current kind of machine.  A group not yet
measured takes its kind's rate; where a kind's cost follows the shard (RedBlack's ranks) a shard is priced
by its measured neighbours, and beyond them along its kind's cost shape.  Before any measurement a shard
is priced by its kind's estimate (engines/prices.yaml) at this machine's measured scale.  What no record of
this run measures yet (start-up, compilation, the steps after the shards) is priced in CPU seconds from
engines/prices.yaml and stretched by the machine's *slowdown*, the wall seconds a job took per CPU second.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.prices import run_price
from ..bookkeeping.records import Measure

if TYPE_CHECKING:
    import numpy as np

Group = tuple[str, str, str]
ShardState = Any  # model.ShardState and Snapshot, whose module imports this one
Snapshot = Any

UNESTIMATED_S = 5.0  # CPU-s of a shard whose kind gives no estimate (a basin job), until measured
PRIOR_WEIGHT = 2.0  # how many measured groups the estimates' own scale (1) counts as
OUTLIER = 10.0  # a measurement this many times slower than its group's others is a compiling first job
SCALE_LIMIT = 4.0  # a group's measured/estimated ratio counts at most this far from 1 (beyond: compilation)
MIN_ESTIMATED_S = 0.05  # a group estimated below this many CPU-s (a few deals: fixed costs) sets no scale
SHAPE_BINS = 16  # a kind's cost shape over a group's shards, in this many parts
PRIOR_JOBS = 2  # how many jobs the start-up price counts as once this run's own are measured
SLOWDOWN_PRIOR = 2.0  # wall per CPU second before any job is timed and the load is not known
PRIOR_CPU_S = 2.0  # measured CPU seconds that weigh as much as the slowdown's prior
STEPS = ("warehouse", "report", "index")


def measures_of(s: ShardState, machine: str | None = None) -> list[Measure]:
    """A shard's last finished job and its attempt under way; given ``machine``, a finished job timed on
    another kind of machine (or on one not recorded) is left out."""
    if s.log is None:
        return []
    finished = s.log.finished if machine is None or s.log.machine == machine else None
    return [m for m in (finished, s.log.progress) if m is not None and m.seconds > 0 and m.work > 0]


def current_machines(states: Sequence[ShardState]) -> dict[Group, str]:
    """Per group, the machine of its latest job that names one (a job under way: the device it computes on):
    a campaign's shards left run where its latest ran, not on another generation's CPU of the same name."""
    latest: dict[Group, tuple[float, str]] = {}
    for s in states:
        log = s.log
        finished = log is not None and log.machine and log.finished is not None and log.finished.seconds > 0
        machine = (log.running_on or (log.machine if finished else None)) if log is not None else None
        if machine and (s.spec.group not in latest or log.mtime >= latest[s.spec.group][0]):
            latest[s.spec.group] = (log.mtime, machine)
    return {group: machine for group, (_, machine) in latest.items()}


def found_measures(states: Sequence[ShardState]) -> dict[Group, list[Measure]]:
    machines = current_machines(states)
    found: dict[Group, list[Measure]] = {}
    for s in states:
        found.setdefault(s.spec.group, []).extend(measures_of(s, machines.get(s.spec.group)))
    return {g: ms for g, ms in found.items() if ms}


def pooled(ms: list[Measure]) -> Measure:
    """Measurements summed, less the slowest of several and any other ``OUTLIER`` times slower than the
    rest: a kind's first job on a machine compiles its kernels (jobs started together each do)."""
    ms = sorted(ms, key=lambda m: m.work / m.seconds)[1 if len(ms) > 1 else 0 :]
    work, seconds = sum(m.work for m in ms), sum(m.seconds for m in ms)
    for m in ms[:-1]:
        rest = Measure(work - m.work, seconds - m.seconds)
        if m.rate * OUTLIER >= rest.rate:
            break
        work, seconds = rest.work, rest.seconds
    return Measure(work, seconds)


def shard_rates(states: Sequence[ShardState]) -> dict[Group, float | None]:
    """Each group's rate: its own measurements pooled, else its kind's over the game's other experiments."""
    found = found_measures(states)
    by_kind: dict[tuple[str, str], list[Measure]] = {}
    for (game, kind, _exp), ms in found.items():
        by_kind.setdefault((game, kind), []).extend(ms)
    own = {g: pooled(ms).rate for g, ms in found.items()}
    kinds = {kind: pooled(ms).rate for kind, ms in by_kind.items()}
    return {s.spec.group: own.get(s.spec.group) or kinds.get(s.spec.group[:2]) for s in states}


def place_of(shard: int | np.ndarray, extent: int) -> float | np.ndarray:
    """Where a shard (or each of an array of them) lies in its group, 0..1."""
    return (shard + 0.5) / extent


def cost_shapes(measured: Mapping[tuple[Group, str], tuple[list[int], list[Measure], int]]) -> dict[tuple, tuple]:
    """Per game, kind and variant, a shard's log-rate less its group's mean by its place in the group, over the
    groups measured at least half-way, in ``SHAPE_BINS`` parts (places, values): a size's first cost window
    (the lowest ranks, the dearest) priced its 223 others at 5 times their mean before."""
    import numpy as np  # not at import: `cardlab --help` builds the parser without numpy

    sums: dict[tuple, np.ndarray] = {}
    for (group, variant), (shards, measures, extent) in measured.items():
        if len(shards) < max(3, extent / 2):
            continue
        logs = np.log([m.rate for m in measures])
        part = np.minimum(SHAPE_BINS - 1, np.array(shards) * SHAPE_BINS // extent)
        bins = sums.setdefault((*group[:2], variant), np.zeros((3, SHAPE_BINS)))
        for row, values in enumerate((place_of(np.array(shards), extent), logs - logs.mean(), np.ones(len(logs)))):
            np.add.at(bins[row], part, values)
    shapes = {}
    for key, (places, values, counts) in sums.items():
        seen = counts > 0
        shapes[key] = (places[seen] / counts[seen], values[seen] / counts[seen])
    return shapes


def neighbour_rate(near: tuple, shard: int, shape: tuple | None) -> float:
    """A shard's own measure, else its measured neighbours' rates interpolated geometrically by shard number
    (costs several-fold apart: a straight line would overstate them); beyond them, the nearest one's,
    moved along its kind's cost shape where it has one."""
    import numpy as np

    shards, measures, extent = near
    i = bisect_left(shards, shard)
    if i < len(shards) and shards[i] == shard:
        return measures[i].rate
    if 0 < i < len(shards):
        lo, hi = shards[i - 1], shards[i]
        return measures[i - 1].rate ** ((hi - shard) / (hi - lo)) * measures[i].rate ** ((shard - lo) / (hi - lo))
    nearest = 0 if i == 0 else -1
    moved = 0.0 if shape is None else np.interp(place_of(shard, extent), *shape) - np.interp(
        place_of(shards[nearest], extent), *shape
    )  # fmt: skip
    return measures[nearest].rate * math.exp(moved)


def rates_of(states: Sequence[ShardState]) -> list[float | None]:
    """Each shard's measured rate (None: not measured), beside ``states``: its group's, or where its kind's
    cost follows the shard, from the measured shards of its group and variant (a size's windows and their
    start-up probes count apart), None while none of them is."""
    group_rates = shard_rates(states)
    machines = current_machines(states)
    points: dict[tuple[Group, str], dict[int, Measure]] = {}
    extent: dict[tuple[Group, str], int] = {}
    for s in (s for s in states if s.spec.cost_follows_shard):
        key = (s.spec.group, s.spec.variant)
        extent[key] = max(extent.get(key, 1), s.spec.shard + 1)
        for m in measures_of(s, machines.get(s.spec.group)):
            found = points.setdefault(key, {})
            found[s.spec.shard] = found.get(s.spec.shard, Measure()) + m
    measured = {g: (sorted(found), [found[n] for n in sorted(found)], extent[g]) for g, found in points.items()}
    shapes = cost_shapes(measured)
    rates = []
    for s in states:
        if s.spec.cost_follows_shard:
            near = measured.get((s.spec.group, s.spec.variant))
            shape = shapes.get((*s.spec.group[:2], s.spec.variant))
            rates.append(neighbour_rate(near, s.spec.shard, shape) if near else None)
        else:
            rates.append(group_rates.get(s.spec.group))
    return rates


def estimate_scale(states: Sequence[ShardState]) -> float:
    """This machine's job-seconds per estimated CPU second: the geometric mean over the measured groups
    with an estimate, the estimates' own scale (1) counted ``PRIOR_WEIGHT`` times."""
    estimated: dict[Group, tuple[float, float]] = {}
    for s in states:
        if s.spec.estimate_s and s.spec.work:
            seconds, work = estimated.get(s.spec.group, (0.0, 0.0))
            estimated[s.spec.group] = (seconds + s.spec.estimate_s, work + s.spec.work)
    logs: list[float] = []
    for group, ms in found_measures(states).items():
        m = pooled(ms)
        if group in estimated and m.rate:
            per_unit = estimated[group][0] / estimated[group][1]
            if m.work * per_unit >= MIN_ESTIMATED_S:
                ratio = m.seconds / (m.work * per_unit)
                logs.append(math.log(min(max(ratio, 1 / SCALE_LIMIT), SCALE_LIMIT)))
    return math.exp(sum(logs) / (len(logs) + PRIOR_WEIGHT))


def priced(states: Sequence[ShardState], rates: Sequence[float | None]) -> list[float]:
    """Each shard's rate: its measured one, else its kind's estimate (or ``UNESTIMATED_S``) at this machine's
    scale.  A group priced by one measurement (often its kind's compiling first job) takes the faster."""
    scale = estimate_scale(states)
    counts: dict[Group, int] = {}
    for s in states:
        counts[s.spec.group] = counts.get(s.spec.group, 0) + len(measures_of(s))
    by_kind: dict[tuple[str, str], int] = {}
    for (game, kind, _exp), n in counts.items():
        by_kind[game, kind] = by_kind.get((game, kind), 0) + n
    once = {g for g, n in counts.items() if n == 1 or (n == 0 and by_kind[g[:2]] == 1)}
    out = []
    for s, rate in zip(states, rates, strict=True):
        if rate is None or (s.spec.group in once and s.spec.estimate_s):
            prior = max(1, s.spec.work) / max((s.spec.estimate_s or UNESTIMATED_S) * scale, 1e-3)
            rate = prior if rate is None else max(rate, prior)
        out.append(rate)
    return out


def job_key(s: ShardState) -> str:
    """The job a shard runs in: its batch's, else its own."""
    return s.spec.job or s.spec.log


def job_overhead(states: Sequence[ShardState], snap: Snapshot, parallel: int, slow: float) -> float:
    """Seconds a job of this run spends outside its timed computation: the run's capacity since its first
    computation began less what the jobs timed, over the jobs started, with the price (``job_start``) counted
    ``PRIOR_JOBS`` times among them; that price until jobs of this run are timed; none without the run's start."""
    prior = run_price("job_start") * slow
    if snap.run_started is None:
        return 0.0
    started = [
        s
        for s in states
        if s.log is not None
        and s.log.mtime >= snap.run_started
        and (s.state == "running" or s.log.finished is not None)
    ]
    if not snap.alive or not started:
        return prior
    measured, first = 0.0, snap.now
    for s in started:
        if s.state == "running":
            seconds = (s.log.progress.seconds if s.log.progress else 0.0) + max(0.0, snap.now - s.log.mtime)
            first = min(first, snap.now - seconds)
        else:
            seconds = s.log.finished.seconds
            first = min(first, s.log.mtime - seconds)
        measured += seconds
    jobs = len({job_key(s) for s in started})
    # from the first job's start: Snakemake's own start before it is paid once, not by every job
    spent = max(0.0, parallel * (snap.now - max(first - prior, snap.run_started)) - measured)
    return (prior * PRIOR_JOBS + spent) / (PRIOR_JOBS + jobs)


def slowdown(states: Sequence[ShardState], snap: Snapshot) -> float:
    """Wall seconds per CPU second of a job here now: the CPU-weighted median over the finished jobs' records
    (this run's where it has any; a median: a job that waited is not the machine's pace), drawn towards the
    load per CPU (else ``SLOWDOWN_PRIOR``) while few CPU seconds are measured."""
    timed = [s.log for s in states if s.log is not None and s.log.finished is not None and s.log.cpu_s]
    if snap.run_started is not None:
        timed = [log for log in timed if log.mtime >= snap.run_started] or timed
    prior = max(1.0, snap.load) if snap.load is not None else SLOWDOWN_PRIOR
    if not timed:
        return prior
    ratios = sorted((log.finished.seconds / log.cpu_s, log.cpu_s) for log in timed)
    cpu, seen = sum(c for _, c in ratios), 0.0
    for ratio, c in ratios:
        seen += c
        if seen >= cpu / 2:
            break
    return max(1.0, (prior * PRIOR_CPU_S + ratio * cpu) / (PRIOR_CPU_S + cpu))


def kernels_never_run(states: Sequence[ShardState]) -> dict[tuple[str, str, str], float]:
    """Kernels of shards with work left that no job has loaded here, with their compilation's CPU seconds."""
    ran = {s.spec.compiled for s in states if s.log is not None}
    left = [s.spec for s in states if s.state not in ("done", "kept") and s.spec.compiled not in ran]
    return {spec.compiled: compile_cpu_s(spec) for spec in left}


def compile_cpu_s(spec) -> float:
    """A shard's kernels' compilation: its kind's price, else the kinds' mean."""
    return run_price("compile") if spec.compile_s is None else spec.compile_s


def compiling(states: Sequence[ShardState]) -> set[tuple[str, str, str]]:
    """Kernels whose first job is under way: no job of them has finished here."""
    finished = {s.spec.compiled for s in states if s.log is not None and s.log.finished is not None}
    return {s.spec.compiled for s in states if s.state == "running"} - finished


def compiling_left(s: ShardState, work_s: float, price: float, slow: float, now: float) -> float:
    """Job-seconds left of a running first job of its kernels with no reading yet: compilation, then work."""
    ran = max(0.0, now - s.log.mtime)
    return max(work_s, compile_cpu_s(s.spec) * slow + (s.spec.work - s.done_work) / price - ran)


def step_cpu_s(snap: Snapshot, kind: str) -> float:
    """A step's CPU seconds as its records say, else its price (the warehouse's by the files it reads)."""
    if kind in snap.step_cpu:
        return snap.step_cpu[kind]
    if kind == "warehouse":
        return run_price("warehouse") + run_price("warehouse_file") * sum(len(s.files) for s in snap.plan)
    return run_price(kind)


def step_slowdown(slow: float, cores: int, at_once: int) -> float:
    """Wall per CPU second of ``at_once`` step processes on ``cores`` where the run's jobs, one a core, took
    ``slow``: the load elsewhere ((slow - 1) * cores CPUs) is shared by fewer processes; at least step_wait."""
    return max(run_price("step_wait"), (at_once + max(0.0, (slow - 1.0) * cores)) / max(1, cores))


def finishing(snap: Snapshot, slow: float = 1.0) -> float:
    """Wall seconds of the steps left: one after another but the reports, side by side on the run's cores,
    then Snakemake's end; the first under way since the latest finished."""
    reports = snap.steps.count("report")
    at_once = max(1, min(snap.cores, reports))
    price = {k: step_cpu_s(snap, k) * step_slowdown(slow, snap.cores, at_once if k == "report" else 1) for k in STEPS}
    left = sum(price[k] for k in snap.steps if k != "report") + (reports / at_once) * price["report"]
    left += run_price("snakemake_end") * slow if snap.steps else 0.0
    if snap.steps and snap.steps_since is not None:
        left -= min(price[snap.steps[0]], snap.now - snap.steps_since)
    return max(0.0, left)
