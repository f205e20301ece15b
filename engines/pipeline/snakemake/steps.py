"""The one entry point of every Snakemake job (workflow/scripts/step.py): run a step, fail in one line.

Each rule names its step in ``params.step``; the step's function does the work
through the engines and the pipeline modules.  A CardlabError ends the job with
``error: <reason>`` on stderr (and in the job's log and record) and exit status 1.  The steps after
the shards (warehouse, reports, index) write their timing record when they end (:func:`step_timing`):
the live view prices the next run's steps by them (engines/pipeline/bookkeeping/records.py).
"""

from __future__ import annotations

import errno
import resource
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import psutil  # Snakemake's own dependency: every step runs under it

# Imported here, what every job kind loads (pyarrow included: each reads or writes Parquet); a heavy
# module only one kind of job uses is imported in its step, so that the others start without it.
from ...core.errors import CardlabError
from ...core.layout import MANIFEST_SUFFIX, catalog_of, log_path, parse_shard_path, shard_path, timing_of
from ...core.machine import machine, peak_mb
from ...core.store import open_shard, verified_table, without_pandas
from ...kinds import chosen_backend
from ...registry import engine
from ..bookkeeping.records import write_record
from ..planning.plan import Plan
from ..trust.repair import is_tracked, quarantine
from .failures import record_failure


class BatchError(CardlabError):
    """A shard of a batch job failed; its own log already says why."""


def _steps() -> dict[str, Callable]:
    return {
        "shard": shard_from_snakemake,
        "batch": batch_from_snakemake,
        "warehouse": warehouse_from_snakemake,
        "game_report": report_from_snakemake,
        "index": index_from_snakemake,
    }


# the steps after the shards, by the name the live view prices them under (engines/pipeline/progress/costs.py)
TIMED_STEPS = {"warehouse": "warehouse", "game_report": "report", "index": "index"}


def step_timing(step: str) -> dict:
    """A step's timing: its process's wall and CPU seconds since it started (the interpreter's and the
    imports' included: the whole of what the step costs the run), and the kind of CPU."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "step": step,
        "wall_s": round(time.time() - psutil.Process().create_time(), 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "threads": 1,
        "machine": machine(),
        "peak_mb": peak_mb(),
    }


def shard_from_snakemake(smk) -> None:
    """The shard step: one planned shard's tables (``smk`` is Snakemake's ``snakemake`` object)."""
    from ..compute.jobs import run_shard  # numba: the shard jobs' own (their kernels)

    without_pandas()
    outputs = {name: str(path) for name, path in smk.output.items()}
    log = str(smk.log[0]) if len(smk.log) else None
    check_inputs([str(p) for p in smk.input])
    spec = dict(smk.params.spec)
    run_shard(
        smk.params.game,
        spec,
        outputs,
        threads=smk.threads,
        inputs=[str(p) for p in smk.input],
        log=log,
        backend=backend_of(smk.config, smk.params.game, spec),
    )


def backend_of(config, game: str, spec: dict) -> str:
    """The backend the run's config chooses for a shard.  Read here, at run time, not passed as a rule
    parameter: a backend never changes a result, so switching one must not make Snakemake rerun
    (GPU and CPU shards mix in one campaign)."""
    return chosen_backend(engine(game).kind_of(spec), dict(config).get(game) or {}, spec)


def check_inputs(paths: list[str]) -> None:
    """Every shard file a job reads, checked byte for byte before it is used.  A damaged one is
    moved aside (results/damaged/, nothing deleted), so that the next plain run computes it again
    (a kept campaign shard: the very bytes git holds), and the job fails saying so."""
    for path in paths:
        try:
            verified_table(path, open_shard(path)[0])
        except CardlabError as exc:
            # the reason only: the store's own advice (delete it) is what this job does instead
            reason = str(exc).splitlines()[0].split("; delete it")[0].split(". Delete it")[0]
            parsed = parse_shard_path(path)
            if parsed is None:
                raise
            tracked = is_tracked(path)
            moved = quarantine(Path(path), Path(parsed[0]))
            fix = (
                f"restore it now with `git checkout -- {path}` (a kept campaign file), or rerun" if tracked else "rerun"
            )
            raise CardlabError(
                f"an input of this job is damaged: {reason}; moved aside to {moved}; "
                f"{fix} `snakemake --cores all`, which computes it again, then this job"
            ) from None


def batch_from_snakemake(smk) -> None:
    """The batch step: several small shards of one stage, one after another (engines/pipeline/planning/batches.py).

    Each is written, logged and timed as its own job would be; a failure names its shard in
    that shard's log and ends the job, and Snakemake then removes the batch's files."""
    from ..compute.jobs import run_shard  # numba: the shard jobs' own (their kernels)

    without_pandas()
    game, eng = smk.params.game, engine(smk.params.game)
    specs = [dict(s) for s in smk.params.specs]
    for spec in specs:
        place = (spec["experiment"], spec["variant"], int(spec["shard"]))
        log = log_path(game, *place)
        kind = eng.kind_of(spec)
        try:
            run_shard(
                game,
                spec,
                {t: shard_path(game, t, spec) for t in kind.tables},
                threads=smk.threads,
                inputs=[shard_path(game, t, s) for t, s in kind.inputs(spec, specs)],
                log=log,
                backend=backend_of(smk.config, game, spec),
            )
        except CardlabError as exc:
            with open(log, "a") as stream:
                print(f"error: {exc}", file=stream)
            record_failure(log, " ".join(str(exc).split()))
            raise BatchError(f"{game} {'/'.join(map(str, place))}: {exc} (log: {log})") from None


def warehouse_from_snakemake(smk) -> None:
    """The warehouse step: the catalog from the files the config plans, each checked against
    its planned spec; the rule's output is the manifest."""
    from ..catalog.warehouse import build  # duckdb: only the steps after the shards read the catalog

    plan = Plan.build(dict(smk.config), "config")
    manifest = str(smk.output[0])
    with open(smk.log[0], "w") if len(smk.log) else sys.stderr as log:
        build([str(f) for f in smk.input.shards], catalog_of(manifest), log=log, plan=plan.files, manifest=manifest)


def report_from_snakemake(smk) -> None:
    """The report step: one game's report files, from the warehouse opened read-only here."""
    from ...report.common import build_game  # the report's own (duckdb, plotting)
    from ..catalog.warehouse import connect  # duckdb: only the steps after the shards read the catalog

    con = connect(smk.input[0])
    try:
        files = build_game(smk.params.game, con, Path(smk.output[0]).parent)
    finally:
        con.close()
    missing = [o for o in smk.output if Path(o) not in set(files)]
    if missing:
        raise CardlabError(f"report for {smk.params.game} did not write {missing}")


def index_from_snakemake(smk) -> None:
    """The index step: reports/index.html from the warehouse and every game's report files."""
    import duckdb

    from ...report.index import build_index  # the report's own (duckdb, plotting)
    from ..catalog.warehouse import connect  # duckdb: only the steps after the shards read the catalog

    games = list(smk.params.games)
    con = connect(smk.input.warehouse)
    try:
        out = build_index(
            con,
            Path(smk.output[0]),
            {g: [Path(f) for f in getattr(smk.input, g)] for g in games},
            captions=Path(smk.params.captions),
            config=dict(smk.config),
            units={g: engine(g).work_unit for g in games},
            warehouse=str(smk.input.warehouse),
        )
    except duckdb.Error as exc:
        raise CardlabError(f"report index: {exc}") from None
    finally:
        con.close()
    if len(smk.log):
        Path(smk.log[0]).write_text(
            f"report_index: wrote {out} ({out.stat().st_size:,} bytes) for {', '.join(games)}\n"
        )


def catalog_inputs(smk) -> None:
    """A step reading the warehouse is given the catalog, not the manifest the warehouse rule
    declares (Snakemake deletes declared outputs; the catalog is swapped in by the job)."""
    for i, f in enumerate(smk.input):
        if str(f).endswith(MANIFEST_SUFFIX):
            smk.input[i] = catalog_of(f)
    for name, value in list(smk.input.items()):
        if isinstance(value, str) and value.endswith(MANIFEST_SUFFIX):
            setattr(smk.input, name, catalog_of(value))


def run(smk) -> None:
    """Run the job's step; any failure ends it with one ``error:`` line (the cause and its fix) on
    stderr and in the log, which the run's failure report shows (engines/pipeline/snakemake/failures.py)."""
    try:
        if smk.params.step != "warehouse":
            catalog_inputs(smk)
        _steps()[smk.params.step](smk)
        if smk.params.step in TIMED_STEPS and len(smk.log):
            write_record(timing_of(smk.log[0]), {"state": "done", **step_timing(TIMED_STEPS[smk.params.step])})
    except CardlabError as exc:
        fail(smk, str(exc), log_it=not isinstance(exc, BatchError))  # a batch wrote its shard's log
    except OSError as exc:  # a full disk, a vanished directory: the system's words and the path
        where = f"{exc.filename}: " if exc.filename else ""
        fix = "free some space and rerun" if exc.errno == errno.ENOSPC else "rerun"
        fail(smk, f"{smk.params.step} step: {where}{exc.strerror or exc}; {fix} `snakemake --cores all`")
    except Exception as exc:  # a bug: the traceback goes to the log, the one line to the terminal
        if len(smk.log):
            with open(smk.log[0], "a") as log:
                traceback.print_exc(file=log)
        fail(smk, f"{smk.params.step} step: internal error ({type(exc).__name__}: {exc}); the traceback is in the log")


def fail(smk, cause: str, log_it: bool = True) -> NoReturn:
    message = f"error: {' '.join(cause.split())}"  # one line, whatever the cause's text held
    print(message, file=sys.stderr)
    if log_it and len(smk.log):
        with open(smk.log[0], "a") as log:
            print(message, file=log)
        record_failure(smk.log[0], message.removeprefix("error: "))
    sys.exit(1)
