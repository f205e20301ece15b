"""Why a run failed, said where the user looks: the terminal, not only a job's log.

Every job ends a failure with one ``error: <cause and fix>`` line in its log (engines/pipeline/
steps.py).  Snakemake itself only says that a script "returned non-zero exit status 1", and the
project's profile hides the job blocks that would name the log.  So when a run fails, the
Snakefile's ``onerror`` handler (and ``cardlab run``) print, for each job log written during the
run, its last attempt's cause, with the log's path for the traceback.
"""

from __future__ import annotations

import os
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import TextIO

from ..core.layout import RESULTS, logs_dir, parse_log_path
from .jobs import START_TAG

ERROR_PREFIX = "error: "
SNAKEMAKE_OUTPUT = "snakemake.log"
# Snakemake names each run's log by the moment it started: 2026-12-04T143138.111099.snakemake.log
_RUN_LOG = re.compile(r"(\d{4}-\d\d-\d\dT\d{6}\.\d+)\.snakemake\.log$")


def run_started(snakemake_log: str | os.PathLike | list | None) -> float:
    """When the run that writes ``snakemake_log`` began (its name says); its creation as a fallback.
    (Snakemake 9 hands ``onerror`` a list of its log files.)"""
    if isinstance(snakemake_log, (list, tuple)):
        snakemake_log = snakemake_log[0] if snakemake_log else None
    if snakemake_log:
        m = _RUN_LOG.search(str(snakemake_log))
        if m:
            return datetime.strptime(m.group(1), "%Y-%m-%dT%H%M%S.%f").timestamp()
        try:
            return os.stat(snakemake_log).st_ctime
        except OSError:
            pass
    return 0.0


def last_error(text: str) -> str | None:
    """The cause a job log's last attempt ended with (Snakemake appends attempts), or None."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if START_TAG in line]
    tail = lines[starts[-1] :] if starts else lines
    errors = [line[len(ERROR_PREFIX) :] for line in tail if line.startswith(ERROR_PREFIX)]
    return errors[-1] if errors else None


def failed_jobs(since: float, results: str = RESULTS) -> list[tuple[str, str]]:
    """(log, cause) of every job log written since ``since`` whose last attempt failed, oldest first."""
    found = []
    logs = Path(logs_dir(results))
    for path in logs.rglob("*.log") if logs.is_dir() else []:
        if path.name == SNAKEMAKE_OUTPUT:  # `cardlab run`'s copy of Snakemake's output, no job's log
            continue
        try:
            if path.stat().st_mtime < since:
                continue
            cause = last_error(path.read_text(errors="replace"))
        except OSError:
            continue
        if cause is not None:
            found.append((path.stat().st_mtime, str(path), cause))
    return [(log, cause) for _, log, cause in sorted(found)]


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
    """Print why the run failed, a job a line (jobs whose logs were written since the run began, or
    ``since``); returns how many jobs said why."""
    failed = failed_jobs(run_started(snakemake_log) if since is None else since, results)
    if not failed:
        print(
            "cardlab: the run failed before any job said why; Snakemake's own messages are above"
            + (f" and in {' '.join(map(str, snakemake_log))}" if isinstance(snakemake_log, list) else ""),
            file=out,
        )
        return 0
    print(f"cardlab: {len(failed)} job(s) failed:", file=out)
    for log, cause in failed:
        print(f"  {job_name(log, results)}: {cause}", file=out)
        print(f"    (the job's log: {log})", file=out)
    return len(failed)
