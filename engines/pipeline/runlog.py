"""The one reader of job logs: what a shard's log says (its progress and timing lines), and the names of logs.

A shard job writes ``results/logs/<game>/<experiment>/<variant>/shard=NNNN.log``: a start
tag per attempt, progress lines every few seconds (engines/core/progress.py), a timing
line at the end (engines/pipeline/jobs.py).  :func:`read_shard_log` turns one log's text
into :class:`ShardLog` measurements (work and the job-seconds it took);
:func:`last_reading` is a log's latest progress line; :func:`latest_run_start` reads when
the newest Snakemake run began from its log's name.  No English and no clock here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..core.progress import Reading, read_line
from .jobs import START_TAG, cpu_priced, timing_record

SNAKEMAKE_LOGS = ".snakemake/log"  # Snakemake names each run's log by its start: 2026-12-01T082828.728009.snakemake.log


@dataclass(frozen=True)
class LogFile:
    text: str
    mtime: float


@dataclass(frozen=True)
class Measure:
    """Work and the job-seconds it took, summed over what a group's logs report."""

    work: float = 0.0
    seconds: float = 0.0

    def __add__(self, other: Measure) -> Measure:
        return Measure(self.work + other.work, self.seconds + other.seconds)

    @property
    def rate(self) -> float | None:
        """Units per job-second; None before any work was measured."""
        return self.work / self.seconds if self.work > 0 and self.seconds > 0 else None


@dataclass(frozen=True)
class ShardLog:
    """What one shard's log says: its latest finished job and its latest attempt, if unfinished."""

    finished: Measure | None  # from the last timing line
    progress: Measure | None  # the unfinished attempt's last progress line: work (in spec units) and seconds
    unfinished: bool  # the latest attempt has started and written no timing line
    mtime: float
    machine: str | None = None  # the kind of CPU the finished job ran on (None: not recorded)
    cpu_s: float | None = None  # the finished job's CPU seconds per thread (None: not recorded, or a GPU's job)


@lru_cache(maxsize=8192)  # the live view reads every log each second; most have not changed
def read_shard_log(text: str, mtime: float, work: int) -> ShardLog:
    """A shard log's measurements; progress is scaled to the spec's ``work`` (a job may count other units)."""
    # a log with no line yet is a job that has started (Snakemake's job opened it) and not reached its first
    finished: Measure | None = None
    progress: Measure | None = None
    unfinished = not text.strip()
    machine = None
    cpu_s = None
    for line in text.splitlines():
        if START_TAG in line and read_line(line) is None:
            progress = None
            unfinished = True
            continue
        record = timing_record(line)
        if record is not None:
            wall = float(record.get("wall_s") or 0.0)
            finished = Measure(float(record.get("work") or 0), wall)
            progress = None
            unfinished = False
            machine = record.get("machine")
            cpu_s = cpu_per_thread(record)
            continue
        reading = read_line(line)
        if reading is not None:  # a progress line after the last timing line: an attempt under way
            unfinished = True
            share = min(1.0, reading.done / reading.total) if reading.total else 0.0
            # the printed rate is the shard's mean since it began: done / rate is its time, to the sub-second
            seconds = reading.done / reading.rate if reading.rate > 0 else reading.elapsed_s
            progress = Measure(share * work, seconds)
    return ShardLog(finished, progress, unfinished, mtime, machine, cpu_s)


def step_record(text: str) -> dict | None:
    """The timing line a step's log ends with once the step has finished (engines/pipeline/steps.py), else None."""
    record = next(filter(None, map(timing_record, reversed(text.splitlines()))), None)
    return record if record is not None and record.get("step") and record.get("cpu_s") else None


def step_cpu(texts: Mapping[str, str]) -> dict[str, float]:
    """Each step's CPU seconds by its kind (warehouse, report, index), the mean over the logs (``texts``: a step
    log's path -> its text) that end with its timing line: a step's cost on any machine, which the one running
    it stretches by its load."""
    found: dict[str, list[float]] = {}
    for record in filter(None, map(step_record, texts.values())):
        found.setdefault(str(record["step"]), []).append(float(record["cpu_s"]))
    return {step: sum(cpu) / len(cpu) for step, cpu in found.items()}


def cpu_per_thread(record: dict) -> float | None:
    """A timing record's CPU seconds per thread it ran (beside its wall seconds: how much of the time the
    job had a CPU); None where not recorded or where a device computed (its CPU time only waited)."""
    cpu = cpu_priced(record)
    return float(cpu) / max(1, int(record.get("threads") or 1)) if cpu else None


def mtime(path: str | Path) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def read_log(path: str) -> LogFile | None:
    """A log's text and modification time, read together (None: no such log)."""
    try:
        with open(path, "rb") as fh:
            when = os.fstat(fh.fileno()).st_mtime
            return LogFile(fh.read().decode("utf-8", "replace"), when)
    except OSError:
        return None


def last_reading(path: str, lines: int = 5) -> Reading | None:
    """The latest progress line among a log's last ``lines`` lines (None: none, or no log)."""
    try:
        text = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(text[-lines:]):
        reading = read_line(line)
        if reading is not None:
            return reading
    return None


def latest_run_start(log_dir: str = SNAKEMAKE_LOGS) -> float | None:
    """When the newest snakemake run in this directory began (from its log's name), or None."""
    from datetime import datetime

    starts = []
    for p in Path(log_dir).glob("*.snakemake.log"):
        try:
            starts.append(datetime.strptime(p.name.removesuffix(".snakemake.log"), "%Y-%m-%dT%H%M%S.%f").timestamp())
        except ValueError:
            continue
    return max(starts, default=None)
