"""A campaign's files now, as a :class:`~engines.pipeline.progress.progress_model.Snapshot`: the plan, the shard
files, the logs, the run, and whether the warehouse and reports are current.

The planned shards come from one place, :func:`planned`: the pipeline's :class:`~engines.pipeline.running.plan.Plan`
of the config files (built again only when a file changes: the live view asks every second
and validating costs a third of a CPU-second), seen as the progress model's shards.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.errors import CardlabError
from ...core.layout import RESULTS, WAREHOUSE, timing_of, timings_dir
from ...registry import engine
from ..running.plan import DEFAULT_CONFIG, Plan, load_plan
from ..running.runstate import run_alive, run_start
from .progress_model import PlannedShard, Snapshot
from .timings import mtime, read_record, shard_records, step_cpu, step_record

REPORT_INDEX = "index.html"


def warehouse_in(results: str | os.PathLike) -> str:
    """The warehouse file of a results tree (results/warehouse.duckdb for the workflow's own)."""
    return os.path.join(results, os.path.basename(WAREHOUSE))


def planned_shards(plan: Plan) -> tuple[list[PlannedShard], dict[str, str]]:
    """The plan's shards as the progress model sees them (files, log, work and its unit), and each
    game's main unit."""
    shards: list[PlannedShard] = []
    jobs = {(b.game, *_name(spec)): b.rule for batches in plan.batches.values() for b in batches for spec in b.specs}
    for s in plan:
        main = engine(s.game).work_unit
        files = tuple(s.files.values())
        hints = s.kind.schedule(plan.config.get(s.game) or {}, s.spec)
        estimate = hints.batch_cpu_s
        shards.append(
            PlannedShard(
                s.game,
                s.kind.name,
                s.experiment,
                s.variant,
                s.shard,
                s.work,
                s.unit,
                s.unit == main,
                files,
                s.log,
                hints.cost_follows_shard,
                None if estimate is None else float(estimate),
                jobs.get(s.key, ""),
                hints.kernels,
                hints.compile_cpu_s,
                tuple(plan.input_files(s)),
            )
        )
    return shards, {g: engine(g).work_unit for g in plan.games}


def _name(spec) -> tuple[str, str, int]:
    return spec["experiment"], spec["variant"], int(spec["shard"])


_SHARDS: dict[int, tuple[Plan, tuple[list[PlannedShard], dict[str, str]]]] = {}


def cached_plan(config, results: str = RESULTS) -> tuple[list[PlannedShard], dict[str, str]]:
    """The planned shards of the config files, from the process's one plan of them (rebuilt only
    when a file changes: the live view asks every second)."""
    plan = load_plan(config, results)
    if id(plan) not in _SHARDS:
        _SHARDS.clear()
        _SHARDS[id(plan)] = (plan, planned_shards(plan))  # the plan held: its id stays its own
    return _SHARDS[id(plan)][1]


planned = cached_plan  # the one call for the planned shards


def planned_file(plan: Plan, path: str) -> tuple[str, Mapping[str, Any]] | None:
    """The result version and spec a planned file must carry (None: not one of the plan's)."""
    found = plan.files.get(path)
    if found is None:
        return None
    game, _table, spec = found
    shard = plan.shard(game, spec["experiment"], spec["variant"], spec["shard"])
    key = (id(plan), game, shard.kind.name)
    if key not in _VERSIONS:  # an engine's source hash: once per plan and kind, not per file
        _VERSIONS[key] = shard.version
    return _VERSIONS[key], spec


_VERSIONS: dict[tuple[int, str, str], str] = {}


def written_as(path: str) -> tuple[str | None, dict] | None:
    """The version and spec a file's footer records (None: unreadable)."""
    from ...core.store import read_meta  # pyarrow: not for the parser every command builds

    try:
        meta = read_meta(path)
    except CardlabError:
        return None
    return meta.get("engine_version"), meta.get("spec") or {}


_REWRITTEN: dict[tuple[int, str, float], bool] = {}


def rewritten_by_run(plan: Plan, path: str, when: float) -> bool:
    """Whether Snakemake reruns the job of a file there before the run: it was written by another version of
    its engine or for another spec (its params changed).  An unreadable one Snakemake does not open: kept
    (the warehouse names it).  Read once per plan, file and modification time (the live view asks every
    second)."""
    from ..catalog.warehouse import same_spec  # duckdb: not for the parser every command builds

    key = (id(plan), path, when)
    if key not in _REWRITTEN:
        if len(_REWRITTEN) > 100_000:
            _REWRITTEN.clear()
        written, planned_as = written_as(path), planned_file(plan, path)
        _REWRITTEN[key] = (
            written is not None
            and planned_as is not None
            and (written[0] != planned_as[0] or bool(same_spec(written[1], dict(planned_as[1]))))
        )
    return _REWRITTEN[key]


def warehouse_state(results: str, all_done: bool, newest: float) -> str:
    """missing, to be rebuilt (shards missing), older than its shards, or current."""
    wh = mtime(warehouse_in(results))
    if wh is None:
        return "missing"
    if not all_done:
        return "to be rebuilt (shards missing)"
    return "older than its shards" if wh < newest else "current"


def reports_state(results: str, reports: str, warehouse: str) -> str:
    """missing, to be rebuilt (the warehouse is not current, or newer than the reports), or current."""
    index = mtime(f"{reports}/{REPORT_INDEX}")
    if index is None:
        return "missing"
    wh = mtime(warehouse_in(results))
    if warehouse != "current" or (wh and index < wh):
        return "to be rebuilt"
    return "current"


def step_logs(results: str, games) -> list[str]:
    """The logs of the jobs after the shards: the warehouse, each game's report, the index (workflow/rules)."""
    return [f"{results}/logs/warehouse.log", *(f"{results}/logs/reports/{g}.log" for g in games)] + [
        f"{results}/logs/reports/index.log"
    ]


def steps_of(
    results: str, games, run_started: float | None, current: bool, shards_done: float | None
) -> tuple[tuple[str, ...], float | None, dict[str, float]]:
    """The steps after the shards this run has still to finish (none when the warehouse and reports are
    current; a report only for the ``games`` with work in this run: another game's report is left as it
    is), since when the first of them has been under way (the latest of the steps finished and
    ``shards_done``, when the last shard was written; None while shards are left), and each step's CPU
    seconds as every game's step records say.  A step has finished once its record, written in this run,
    holds its timing (engines/pipeline/running/steps.py)."""
    records = [timing_of(log) for log in step_logs(results, list_games(results))]
    texts = {r: lf.text for r in records if (lf := read_record(r)) is not None}
    cpu = step_cpu(texts)
    if current or run_started is None:
        return (), None, cpu
    logs = [timing_of(log) for log in step_logs(results, games)]
    kinds = ["warehouse"] + ["report"] * len(games) + ["index"]
    ended = {log: t for log in logs if (t := mtime(log) or 0.0) >= run_started and step_record(texts.get(log, ""))}
    left = tuple(k for log, k in zip(logs, kinds, strict=True) if log not in ended)
    since = max([*ended.values(), *([shards_done] if shards_done is not None else [])], default=None)
    return left, since, cpu


def list_games(results: str) -> list[str]:
    """The games with a report's timing record in a results tree (they price this run's reports)."""
    reports = Path(timings_dir(results)) / "reports"
    names = sorted(p.stem for p in reports.glob("*.json"))
    return [name for name in names if name != "index"]


def snapshot(
    config: str = DEFAULT_CONFIG,
    results: str = RESULTS,
    reports: str = "reports",
    alive: bool | None = None,
    run_started: float | None = None,
    only: frozenset[str] | None = None,
    cores: int = 1,
) -> Snapshot:
    """The campaign's files now; ``alive`` says whether a run is known to be going (default: ask the run lock);
    ``only``: the plan's shards all of whose files it names (a campaign run's), not the whole plan;
    ``cores``: the most jobs the run runs at once."""
    plan, units = planned(config, results)
    if only is not None:
        plan = [s for s in plan if set(s.files) <= only]
    alive = run_alive() if alive is None else alive
    if alive and run_started is None:
        run_started = run_start()
    stamps = {f: mtime(f) for s in plan for f in s.files}
    # a file a run writes again (stale: its engine's code or its spec changed) is work left, not done or kept:
    # files written before the run going, or every file when none goes
    before = run_started if alive and run_started else float("inf")
    whole = load_plan(config, results)
    stale = [f for f, t in stamps.items() if t is not None and t < before and rewritten_by_run(whole, f, t)]
    for f in stale:
        stamps[f] = None
    files = frozenset(f for f, t in stamps.items() if t is not None)
    logs = shard_records(plan)
    all_done = all(f in files for s in plan for f in s.files)
    newest = max((t for t in stamps.values() if t is not None), default=0.0)
    warehouse = warehouse_state(results, all_done, newest)
    report = reports_state(results, reports, warehouse)
    kept = frozenset(f for f, t in stamps.items() if t is not None and alive and run_started and t < run_started)
    # the games this run computes shards of (a file missing, or written since the run began)
    games = [g for g in units if any(s.game == g and not all(f in kept for f in s.files) for s in plan)]
    # the last shard written, once all are: the warehouse has been under way since
    shards_done = newest if all_done and newest >= (run_started or 0.0) else None
    steps, since, cpu = (
        ((), None, {}) if only is not None else steps_of(results, games, run_started, report == "current", shards_done)
    )
    return Snapshot(
        tuple(plan),
        units,
        files,
        logs,
        alive,
        time.time(),
        run_started,
        warehouse,
        report,
        kept,
        steps,
        since,
        cores,
        cpu,
        os.getloadavg()[0] / (os.cpu_count() or 1),
        len(stale),
    )
