"""A campaign's files now, as a :class:`~engines.pipeline.progress_model.Snapshot`: the plan, the shard
files, the logs, the run, and whether the warehouse and reports are current.

The planned shards come from one place, :func:`planned` (the config's plan, cached by the
config files' stamps: the live view asks every second and validating costs a third of a
CPU-second), so the plan can be swapped for the pipeline's own plan object in one place.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..core.layout import RESULTS, WAREHOUSE, log_path, shard_path
from ..registry import GAMES, engine
from .plan import DEFAULT_CONFIG
from .progress_model import PlannedShard, Snapshot
from .runlog import latest_run_start, mtime, read_log
from .runstate import run_alive

REPORT_INDEX = "index.html"


def warehouse_in(results: str | os.PathLike) -> str:
    """The warehouse file of a results tree (results/warehouse.duckdb for the workflow's own)."""
    return os.path.join(results, os.path.basename(WAREHOUSE))


def planned_shards(cfg: dict, results: str = RESULTS) -> tuple[list[PlannedShard], dict[str, str]]:
    """Every shard the config plans, with its files and log, and each game's main unit."""
    plan: list[PlannedShard] = []
    units: dict[str, str] = {}
    for game in GAMES:
        if not cfg.get(game):
            continue
        eng = engine(game)
        units[game] = eng.work_unit
        for spec in eng.plan(cfg[game]):
            unit = eng.unit_of(spec)
            plan.append(
                PlannedShard(
                    game,
                    spec["kind"],
                    spec["experiment"],
                    spec["variant"],
                    int(spec["shard"]),
                    int(spec.get("work", 0) or 0),
                    unit,
                    unit == eng.work_unit,
                    tuple(shard_path(game, t, spec, root=results) for t in eng.spec_tables(spec)),
                    log_path(game, spec["experiment"], spec["variant"], int(spec["shard"]), root=results),
                    eng.kind_of(spec).cost_follows_shard,
                )
            )
    return plan, units


_PLANS: dict[tuple, tuple[list[PlannedShard], dict[str, str]]] = {}


def cached_plan(config, results: str = RESULTS) -> tuple[list[PlannedShard], dict[str, str]]:
    """``planned_shards`` of the config, read and validated again only when a config file changes."""
    # imported here: `cardlab --help` and the game commands register this module without using it
    from .config import load_config

    files = [config] if isinstance(config, (str, Path)) else list(config)
    stamps = []
    for f in files:
        try:
            st = os.stat(f)
            stamps.append((st.st_mtime_ns, st.st_size))
        except OSError:
            stamps.append(None)
    key = (tuple(map(str, files)), results, tuple(stamps))
    if key not in _PLANS:
        plan = planned_shards(load_config(config), results)
        _PLANS.clear()
        _PLANS[key] = plan
    return _PLANS[key]


planned = cached_plan  # the one call for the planned shards (to become the pipeline's Plan object)


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


def snapshot(
    config: str = DEFAULT_CONFIG,
    results: str = RESULTS,
    reports: str = "reports",
    alive: bool | None = None,
    run_started: float | None = None,
    only: frozenset[str] | None = None,
) -> Snapshot:
    """The campaign's files now; ``alive`` says whether a run is known to be going (default: ask the run lock);
    ``only``: the plan's shards all of whose files it names (a campaign run's), not the whole plan."""
    plan, units = planned(config, results)
    if only is not None:
        plan = [s for s in plan if set(s.files) <= only]
    alive = run_alive() if alive is None else alive
    if alive and run_started is None:
        run_started = latest_run_start()
    stamps = {f: mtime(f) for s in plan for f in s.files}
    files = frozenset(f for f, t in stamps.items() if t is not None)
    logs = {s.log: lf for s in plan if (lf := read_log(s.log)) is not None}
    all_done = all(f in files for s in plan for f in s.files)
    newest = max((t for t in stamps.values() if t is not None), default=0.0)
    warehouse = warehouse_state(results, all_done, newest)
    report = reports_state(results, reports, warehouse)
    return Snapshot(tuple(plan), units, files, logs, alive, time.time(), run_started, warehouse, report)
