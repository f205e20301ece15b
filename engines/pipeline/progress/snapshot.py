"""A campaign's files now, as a :class:`~engines.pipeline.progress.model.Snapshot`: the plan, the shard files,
the timing records, the run, whether the warehouse and reports are current, and the bookkeeping files every
reader leaves out (engines/core/bookkeeping.py).  The plan is the pipeline's
(engines/pipeline/planning/plan.py), built again only when a config file changes: the live view asks every second.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

from ...core.bookkeeping import left_out
from ...core.layout import RESULTS, report_inputs_path, timing_of, timings_dir, warehouse_path
from ...registry import engine
from ..bookkeeping.records import mtime, read_record, shard_records, step_cpu, step_record
from ..bookkeeping.runstate import run_alive, run_start
from ..planning.plan import DEFAULT_CONFIG, Plan, load_plan
from .model import PlannedShard, Snapshot

REPORT_INDEX = "index.html"


def planned_shards(plan: Plan) -> tuple[list[PlannedShard], dict[str, str]]:
    """The plan's shards as the progress model sees them, and each game's main unit."""
    jobs = {(b.game, *_name(spec)): b.rule for batches in plan.batches.values() for b in batches for spec in b.specs}
    shards = []
    for s in plan:
        hints = s.kind.schedule(plan.config.get(s.game) or {}, s.spec)
        estimate = hints.cpu_estimate_s
        shards.append(
            PlannedShard(
                s.game, s.kind.name, s.experiment, s.variant, s.shard, s.work, s.unit,
                s.unit == engine(s.game).work_unit, tuple(s.files.values()), s.log, hints.cost_follows_shard,
                None if estimate is None else float(estimate), jobs.get(s.key, ""), hints.kernels,
                hints.compile_cpu_s, tuple(plan.input_files(s)),
            )
        )  # fmt: skip
    return shards, {g: engine(g).work_unit for g in plan.games}


def _name(spec) -> tuple[str, str, int]:
    return spec["experiment"], spec["variant"], int(spec["shard"])


_SHARDS: dict[int, tuple[Plan, tuple[list[PlannedShard], dict[str, str]]]] = {}


def cached_plan(config, results: str = RESULTS) -> tuple[list[PlannedShard], dict[str, str]]:
    """The planned shards of the config files, from the process's one plan of them."""
    plan = load_plan(config, results)
    if id(plan) not in _SHARDS:
        _SHARDS.clear()
        _SHARDS[id(plan)] = (plan, planned_shards(plan))  # the plan held: its id stays its own
    return _SHARDS[id(plan)][1]


def warehouse_state(results: str, all_done: bool, newest: float) -> str:
    wh = mtime(warehouse_path(results))
    if wh is None:
        return "missing"
    if not all_done:
        return "to be rebuilt (shards missing)"
    return "older than its shards" if wh < newest else "current"


def reports_state(results: str, reports: str, warehouse: str, newest: float, games: Iterable[str]) -> str:
    """As Snakemake judges them (workflow/rules/reports.smk): stale after a shard, or a game's list of what
    its report reads, changed; not after the warehouse alone was rebuilt (an ``ancient`` input)."""
    index = mtime(f"{reports}/{REPORT_INDEX}")
    if index is None:
        return "missing"
    read = [mtime(report_inputs_path(g, results)) or 0.0 for g in games]
    return "to be rebuilt" if warehouse != "current" or index < max([newest, *read]) else "current"


def step_records(results: str, games) -> list[str]:
    """The timing records of the steps after the shards: the warehouse, each game's report, the index."""
    logs = [f"{results}/logs/warehouse.log", *(f"{results}/logs/reports/{g}.log" for g in games)]
    return [timing_of(log) for log in [*logs, f"{results}/logs/reports/index.log"]]


def steps_of(
    results: str, games, run_started: float | None, current: bool, shards_done: float | None
) -> tuple[tuple[str, ...], float | None, dict[str, float]]:
    """The steps this run has still to finish (a report only for the ``games`` with work in it), since when the
    first has been under way (the latest finished, or ``shards_done``), and each step's CPU seconds as every
    game's step records say.  A step has finished once its record, written in this run, holds its timing."""
    reports = Path(timings_dir(results)) / "reports"
    priced_games = [p.stem for p in sorted(reports.glob("*.json")) if p.stem != "index"]
    texts = {r: lf.text for r in step_records(results, priced_games) if (lf := read_record(r)) is not None}
    cpu = step_cpu(texts)
    if current or run_started is None:
        return (), None, cpu
    records = step_records(results, games)
    kinds = ["warehouse"] + ["report"] * len(games) + ["index"]
    ended = {r: t for r in records if (t := mtime(r) or 0.0) >= run_started and step_record(texts.get(r, ""))}
    left = tuple(k for r, k in zip(records, kinds, strict=True) if r not in ended)
    since = max([*ended.values(), *([shards_done] if shards_done is not None else [])], default=None)
    return left, since, cpu


def snapshot(
    config: str = DEFAULT_CONFIG,
    results: str = RESULTS,
    reports: str = "reports",
    alive: bool | None = None,
    run_started: float | None = None,
    only: frozenset[str] | None = None,
    cores: int = 1,
) -> Snapshot:
    """The campaign's files now; ``alive``: whether a run goes (default: ask the run lock); ``only``: the
    plan's shards all of whose files it names (a campaign run's); ``cores``: the most jobs at once."""
    plan, units = cached_plan(config, results)
    if only is not None:
        plan = [s for s in plan if set(s.files) <= only]
    alive = run_alive() if alive is None else alive
    if alive and run_started is None:
        run_started = run_start()
    stamps = {f: mtime(f) for s in plan for f in s.files}
    # a file a run writes again is work left: one written before the run going, or any when none goes
    before = run_started if alive and run_started else float("inf")
    from ..catalog.warehouse import rewritten_by_run  # duckdb, pyarrow: not for the parser every command builds

    whole = load_plan(config, results)
    stale = [f for f, t in stamps.items() if t is not None and t < before and rewritten_by_run(whole, f, t)]
    stamps.update(dict.fromkeys(stale))
    files = frozenset(f for f, t in stamps.items() if t is not None)
    all_done = all(f in files for s in plan for f in s.files)
    newest = max((t for t in stamps.values() if t is not None), default=0.0)
    warehouse = warehouse_state(results, all_done, newest)
    report = reports_state(results, reports, warehouse, newest, units)
    kept = frozenset(f for f, t in stamps.items() if t is not None and alive and run_started and t < run_started)
    games = [g for g in units if any(s.game == g and not all(f in kept for f in s.files) for s in plan)]
    shards_done = newest if all_done and newest >= (run_started or 0.0) else None  # the warehouse began then
    steps, since, cpu = (
        ((), None, {}) if only is not None else steps_of(results, games, run_started, report == "current", shards_done)
    )
    return Snapshot(
        tuple(plan), units, files, shard_records(plan), alive, time.time(), run_started, warehouse, report,
        kept, steps, since, cores, cpu, os.getloadavg()[0] / (os.cpu_count() or 1), len(stale),
        tuple(f"{bad.where} ({bad.problem})" for bad in left_out(results)),
    )  # fmt: skip
