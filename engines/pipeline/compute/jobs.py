"""Running one planned shard: a game engine's tables written with their provenance.

This module runs the engine on a spec (see :mod:`engines.interface`) and writes each table
atomically with the provenance record, and the job's timing record (engines/pipeline/bookkeeping/records.py)
as it goes, naming the machine as engines/core/machine.py does.  Paths come from :mod:`engines.core.layout`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ...core.errors import CardlabError
from ...core.layout import remove_temp_files, timing_of
from ...core.machine import machine, peak_mb
from ...core.progress import Progress
from ...core.provenance import provenance
from ...core.store import write_parquet
from ...core.threads import set_threads
from ...interface import result_version, unit_of
from ...kinds import GPU_BACKEND
from ...registry import engine
from ..bookkeeping.records import JobRecorder
from .devices import claim_device

# A job's first log line, "<game> <experiment>/<variant>/<shard>: numba threads N" (a person reading
# a log that holds several attempts, Snakemake appending, tells them apart by it)
START_TAG = ": numba threads "


def timing(
    spec: dict,
    unit: str,
    wall_s: float,
    cpu_s: float,
    threads: int,
    device: str | None = None,
    device_id: str | None = None,
) -> dict:
    """How long a shard's computation took, and on what kind of CPU (the warehouse's shard_timings), or
    on what device where a backend computed it elsewhere (a GPU: its ``machine`` is the GPU's name, so
    no CPU kind's rate ever pools with it, ``cpu`` the CPU that waited on it, and ``device_id`` the device
    as CUDA numbered it for the job: engines/pipeline/compute/devices.py).

    Timings live in job records, not in the Parquet files, which must be the same bytes on every run."""
    return {
        "work": int(spec.get("work", 0)),
        "unit": unit,
        # microseconds: a cost window of 10^6 ranks takes 10-30 ms on a fast CPU, so milliseconds
        # would round two windows to one value and give their interval no width
        "wall_s": round(wall_s, 6),
        "cpu_s": round(cpu_s, 6),
        "threads": threads,
        "machine": device or machine(),
        "cpu": machine(),
        "device": device,
        "device_id": device_id,
        "peak_mb": peak_mb(),
    }


def run_shard(
    game: str,
    spec: dict,
    outputs: dict[str, str],
    threads: int = 1,
    inputs: Sequence[str] = (),
    log: str | None = None,
    backend: str | None = None,
) -> None:
    """Compute one shard with ``backend`` (None: its kind's default) and write every table it produces,
    each atomically, and (given its ``log``) the job's timing record as it goes.  A backend never
    changes what is written, only the timing's machine."""
    eng = engine(game)
    for path in outputs.values():  # temporaries of an earlier, killed attempt at this shard
        remove_temp_files(path)
    n_threads = set_threads(threads)
    if log:
        Path(log).parent.mkdir(parents=True, exist_ok=True)
    stream = open(log, "a") if log else sys.stderr
    record = JobRecorder(timing_of(log), n_threads, time.time()) if log else None
    try:
        device_id = claim_device() if backend == GPU_BACKEND else None  # before numba-cuda starts; it may wait
        kind = eng.kind_of(spec)
        device = kind.device(backend) if backend else None
        if record is not None and device_id is not None:
            record.on_device(device_id, device)
        print(f"{game} {spec['experiment']}/{spec['variant']}/{spec['shard']}{START_TAG}{n_threads}", file=stream)
        progress = Progress(
            spec.get("work", 0) or 1,
            unit_of(eng, spec),
            label=f"{game} {spec['experiment']}/{spec['variant']}/{spec['shard']}",
            stream=stream,
            on_reading=record.reading if record else None,
        )
        wall0, cpu0 = time.perf_counter(), time.process_time()
        tables = kind.compute(spec, progress, list(inputs), backend)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        progress.close()
        missing = set(outputs) - set(tables)
        if missing:
            raise CardlabError(f"{game} run_shard did not produce tables {sorted(missing)}")
        for table, path in outputs.items():
            columns = tables[table]
            rows = len(next(iter(columns.values()))) if len(columns) else 0
            meta = provenance(
                game,
                result_version(eng, spec),
                table=table,
                experiment=spec["experiment"],
                variant=spec["variant"],
                shard=int(spec["shard"]),
                spec=spec,
                rows=rows,
            )
            write_parquet(path, columns, meta, schema=eng.tables[table])
        print(
            f"wrote {len(outputs)} table(s) for {game} {spec['experiment']}/{spec['variant']}/{spec['shard']}",
            file=stream,
        )
        if record is not None:
            record.finished(timing(spec, unit_of(eng, spec), wall, cpu, n_threads, device, device_id))
    finally:
        if log:
            stream.close()
