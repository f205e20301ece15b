"""Why a run failed, said where the user looks: the terminal, not only a job's log.

Every job ends a failure with one ``error: <cause and fix>`` line, in its log for a person and in
its timing record for the run (engines/pipeline/snakemake/steps.py, :func:`record_failure`).  Snakemake itself
only says that a script "returned non-zero exit status 1", and the project's profile hides the job
blocks that would name the log.  So when a run fails, the Snakefile's ``onerror`` handler (and
``cardlab run``) print, for each job whose record failed during the run, its cause, with the log's
path for the traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

from ...core.fmt import listed
from ...core.layout import RESULTS, logs_dir, parse_log_path, timing_of, timings_dir
from ..bookkeeping.records import parse, read_record, read_timing, write_record
from ..bookkeeping.runstate import run_start


def record_failure(log: str | os.PathLike, cause: str) -> None:
    """A job's record says it failed, and why (the timing of an attempt that finished before is kept)."""
    record = timing_of(log)
    write_record(record, {"state": "failed", "error": cause, "log": str(log), "last": read_timing(record)})


def failed_jobs(since: float, results: str = RESULTS) -> list[tuple[str, str]]:
    """(log, cause) of every job whose record failed since ``since``, oldest first."""
    return [
        (str(d["log"]), str(d.get("error") or ""))
        for d in records_since(since, results)
        if d.get("state") == "failed" and d.get("log")
    ]


def stopped_jobs(since: float, results: str = RESULTS) -> list[str]:
    """The records (paths) of the jobs started since ``since`` that never ended (killed, or stopped with the run)."""
    return [str(d["record"]) for d in records_since(since, results) if d.get("state") == "running"]


def records_since(since: float, results: str) -> list[dict]:
    """Every job record written since ``since``, oldest first, with its path as ``record``."""
    found = []
    records = Path(timings_dir(results))
    for path in records.rglob("*.json") if records.is_dir() else []:
        record = read_record(path)
        if record is not None and record.mtime >= since:
            found.append((record.mtime, str(path), {**parse(record.text), "record": str(path)}))
    return [data for _, _, data in sorted(found, key=lambda f: f[:2])]


def job_name(log: str, results: str = RESULTS) -> str:
    """A job as the terminal names it, from its log's place: ``redblack basins/all/0``, ``warehouse``."""
    place = parse_log_path(log, results)
    if place is not None:
        return f"{place.game} {place.experiment}/{place.variant}/{place.shard}"
    return "/".join(Path(log).relative_to(logs_dir(results)).with_suffix("").parts)


def report_failures(
    snakemake_log: str | os.PathLike | list | None,
    out: TextIO = sys.stderr,
    results: str = RESULTS,
    since: float | None = None,
) -> int:
    """Print why the run failed, a job a line (jobs whose records failed since the run began, or
    ``since``); returns how many jobs said why.  (Snakemake 9 hands ``onerror`` a list of its log files.)"""
    since = (run_start() or 0.0) if since is None else since
    failed = failed_jobs(since, results)
    if not failed:
        stopped = stopped_jobs(since, results)
        where = f" and in {' '.join(map(str, snakemake_log))}" if isinstance(snakemake_log, list) else ""
        if stopped:
            names = listed([Path(r).relative_to(timings_dir(results)).with_suffix("").as_posix() for r in stopped], 4)
            print(
                f"cardlab: no job said why the run ended; {len(stopped)} job(s) it started did not finish ({names}): "
                f"killed (a signal, memory) or stopped with the run; Snakemake's own messages are above{where}. "
                "`snakemake --cores all` resumes, finished shards are kept",
                file=out,
            )
        else:
            print(
                "cardlab: no job failed; Snakemake ended the run itself (asked to stop, e.g. by SIGTERM, or an error "
                f"of its own): its messages are above{where}",
                file=out,
            )
        return 0
    print(f"cardlab: {len(failed)} job(s) failed:", file=out)
    for log, cause in failed:
        print(f"  {job_name(log, results)}: {cause}", file=out)
        print(f"    (the job's log: {log})", file=out)
    return len(failed)
