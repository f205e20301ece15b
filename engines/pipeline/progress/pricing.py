"""What the work left of a run costs: each shard's rate, measured or, before any measurement, estimated.

Rates come from work actually done, per *group* of shards of like cost (a game's kind and
experiment): the timing record of every finished job (this run's or an earlier one's: records stay,
and kept campaigns keep theirs) and the last progress reading of every unfinished one, summed as
work over job-seconds (:func:`rates_of`).  A group none of whose shards has reported takes its
kind's rate over the game's other experiments; where a kind's cost follows the shard (RedBlack's
exhaustive ranks) a shard left is priced by its group's measured shards on either side.

A shard nothing has measured yet is priced from what is known before it runs
(:func:`priced`): its kind's estimate of its CPU seconds (the one the batches are planned by),
times this machine's measured ratio of job-seconds to estimated seconds over the shards
measured so far, drawn towards 1 while few are: the first job of a kind also compiles its
kernels, and one such job must not set the price of every other kind.  A kind that gives no
estimate is priced at ``UNESTIMATED_S`` a shard.  So the first frame of a cold run has an ETA,
and measurements then replace the estimates group by group, without a jump of an order of
magnitude when they do.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any

from .timings import Measure

Group = tuple[str, str, str]
ShardState = Any  # engines/pipeline/progress/progress_model.py's ShardState, which imports this module

UNESTIMATED_S = 5.0
"""CPU seconds of a shard whose kind gives no estimate and that nothing has measured (a basin job)."""
PRIOR_WEIGHT = 2.0
"""How many measured groups the estimates' own scale (1) counts as, while few are measured."""
OUTLIER = 10.0
"""A measurement this many times slower than the rest of its group's is a compiling first job."""
SCALE_LIMIT = 4.0
"""A group's job-seconds per estimated second counts at most this far from 1: beyond it is a first job's
compilation of its kernels (a tiny shard's whole time), not this machine's speed."""
MIN_ESTIMATED_S = 0.05
"""A group whose measured work its kind estimates below this many CPU seconds does not set the scale: a
RedBlack size of a handful of deals, estimated at microseconds, took its job's fixed costs (ratios of 9
to 6·10^7 pulled the scale of a cold default run to 0.53 where its measured groups said 0.1 to 0.4)."""


def measures_of(s: ShardState, machine: str | None = None) -> list[Measure]:
    """What a shard's log measured: its last finished job and its attempt under way; given ``machine``,
    a finished job timed on another kind of CPU (or on one not recorded) is left out."""
    if s.log is None:
        return []
    finished = s.log.finished if machine is None or s.log.machine == machine else None
    return [m for m in (finished, s.log.progress) if m is not None and m.seconds > 0 and m.work > 0]


def current_machines(states: Sequence[ShardState]) -> dict[Group, str]:
    """Per group, the kind of machine of its latest job that recorded one: a finished job's, or the device
    a job under way computes on (a GPU run of a CPU campaign); a campaign's remaining shards run where its
    latest ones ran.  A campaign spans sessions, and a machine of another generation (the same name can
    hide one 2.5 times slower) must not price them; a group with no recorded kind keeps every measurement."""
    latest: dict[Group, tuple[float, str]] = {}
    for s in states:
        log = s.log
        finished = log is not None and log.machine and log.finished is not None and log.finished.seconds > 0
        machine = (log.running_on or (log.machine if finished else None)) if log is not None else None
        if machine and (s.spec.group not in latest or log.mtime >= latest[s.spec.group][0]):
            latest[s.spec.group] = (log.mtime, machine)
    return {group: machine for group, (_, machine) in latest.items()}


def found_measures(states: Sequence[ShardState]) -> dict[Group, list[Measure]]:
    """Each group's measurements: finished jobs' timing records plus unfinished ones' progress, the finished
    ones on the group's current kind of CPU (:func:`current_machines`) where it has one."""
    machines = current_machines(states)
    found: dict[Group, list[Measure]] = {}
    for s in states:
        for m in measures_of(s, machines.get(s.spec.group)):
            found.setdefault(s.spec.group, []).append(m)
    return found


def pooled(ms: list[Measure]) -> Measure:
    """Measurements summed, the slowest left out when there are several, and any other ``OUTLIER`` times
    slower than the rest: the first job of a kind on a machine compiles its kernels (numba caches them for
    the rest), which is not the rate of the others, and jobs started together each compile."""
    ms = sorted(ms, key=lambda m: m.work / m.seconds)
    if len(ms) > 1:
        ms = ms[1:]
    work = sum(m.work for m in ms)
    seconds = sum(m.seconds for m in ms)
    for m in ms[:-1]:  # the rest's sum kept as the slowest are dropped: linear in the group
        rest = Measure(work - m.work, seconds - m.seconds)
        if m.rate * OUTLIER >= rest.rate:
            break
        work, seconds = rest.work, rest.seconds
    return Measure(work, seconds)


def group_measures(states: Sequence[ShardState]) -> dict[Group, Measure]:
    """Each group's measured work and job-seconds (:func:`found_measures`, :func:`pooled`)."""
    return {group: pooled(ms) for group, ms in found_measures(states).items()}


def shard_rates(states: Sequence[ShardState]) -> dict[Group, float | None]:
    """Each group's rate: its own measurement, else (a group none of whose shards has reported yet, e.g. a
    RedBlack size not started) its kind's over the game's other experiments, pooled as one group's (a
    compiling first job of the kind is left out there too); None when the kind has none."""
    found = found_measures(states)
    by_kind: dict[tuple[str, str], list[Measure]] = {}
    for (game, kind, _exp), ms in found.items():
        by_kind.setdefault((game, kind), []).extend(ms)
    own = {g: pooled(ms).rate for g, ms in found.items()}
    kinds = {kind: pooled(ms).rate for kind, ms in by_kind.items()}
    return {s.spec.group: own.get(s.spec.group) or kinds.get(s.spec.group[:2]) for s in states}


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


SHAPE_BINS = 16
"""A kind's cost shape (:func:`cost_shapes`) in this many equal parts of a group's shards."""

Shape = list  # (place, log-rate deviation) of each measured part of a group's shards, by place


def place_of(shard: int, extent: int) -> float:
    """A shard's place in its group, 0 to 1: its middle over the group's extent (its highest shard + 1)."""
    return (shard + 0.5) / extent


def cost_shapes(measured: Mapping[tuple[Group, str], tuple[list[int], list[Measure], int]]) -> dict[tuple, Shape]:
    """Per game, kind and variant whose cost follows the shard, how a shard's rate moves with its place in its
    group (a size's rank strata): the log rate less its group's mean, over the groups measured at least
    half-way (``measured``: their shards, measures and extent), averaged in ``SHAPE_BINS`` parts."""
    sums: dict[tuple, list[list[float]]] = {}
    for (group, variant), (shards, measures, extent) in measured.items():
        if len(shards) < max(3, extent / 2):
            continue
        logs = [math.log(m.rate) for m in measures]
        mean = sum(logs) / len(logs)
        bins = sums.setdefault((*group[:2], variant), [[0.0, 0.0, 0.0] for _ in range(SHAPE_BINS)])
        for shard, value in zip(shards, logs, strict=True):
            part = bins[min(SHAPE_BINS - 1, shard * SHAPE_BINS // extent)]
            part[0] += place_of(shard, extent)
            part[1] += value - mean
            part[2] += 1
    return {key: [(p / n, v / n) for p, v, n in bins if n] for key, bins in sums.items()}


def shape_at(shape: Shape, place: float) -> float:
    """The shape's log-rate deviation at ``place``, linear between its parts (beyond them, the nearest's)."""
    if place <= shape[0][0]:
        return shape[0][1]
    for (x0, v0), (x1, v1) in zip(shape, shape[1:]):
        if place <= x1:
            return v0 + (v1 - v0) * (place - x0) / (x1 - x0)
    return shape[-1][1]


def extrapolated_rate(near: tuple, shard: int, shape: Shape | None) -> float | None:
    """A shard's rate from its group's measured ones (:func:`interpolated_rate`); beyond them, where its kind
    has a cost shape, the nearest one's moved along the shape: a size's first cost window, the dearest
    (the lowest ranks), priced its 223 other windows at its own cost, 5 times their mean."""
    shards, measures, extent = near
    rate = interpolated_rate(shards, measures, shard)
    if shape is None or shards[0] <= shard <= shards[-1]:
        return rate
    nearest = shards[0] if shard < shards[0] else shards[-1]
    return rate * math.exp(shape_at(shape, place_of(shard, extent)) - shape_at(shape, place_of(nearest, extent)))


def rates_of(states: Sequence[ShardState]) -> list[float | None]:
    """Each shard's measured rate, beside ``states``: its group's (:func:`shard_rates`), or, where its kind's
    cost follows the shard, the one interpolated between the measured shards around it of its group and
    variant (shard numbers count apart in each: a RedBlack size's cost windows and their start-up probes,
    whose first compiles the kernels, or its brute-force and owner-rule searches), None while none of
    them is measured: another variant's or size's rate is not its cost (a size's 100-deal start-up
    probes, compiling, priced its 10^6-rank windows at 10 minutes for a batch that took 28 s)."""
    group_rates = shard_rates(states)
    machines = current_machines(states)
    points: dict[tuple[Group, str], dict[int, Measure]] = {}
    for s in states:
        if s.spec.cost_follows_shard:
            for m in measures_of(s, machines.get(s.spec.group)):
                found = points.setdefault((s.spec.group, s.spec.variant), {})
                found[s.spec.shard] = found.get(s.spec.shard, Measure()) + m
    extent: dict[tuple[Group, str], int] = {}
    for s in states:
        if s.spec.cost_follows_shard:
            key = (s.spec.group, s.spec.variant)
            extent[key] = max(extent.get(key, 1), s.spec.shard + 1)
    measured = {g: (sorted(found), [found[n] for n in sorted(found)], extent[g]) for g, found in points.items()}
    shapes = cost_shapes(measured)
    rates = []
    for s in states:
        if s.spec.cost_follows_shard:
            near = measured.get((s.spec.group, s.spec.variant))
            shape = shapes.get((*s.spec.group[:2], s.spec.variant))
            rates.append(extrapolated_rate(near, s.spec.shard, shape) if near else None)
        else:
            rates.append(group_rates.get(s.spec.group))
    return rates


def estimate_scale(states: Sequence[ShardState]) -> float:
    """This machine's job-seconds per estimated CPU second: the geometric mean over the measured groups
    whose kind gives an estimate (of at least ``MIN_ESTIMATED_S`` for their measured work), with the
    estimates' own scale (1) counted ``PRIOR_WEIGHT`` times."""
    estimated: dict[Group, tuple[float, float]] = {}  # each group's estimated CPU seconds and work
    for s in states:
        if s.spec.estimate_s and s.spec.work:
            seconds, work = estimated.get(s.spec.group, (0.0, 0.0))
            estimated[s.spec.group] = (seconds + s.spec.estimate_s, work + s.spec.work)
    logs: list[float] = []
    for group, m in group_measures(states).items():
        if group in estimated and m.rate:
            per_unit = estimated[group][0] / estimated[group][1]
            if m.work * per_unit < MIN_ESTIMATED_S:
                continue
            ratio = m.seconds / (m.work * per_unit)
            logs.append(math.log(min(max(ratio, 1 / SCALE_LIMIT), SCALE_LIMIT)))
    return math.exp(sum(logs) / (len(logs) + PRIOR_WEIGHT))


def priced(states: Sequence[ShardState], rates: Sequence[float | None]) -> list[float]:
    """Each shard's rate, beside ``states``: its measured one (:func:`rates_of`), else its kind's estimate
    at this machine's measured scale (:func:`estimate_scale`), else ``UNESTIMATED_S`` at that scale.

    A group priced by one measurement (its own, or its kind's when it has none) prices its shards left
    at the faster of the two: that one measurement is often its kind's first job, which compiled the
    kernels its other jobs load."""
    scale = estimate_scale(states)
    counts = measurement_counts(states)
    by_kind: dict[tuple[str, str], int] = {}
    for (game, kind, _exp), n in counts.items():
        by_kind[game, kind] = by_kind.get((game, kind), 0) + n
    # priced by one measurement: the group's own, or (none of its own) its kind's
    once = {g for g, n in counts.items() if n == 1 or (n == 0 and by_kind[g[:2]] == 1)}
    out = []
    for s, rate in zip(states, rates, strict=True):
        if rate is None or (s.spec.group in once and s.spec.estimate_s):
            seconds = (s.spec.estimate_s if s.spec.estimate_s else UNESTIMATED_S) * scale
            prior = max(1, s.spec.work) / max(seconds, 1e-3)
            rate = prior if rate is None else max(rate, prior)
        out.append(rate)
    return out


def measurement_counts(states: Sequence[ShardState]) -> dict[Group, int]:
    counts: dict[Group, int] = {}
    for s in states:
        counts[s.spec.group] = counts.get(s.spec.group, 0) + len(measures_of(s))
    return counts
