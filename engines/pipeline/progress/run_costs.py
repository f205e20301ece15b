"""What a run costs beyond its shards' work, priced before it is measured: the machine's slowdown, each job's
start-up, the kernels still to compile, the steps after the shards (engines/pipeline/progress/progress_model.py's
estimate adds them to the work priced by engines/pipeline/progress/pricing.py).

What no timing record of this run measures yet is priced in CPU seconds and stretched by the machine's
*slowdown* (:func:`slowdown`): the wall seconds this run's jobs took per CPU second, so one price fits an
idle machine and a loaded one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ShardState = Any  # engines/pipeline/progress/progress_model.py's ShardState, which imports this module
Snapshot = Any  # and its Snapshot

# What no timing record of this run prices yet, in CPU seconds, stretched by the machine's slowdown (wall
# seconds per CPU second, :func:`slowdown`).  Measured on the 2-core machine here, at load 1, apart from
# the recordings the tests replay (tests/data/live_cold*.json, live_warm*.json, made at slowdowns of 4.8
# and 2.8: they check these prices, none of which they set), by a cold run of tests/live_recording.py's
# third config (live_cold3.json, recorded with its steps' timing records) and a warm rerun of it:
# - a job's start-up outside its timed computation (process start, the numba, pyarrow and engine imports
#   (0.6 CPU-s), Snakemake's bookkeeping): the warm rerun's 25.8 CPU-s, less its shards' timed 2.5, its
#   steps' 8.7 and Snakemake's own start (2.4, a dry run) and end, over its 8 shard jobs: 1.4 (as
#   engines/kinds.py says, about 1.3);
JOB_START_CPU_S = 1.3
PRIOR_JOBS = 2  # how many jobs the start-up's price counts as once this run's own are measured
# - the kernels a shard's first job compiles on a cold numba cache where its kind has not measured its
#   own (its kind's Schedule.compile_cpu_s): the mean of the eight the kinds measured (0 to 12 CPU-s: Narcotic's
#   and RedBlack's exhaustive kernels the dearest, Blackjack's exact tables none);
COMPILE_CPU_S = 5.0
# - each step after the shards, its process whole (interpreter, imports, its work), until this run's or an
#   earlier run's step records say their own (engines/pipeline/running/steps.py): the cold run's timing records (a
#   report: the mean of its three); and Snakemake's end, from the index's timing record to its exit (1.4 s);
STEP_CPU_S = {"report": 1.75, "index": 1.05}
STEPS = ("warehouse", *STEP_CPU_S)
SNAKEMAKE_END_CPU_S = 1.3
# - the warehouse reads every planned shard file: 3.08 CPU-s for the 55 files of that run, 11.16 for the
#   3,275 of a cold `cardlab run` of the default config (a fresh clone, 1,912 of them kept): 2.94 CPU-s
#   and 2.5 ms a file;
WAREHOUSE_CPU_S = 2.94
WAREHOUSE_FILE_CPU_S = 0.0025
# - a step waits at least this much beyond its CPU (DuckDB, Parquet, figures written): the cold run's
#   steps took 13.4 wall-s for 9.4 CPU-s (1.43 per CPU-s) where its jobs took 1.06.
STEP_WAIT = 1.35
# Before this run's or an earlier run's jobs have timing records (a cold run's first seconds), the slowdown
# is the machine's load per CPU (a job gets one CPU in that many), where the snapshot knows it, else
# SLOWDOWN_PRIOR (a recording made without the load: a guess, a job getting half a CPU), drawn towards
# the measured slowdown as CPU seconds are measured: PRIOR_CPU_S of them weigh as much as the prior, so
# that a first job's line (a second or two of CPU, often one that waited on another's compilation) moves
# it halfway, not all the way.
SLOWDOWN_PRIOR = 2.0
PRIOR_CPU_S = 2.0


def started_in_run(s: ShardState, run_started: float) -> bool:
    return s.log is not None and s.log.mtime >= run_started and (s.state == "running" or s.log.finished is not None)


def job_key(s: ShardState) -> str:
    """The job a shard runs in: its batch's, else its own."""
    return s.spec.job or s.spec.log


def job_overhead(states: Sequence[ShardState], snap: Snapshot, parallel: int, slow: float) -> float:
    """Seconds a job of this run spends outside its measured computation (process start, imports, writing,
    Snakemake's bookkeeping between jobs): ``JOB_START_CPU_S`` at the run's slowdown ``slow`` until jobs of
    this run are measured.

    The jobs' timing records time only the computation; the rest of the run's capacity since its first
    computation began (the jobs at once times the time) went into start-up, spread over the jobs
    started.  The estimate counts ``PRIOR_JOBS`` times among them, so a first job's imports do not
    price all the others alone.  Without the run's start (a view of jobs started elsewhere) it is not
    known, and counted as none."""
    prior = JOB_START_CPU_S * slow
    if snap.run_started is None:
        return 0.0
    if not snap.alive:
        return prior
    started = [s for s in states if started_in_run(s, snap.run_started)]
    if not started:
        return prior
    measured = 0.0
    first = snap.now
    for s in started:
        if s.state == "running":
            seconds = (s.log.progress.seconds if s.log.progress else 0.0) + max(0.0, snap.now - s.log.mtime)
            first = min(first, snap.now - seconds)
        else:
            seconds = s.log.finished.seconds
            first = min(first, s.log.mtime - seconds)
        measured += seconds
    jobs = len({job_key(s) for s in started})
    # from the first job's start (its computation's, less a job's start-up): Snakemake's own start before it
    # (checking the plan's files) is paid once, not by every job
    spent = max(0.0, parallel * (snap.now - max(first - prior, snap.run_started)) - measured)
    return (prior * PRIOR_JOBS + spent) / (PRIOR_JOBS + jobs)


def slowdown(states: Sequence[ShardState], snap: Snapshot) -> float:
    """Wall seconds a job takes per CPU second it computes, as this machine runs now (its load; I/O): the
    CPU-weighted median over the finished jobs' timing records, this run's where it has any, else an earlier
    run's (a warm run's previous timings), drawn towards a prior while few CPU seconds are measured: the
    machine's load per CPU where the snapshot knows it, else ``SLOWDOWN_PRIOR``.  A median: a job that
    waited (for another's compilation, for the disk) is not the machine's pace."""
    timed = [s.log for s in states if s.log is not None and s.log.finished is not None and s.log.cpu_s]
    if snap.run_started is not None:
        timed = [log for log in timed if log.mtime >= snap.run_started] or timed
    prior = max(1.0, snap.load) if snap.load is not None else SLOWDOWN_PRIOR
    if not timed:
        return prior
    ratios = sorted((log.finished.seconds / log.cpu_s, log.cpu_s) for log in timed)
    cpu = sum(c for _, c in ratios)
    seen = 0.0
    for ratio, c in ratios:  # the CPU-weighted median
        seen += c
        if seen >= cpu / 2:
            break
    return max(1.0, (prior * PRIOR_CPU_S + ratio * cpu) / (PRIOR_CPU_S + cpu))


def kernels_never_run(states: Sequence[ShardState]) -> dict[tuple[str, str, str], float]:
    """The kernels (:attr:`PlannedShard.compiled`) of shards with work left that no job has ever loaded here (no
    log of any shard of them), with their compilation's CPU seconds: the first job of each compiles them."""
    ran = {s.spec.compiled for s in states if s.log is not None}
    left = [s.spec for s in states if s.state not in ("done", "kept") and s.spec.compiled not in ran]
    return {spec.compiled: spec.compile_cpu_s for spec in left}


def compiling(states: Sequence[ShardState]) -> set[tuple[str, str, str]]:
    """Kernels whose first job here is under way: no job of them has finished, in this run or an earlier one."""
    finished = {s.spec.compiled for s in states if s.log is not None and s.log.finished is not None}
    return {s.spec.compiled for s in states if s.state == "running"} - finished


def step_cpu_s(snap: Snapshot, kind: str) -> float:
    """A step's CPU seconds as its timing records say (this run's or an earlier one's), else its price:
    the warehouse's by the files it reads (``WAREHOUSE_CPU_S``), the others' ``STEP_CPU_S``."""
    if kind in snap.step_cpu:
        return snap.step_cpu[kind]
    if kind == "warehouse":
        return WAREHOUSE_CPU_S + WAREHOUSE_FILE_CPU_S * sum(len(s.files) for s in snap.plan)
    return STEP_CPU_S[kind]


def step_slowdown(slow: float, cores: int, at_once: int) -> float:
    """Wall seconds per CPU second of ``at_once`` step processes on ``cores``, where the run's jobs, one a core,
    took ``slow``: the machine's other load is what slowed them beyond a core each ((slow - 1) * cores
    CPUs busy elsewhere: Snakemake, the live view, other users), shared now by fewer processes of the run.
    A cold `cardlab run` whose jobs took 2.07: its warehouse, alone, 1.57 (this says 1.57), its reports,
    two at once, 1.91 to 2.42 (2.07); at least ``STEP_WAIT``."""
    busy_elsewhere = max(0.0, (slow - 1.0) * cores)
    return max(STEP_WAIT, (at_once + busy_elsewhere) / max(1, cores))


def step_seconds(snap: Snapshot, kind: str, slow: float, at_once: int = 1) -> float:
    """A step's wall seconds: its CPU seconds (:func:`step_cpu_s`) at the machine's slowdown for ``at_once``
    step processes (:func:`step_slowdown`)."""
    return step_cpu_s(snap, kind) * step_slowdown(slow, snap.cores, at_once)


def compiling_left(s: ShardState, work_s: float, price: float, slow: float, now: float) -> float:
    """Job-seconds left of a running first job of its kernels with no progress line yet (compiling them):
    their compilation, then its work, less the time it has run; ``work_s``: its work's alone."""
    ran = max(0.0, now - s.log.mtime)
    return max(work_s, s.spec.compile_cpu_s * slow + (s.spec.work - s.done_work) / price - ran)


def finishing(snap: Snapshot, slow: float = 1.0) -> float:
    """Wall seconds of the steps after the shards still to finish: one after another but for the reports,
    which run side by side on the run's cores, then Snakemake's end; the first of them under way since the
    latest finished."""
    reports = snap.steps.count("report")
    at_once = max(1, min(snap.cores, reports))
    rounds = reports / at_once if reports else 0
    price = {kind: step_seconds(snap, kind, slow, at_once if kind == "report" else 1) for kind in STEPS}
    left = sum(price[k] for k in snap.steps if k != "report") + rounds * price["report"]
    left += SNAKEMAKE_END_CPU_S * slow if snap.steps else 0.0
    if snap.steps and snap.steps_since is not None:
        left -= min(price[snap.steps[0]], snap.now - snap.steps_since)
    return max(0.0, left)
