"""Running one planned shard: the glue between Snakemake and a game engine.

This module turns a spec (see :mod:`engines.interface`) into file paths, runs
the engine, and writes each table atomically with the provenance record; it
also lets a plain ``snakemake`` resume after a killed run.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..core.errors import CardlabError
from ..core.progress import Progress
from ..core.provenance import provenance
from ..core.shards import shard_name
from ..registry import engine

RESULTS = "results"

# Held open for the life of the main snakemake process: the kernel drops an flock
# when its holder dies (SIGKILL included), so holding it proves no other run is alive.
_RUN_LOCK: int | None = None
RUN_LOCK = ".snakemake/cardlab-run.lock"


def shard_path(game: str, table: str, spec: dict, root: str = RESULTS) -> str:
    """Where a shard's table lives: results/<game>/<table>/<experiment>/<variant>/shard=NNNN.parquet."""
    return f"{root}/{game}/{table}/{spec['experiment']}/{spec['variant']}/{shard_name(int(spec['shard']))}.parquet"


def shard_pattern(game: str, table: str, root: str = RESULTS) -> str:
    """The same path as a Snakemake output pattern with wildcards."""
    return f"{root}/{game}/{table}/{{experiment}}/{{variant}}/shard={{shard}}.parquet"


def log_pattern(game: str, root: str = RESULTS) -> str:
    return f"{root}/logs/{game}/{{experiment}}/{{variant}}/shard={{shard}}.log"


def find_spec(plan: Sequence[dict], experiment: str, variant: str, shard: str | int) -> dict:
    for spec in plan:
        if spec["experiment"] == experiment and spec["variant"] == variant and int(spec["shard"]) == int(shard):
            return spec
    raise CardlabError(f"no planned shard {experiment}/{variant}/{shard} in the config")


def set_threads(threads: int) -> int:
    """Numba follows the job's thread count (Snakemake only caps OMP/BLAS); returns numba's count."""
    import numba

    n = max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(n)
    return numba.get_num_threads()


def remove_leftover_temps(path: str | os.PathLike) -> list[Path]:
    """Delete temporaries a killed writer of ``path`` left (Snakemake runs one job per output)."""
    from ..core.store import temp_files

    found = temp_files(path)
    for tmp in found:
        tmp.unlink(missing_ok=True)
    return found


def resume_after_kill(workflow, lock_path: str = RUN_LOCK) -> bool:
    """Let a plain ``snakemake`` resume a run that was killed (called from common.smk).

    A SIGKILLed Snakemake leaves its lock files and "incomplete" markers behind, and
    the next run refuses to start (LockException, IncompleteFilesException).  When
    this process can take an exclusive flock on ``lock_path``, no other cardlab
    snakemake is alive in this directory, so those locks are stale and removed, and
    the outputs of the jobs that were running are deleted with their markers, so
    they are simply rerun (what ``--rerun-incomplete`` does; recomputing gives the
    same bytes).  Only the main process does this: cluster jobs read the Snakefile too.
    Returns whether this process holds the run lock.
    """
    global _RUN_LOCK
    import fcntl

    if not getattr(workflow, "is_main_process", False):
        return False
    if _RUN_LOCK is not None:
        return True
    os.makedirs(os.path.dirname(lock_path) or ".", exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # another snakemake runs here: its locks and markers are real
        os.close(fd)
        return False
    _RUN_LOCK = fd
    state = Path(lock_path).parent
    locks = sorted((state / "locks").glob("*.lock")) if (state / "locks").is_dir() else []
    for f in locks:
        f.unlink(missing_ok=True)
    rerun = clear_incomplete(state / "incomplete")
    if locks or rerun:
        print(
            f"cardlab: resuming after a killed run: removed {len(locks)} stale lock file(s); "
            f"{len(rerun)} output(s) of interrupted jobs will be recomputed",
            file=sys.stderr,
        )
    return True


def rebuild_what_is_missing(planned_files: Sequence[str], manifest: str) -> list[str]:
    """Make this run recompute planned shard files that are missing (called from common.smk).

    Snakemake reruns a job whose output is missing only when something downstream needs
    to run: a deleted shard whose warehouse is newer stays deleted ("Nothing to be done").
    So when a planned file is missing, a dangling symbolic link stands in its place (it is
    removed), or the catalog is not the one the warehouse manifest records (deleted or
    replaced), the manifest is removed: the warehouse job then runs and needs every shard.
    The catalog itself stays queryable until the rebuild replaces it.  Returns what was
    found missing (dangling links and the catalog included)."""
    from .warehouse import catalog_of, manifest_current

    missing = []
    for f in planned_files:
        if os.path.islink(f) and not os.path.exists(f):
            os.unlink(f)  # a dangling link where a shard belongs: the rerun writes the file
            missing.append(f)
        elif not os.path.lexists(f):
            missing.append(f)
    if not os.path.exists(manifest):  # no warehouse built yet (or being rebuilt anyway)
        return missing
    if not manifest_current(manifest):
        missing.append(catalog_of(manifest))
    if missing:
        os.unlink(manifest)
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        print(f"cardlab: missing {shown}: recomputing it and rebuilding the warehouse", file=sys.stderr)
    return missing


def clear_incomplete(markers: Path) -> list[str]:
    """Delete every output Snakemake marked incomplete, and its marker; returns the outputs.

    Markers are files named by the urlsafe base64 of the output path, cut into
    '@'-prefixed directory names when long (snakemake/persistence/file.py).
    """
    from base64 import urlsafe_b64decode

    outputs: list[str] = []
    if not markers.is_dir():
        return outputs
    for dirpath, _, names in os.walk(markers):
        for name in names:
            marker = Path(dirpath, name)
            rel = marker.relative_to(markers)
            try:
                output = urlsafe_b64decode("".join(p.lstrip("@") for p in rel.parts)).decode()
            except (ValueError, UnicodeDecodeError):
                continue  # not a marker (e.g. snakemake's own migration flag)
            if os.path.isfile(output):
                os.unlink(output)
            marker.unlink(missing_ok=True)
            outputs.append(output)
    return sorted(outputs)


TIMING_TAG = "cardlab-timing "


def timing_line(spec: dict, unit: str, wall_s: float, cpu_s: float, threads: int) -> str:
    """The job log's last line: how long the shard's computation took (the warehouse's shard_timings).

    Timings live in logs, not in the Parquet files, which must be the same bytes on every run."""
    record = {
        "work": int(spec.get("work", 0)),
        "unit": unit,
        "wall_s": round(wall_s, 3),
        "cpu_s": round(cpu_s, 3),
        "threads": threads,
    }
    return TIMING_TAG + json.dumps(record, sort_keys=True)


def read_timing(log: str | os.PathLike) -> dict | None:
    """The last timing line of a shard's log, or None (a log from before timings, or a failed job)."""
    try:
        lines = Path(log).read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if line.startswith(TIMING_TAG):
            try:
                return json.loads(line[len(TIMING_TAG) :])
            except ValueError:
                return None
    return None


def run_shard(
    game: str, spec: dict, outputs: dict[str, str], threads: int = 1, inputs: Sequence[str] = (), log: str | None = None
) -> None:
    """Compute one shard and write every table it produces, each atomically."""
    from ..core.store import write_parquet

    eng = engine(game)
    for path in outputs.values():  # temporaries of an earlier, killed attempt at this shard
        remove_leftover_temps(path)
    n_threads = set_threads(threads)
    if log:
        Path(log).parent.mkdir(parents=True, exist_ok=True)
    stream = open(log, "a") if log else sys.stderr
    try:
        print(f"{game} {spec['experiment']}/{spec['variant']}/{spec['shard']}: numba threads {n_threads}", file=stream)
        progress = Progress(
            spec.get("work", 0) or 1,
            eng.unit_of(spec),
            label=f"{game} {spec['experiment']}/{spec['variant']}/{spec['shard']}",
            stream=stream,
        )
        wall0, cpu0 = time.perf_counter(), time.process_time()
        tables = eng.run_shard(spec, progress, list(inputs))
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
                eng.result_version(spec),
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
        print(timing_line(spec, eng.unit_of(spec), wall, cpu, n_threads), file=stream)
    finally:
        if log:
            stream.close()


def shard_from_snakemake(smk) -> None:
    """The shard step of workflow/scripts/step.py (``smk`` is Snakemake's ``snakemake`` object)."""
    outputs = {name: str(path) for name, path in smk.output.items()}
    log = str(smk.log[0]) if len(smk.log) else None
    run_shard(
        smk.params.game,
        dict(smk.params.spec),
        outputs,
        threads=smk.threads,
        inputs=[str(p) for p in smk.input],
        log=log,
    )
