"""``cardlab status``: where a campaign stands, read from its files alone.

Every planned shard (from config.yaml and the engines) is *done* when all its
Parquet files exist, *running* when a snakemake holds this directory and its log
shows a job that has not ended, *interrupted* when its log shows one but no
snakemake runs, and *waiting* otherwise.  The logs are the ones each shard job
writes to ``results/logs/<game>/<experiment>/<variant>/shard=NNNN.log``
(progress lines every few seconds, a timing line at the end), so the summary
works for a live run, an interrupted one and a finished one alike, on a laptop
or on a cluster's shared file system.  What it prints is computed from a
snapshot of those files by :func:`engines.pipeline.live.view`.  While a
``cardlab redblack campaign K --run N`` goes in this directory (and no ``--config`` is
given), the summary is that run's: its shards under its config, which config.yaml does not
plan yet.

``cardlab run`` (:mod:`engines.pipeline.run`) redraws this summary while it runs snakemake.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import CardlabError
from ..core.fmt import duration
from ..core.layout import RUN_LOCK, log_path, shard_path
from ..registry import GAMES, engine
from .live import Frame, LogFile, PlannedShard, Shown, Snapshot, view

RUN_LOG = "results/logs/snakemake.log"


def run_alive(lock_path: str | None = None) -> bool:
    """Whether a cardlab snakemake holds this directory (it keeps an flock on .snakemake/cardlab-run.lock)."""
    import fcntl

    lock_path = RUN_LOCK if lock_path is None else lock_path
    if not os.path.exists(lock_path):
        return False
    fd = os.open(lock_path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def mtime(path: str | Path) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


SNAKEMAKE_LOGS = ".snakemake/log"  # Snakemake names each run's log by its start: 2026-12-01T082828.728009.snakemake.log


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


def planned_shards(cfg: dict, results: str = "results") -> tuple[list[PlannedShard], dict[str, str]]:
    """Every shard the config plans, with its files and log, and each game's main unit."""
    plan, units = [], {}
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


def cached_plan(config, results: str = "results") -> tuple[list[PlannedShard], dict[str, str]]:
    """``planned_shards`` of the config, read and validated again only when a config file changes:
    the live view asks every second, and validating costs a third of a CPU-second each time."""
    # imported here: `cardlab --help` and the game commands register this module without using it
    from .plan import load_config

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


def read_log(path: str) -> LogFile | None:
    try:
        with open(path, "rb") as fh:
            when = os.fstat(fh.fileno()).st_mtime
            return LogFile(fh.read().decode("utf-8", "replace"), when)
    except OSError:
        return None


RUN_DIR = ".snakemake"  # a campaign run's config and its note live here while it goes, beside Snakemake's files


@dataclass(frozen=True)
class RunNote:
    """A campaign run going in this directory: how it was started, its config, its shards' files."""

    command: str
    config: str
    targets: frozenset[str]


def write_run_note(note: str, run: RunNote) -> None:
    """The note `cardlab status` finds a campaign run by (engines/pipeline/shard_run.py writes it)."""
    with open(note, "w") as out:
        json.dump(
            {"pid": os.getpid(), "command": run.command, "config": run.config, "targets": sorted(run.targets)}, out
        )


def running_campaign(state_dir: str = RUN_DIR) -> RunNote | None:
    """The campaign run going in this directory, from the note beside its config; None if none is
    (a note whose process is gone, left by a run killed outright, is stale and passed over)."""
    for note in sorted(Path(state_dir).glob("cardlab-run-*.json")):
        try:
            data = json.loads(note.read_text())
            pid, config = int(data["pid"]), str(data["config"])
            run = RunNote(str(data["command"]), config, frozenset(map(str, data["targets"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # being written, or not ours
        if _alive(pid) and os.path.isfile(config):
            return run
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def run_frame(
    run: RunNote, results: str, alive: bool | None, previous: Shown | None, run_started: float | None
) -> Frame:
    """The live view of a campaign run's shards alone, under its config (``campaign --run`` prints its ETA)."""
    return view(snapshot(run.config, results, alive, run_started, only=run.targets), previous)


def snapshot(
    config: str = "config.yaml",
    results: str = "results",
    reports: str = "reports",
    alive: bool | None = None,
    run_started: float | None = None,
    only: frozenset[str] | None = None,
) -> Snapshot:
    """The campaign's files now; ``alive`` says whether a run is known to be going (default: ask the run lock);
    ``only``: the plan's shards all of whose files it names (a campaign run's), not the whole plan."""
    plan, units = cached_plan(config, results)
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
    wh = mtime(f"{results}/warehouse.duckdb")
    if wh is None:
        warehouse = "missing"
    elif not all_done:
        warehouse = "to be rebuilt (shards missing)"
    else:
        warehouse = "older than its shards" if wh < newest else "current"
    index = mtime(f"{reports}/index.html")
    if index is None:
        report_state = "missing"
    elif warehouse != "current" or (wh and index < wh):
        report_state = "to be rebuilt"
    else:
        report_state = "current"
    return Snapshot(tuple(plan), units, files, logs, alive, time.time(), run_started, warehouse, report_state)


def summary(args, alive: bool | None = None, previous: Shown | None = None, run_started: float | None = None) -> Frame:
    """The view of the campaign in this directory; ``previous``: the last frame's state (a steady ETA)."""
    run = running_campaign() if args.config is None else None
    frame = _run_view(run, args, alive, previous, run_started) if run else None
    if frame is None:
        config = "config.yaml" if args.config is None else args.config
        frame = view(snapshot(config, args.results, alive=alive, run_started=run_started), previous)
    if not frame.lines[0].startswith("cardlab campaign running") and not frame.finished:
        frame.lines.append(
            "  resume with `snakemake --cores all` (or `cardlab run --cores all`): finished shards are kept"
        )
    frame.lines.append(f"  logs: {args.results}/logs/<game>/<experiment>/<variant>/shard=NNNN.log, {RUN_LOG}")
    return frame


def _run_view(run: RunNote, args, alive, previous, run_started) -> Frame | None:
    """The view of a campaign run's shards; None if the run ended while it was read."""
    try:
        frame = run_frame(run, args.results, alive, previous, run_started)
    except CardlabError:  # its config went with the run's end
        return None
    frame.lines.insert(
        1, f"  `{run.command}` is running here: these are its shards (`--config config.yaml`: the whole plan)"
    )
    return frame


def cmd_status(args) -> int:
    if not args.follow:
        print("\n".join(summary(args).lines))
        return 0
    return follow(args, None)


def follow(args, proc: subprocess.Popen | None) -> int:
    """Redraw the summary every ``args.every`` seconds until ``proc`` ends (or, without one, the run ends)."""
    tty = sys.stdout.isatty()
    drawn = 0
    last_print = 0.0
    started = time.monotonic()
    # cardlab run knows when its run began: logs older than that are earlier runs', not running
    run_started = time.time() if proc is not None else None
    shown = None
    while True:
        ended = proc.poll() is not None if proc is not None else False
        frame = summary(args, alive=(not ended) if proc is not None else None, previous=shown, run_started=run_started)
        shown, lines = frame.shown, frame.lines
        lines[0] += f"  [{duration(time.monotonic() - started)}]"
        if tty:
            sys.stdout.write("\x1b[F\x1b[K" * drawn + "\n".join(lines) + "\n")
            sys.stdout.flush()
            drawn = len(lines)
        elif ended or time.monotonic() - last_print >= args.every * 10 or last_print == 0.0:
            print("\n".join(lines), flush=True)
            last_print = time.monotonic()
        if proc is None and not run_alive() and time.monotonic() - started > 2:
            return 0
        if ended:
            return proc.returncode
        time.sleep(args.every)


EPILOG_STATUS = """examples:
  cardlab status              one summary of the campaign in this directory
  cardlab status --follow     redraw it every 2 s while a snakemake runs here (in a second terminal)"""


def register(subparsers) -> None:
    import argparse

    s = subparsers.add_parser(
        "status",
        help="summarise a running, interrupted or finished campaign from its logs and results",
        description="Shards done, running and interrupted per game, with measured rates and an overall ETA, "
        "read from results/ and the shard logs.",
        epilog=EPILOG_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("--follow", "-f", action="store_true", help="redraw until the run in this directory ends")
    s.add_argument("--every", type=float, default=2.0, help="seconds between redraws (default: %(default)s)")
    s.add_argument(
        "--config",
        default=None,
        help="config file (default: config.yaml; while a `cardlab redblack campaign K --run N` goes here, its shards)",
    )
    s.add_argument("--results", default="results", help="results tree (default: %(default)s)")
    s.set_defaults(func=cmd_status)
