"""Measurements as data: each job's timing record, written as the job goes and read by the cost models.

A job's log is for a person; what the live view, ``cardlab status``, the prices and the warehouse's
``shard_timings`` read is the job's record, ``results/timings/<place>.json`` for
``results/logs/<place>.log`` (:func:`engines.core.layout.timing_of`), each write replacing it whole:

* ``{"state": "running", "started", "threads"}`` when a shard's attempt starts (with ``last``, the
  timing of the attempt before, if one finished), then its latest progress ``reading``
  (done, total, rate, elapsed_s) every few seconds;
* ``{"state": "done", ...}`` with its timing when it ends: work, unit, wall_s, cpu_s, threads,
  machine (the kind of CPU, or the device that computed: :func:`engines.core.machine.machine`),
  cpu, device and device_id (a GPU's name and its CUDA number), peak_mb; a step's (warehouse, report, index) also names its ``step``.

:func:`read_shard_record` turns a record's text into :class:`ShardRecord` measurements.  Every reading goes
through the record's schema (engines/core/bookkeeping.py): a record that fails it is no record to any reader
(the warehouse, the cost models, the campaign listings), and `cardlab verify` names it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from ...core.bookkeeping import timing_record
from ...core.layout import timing_of
from ...core.progress import Reading
from ...kinds import on_gpu


@dataclass(frozen=True)
class RecordFile:
    text: str
    mtime: float


@dataclass(frozen=True)
class Measure:
    """Work and the job-seconds it took, summed over what a group's records report."""

    work: float = 0.0
    seconds: float = 0.0

    def __add__(self, other: Measure) -> Measure:
        return Measure(self.work + other.work, self.seconds + other.seconds)

    @property
    def rate(self) -> float | None:
        """Units per job-second; None before any work was measured."""
        return self.work / self.seconds if self.work > 0 and self.seconds > 0 else None


@dataclass(frozen=True)
class ShardRecord:
    """What one shard's record says: its latest finished job and its latest attempt, if unfinished."""

    finished: Measure | None  # the last finished attempt's timing
    progress: Measure | None  # the unfinished attempt's last reading: work (in spec units) and seconds
    unfinished: bool  # the latest attempt has started and not finished
    mtime: float
    machine: str | None = None  # the kind of CPU the finished job ran on (None: not recorded)
    cpu_s: float | None = None  # the finished job's CPU seconds per thread (None: not recorded, or a GPU's job)
    running_on: str | None = None  # the device the attempt under way computes on (a GPU's name; None: the CPU)


def parse(text: str) -> dict:
    """A record's fields, checked against its schema (engines/core/bookkeeping.py): {} for an empty one (a
    job that has not written it yet) and for a bad one, which every reader leaves out."""
    return timing_record(text)[0] or {}


def is_bad(text: str) -> bool:
    """Whether a record fails its schema (`cardlab verify` names it; every reader leaves it out)."""
    return timing_record(text)[1] is not None


def finished_timing(data: Mapping) -> dict | None:
    """The timing of a record's last finished attempt (its own, or the one before the attempt under way)."""
    if data.get("state") == "done":
        return dict(data)
    last = data.get("last")
    return dict(last) if isinstance(last, dict) else None


@lru_cache(maxsize=8192)  # the live view reads every record each second; most have not changed
def read_shard_record(text: str, mtime: float, work: int) -> ShardRecord | None:
    """A shard record's measurements; progress is scaled to the spec's ``work`` (a job may count other units).
    None for a record that fails its schema: no measurement, as if the job had written none."""
    if is_bad(text):
        return None
    data = parse(text)
    timing = finished_timing(data)
    finished = Measure(float(timing.get("work") or 0), float(timing.get("wall_s") or 0.0)) if timing else None
    progress = None
    unfinished = data.get("state") != "done"  # an empty record: the job has started and written nothing yet
    reading = data.get("reading")
    if unfinished and isinstance(reading, dict) and reading.get("total"):
        share = min(1.0, reading["done"] / reading["total"])
        rate = float(reading.get("rate") or 0.0)
        # the rate is the shard's mean since it began: done / rate is its time, to the sub-second
        seconds = reading["done"] / rate if rate > 0 else float(reading.get("elapsed_s") or 0.0)
        progress = Measure(share * work, seconds)
    machine = timing.get("machine") if timing else None
    running_on = data.get("machine") if unfinished else None
    cpu_s = cpu_per_thread(timing) if timing else None
    return ShardRecord(finished, progress, unfinished, mtime, machine, cpu_s, running_on)


def step_record(text: str) -> dict | None:
    """A step's timing once the step has finished (engines/pipeline/snakemake/steps.py), else None."""
    data = parse(text)
    return data if data.get("state") == "done" and data.get("step") and data.get("cpu_s") else None


def step_cpu(texts: Mapping[str, str]) -> dict[str, float]:
    """Each step's CPU seconds by its kind (warehouse, report, index), the mean over the finished records
    (``texts``: a record's path -> its text): a step's cost on any machine, which the one running it
    stretches by its load."""
    found: dict[str, list[float]] = {}
    for record in filter(None, map(step_record, texts.values())):
        found.setdefault(str(record["step"]), []).append(float(record["cpu_s"]))
    return {step: sum(cpu) / len(cpu) for step, cpu in found.items()}


def cpu_priced(record: Mapping | None) -> float | None:
    """A timing's CPU seconds where they price work on a CPU; None for a shard a device computed
    (its process's CPU time only waited on the GPU) or no timing."""
    if not record or on_gpu(record.get("machine")):
        return None
    return record.get("cpu_s")


def cpu_per_thread(record: Mapping) -> float | None:
    """A timing's CPU seconds per thread it ran (beside its wall seconds: how much of the time the
    job had a CPU); None where not recorded or where a device computed (its CPU time only waited)."""
    cpu = cpu_priced(record)
    return float(cpu) / max(1, int(record.get("threads") or 1)) if cpu else None


def mtime(path: str | os.PathLike) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


NOT_UTF8 = "\ufffd (not UTF-8 text)"  # a record's text that is no JSON: the readers leave the record out


def read_record(path: str | os.PathLike) -> RecordFile | None:
    """A record's text and modification time, read together (None: no such record)."""
    try:
        with open(path, "rb") as fh:
            when = os.fstat(fh.fileno()).st_mtime
            raw = fh.read()
    except OSError:
        return None
    try:
        return RecordFile(raw.decode("utf-8"), when)
    except UnicodeDecodeError:
        return RecordFile(NOT_UTF8, when)


def read_timing(path: str | os.PathLike | None) -> dict | None:
    """The timing of a job's last finished attempt, from its record (None: none, or not finished)."""
    found = read_record(path) if path is not None else None
    return finished_timing(parse(found.text)) if found is not None else None


def last_reading(path: str | os.PathLike) -> Reading | None:
    """The latest progress reading of a job under way (None: none yet, finished, or no record)."""
    found = read_record(path)
    reading = parse(found.text).get("reading") if found is not None else None
    try:
        return Reading(**reading) if isinstance(reading, dict) else None
    except TypeError:
        return None


def write_record(path: str | os.PathLike, data: Mapping) -> None:
    """Replace a record whole (a reader sees the old one or the new one, never part of one)."""
    from ...core.store import write_text  # pyarrow: records are read by every parser (status), written by jobs

    write_text(path, json.dumps(data, sort_keys=True) + "\n")


class JobRecorder:
    """A shard job's record as it goes: started, its readings, its timing at the end."""

    def __init__(self, path: str | os.PathLike, threads: int, started: float) -> None:
        self.path = path
        last = read_timing(path)
        self.head = {"state": "running", "started": round(started, 3), "threads": threads}
        if last is not None:
            last.pop("last", None)
            last.pop("state", None)
            self.head["last"] = last
        write_record(path, self.head)

    def on_device(self, device_id: str, machine: str | None) -> None:
        """The GPU the job computes on (engines/pipeline/compute/devices.py), and its name: the live view
        prices the shards left at the rate of the machine the latest ones run on."""
        self.head |= {"device_id": device_id, "machine": machine}
        write_record(self.path, self.head)

    def reading(self, reading: Reading) -> None:
        write_record(self.path, {**self.head, "reading": reading._asdict()})

    def finished(self, timing: Mapping) -> None:
        write_record(self.path, {"state": "done", **timing})


def shard_records(shards: Iterable) -> dict[str, RecordFile]:
    """Each planned shard's record that exists, by its log's path (what the progress model reads)."""
    return {s.log: found for s in shards if (found := read_record(timing_of(s.log))) is not None}


def timing_of_log(log: str | os.PathLike) -> dict | None:
    """The finished timing of the job that writes ``log``, from its record (None: none yet)."""
    return read_timing(timing_of(log))
