"""``cardlab status``: where a campaign stands, read from its files alone.

Every planned shard (from config.yaml and the engines) is *done* when all its
Parquet files exist, *running* when a snakemake holds this directory and its log
has progress lines, *interrupted* when its log has lines but no snakemake runs,
and *waiting* otherwise.  Progress lines are the ones each shard job writes to
``results/logs/<game>/<experiment>/<variant>/shard=NNNN.log`` (done/total, rate
and ETA, every few seconds), so the summary works for a live run, an interrupted
one and a finished one alike, on a laptop or on a cluster's shared file system.

``cardlab run`` (:mod:`engines.pipeline.run`) redraws this summary while it runs snakemake.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..core.fmt import duration
from ..core.layout import RUN_LOCK, log_path, shard_path
from ..registry import GAMES, engine

RUN_LOG = "results/logs/snakemake.log"

# What core.progress.Progress.line writes: "<label>: 1,234/5,000 games (24.7%), 812 games/s, elapsed 2 s, ETA 5 s"
PROGRESS = re.compile(r": ([\d,]+)/([\d,]+) (\S+) \([\d.]+%\), ([\d,]+) \S+/s, elapsed ([\d,]+) s")


@dataclass
class GameStatus:
    game: str
    unit: str
    shards: int = 0
    done: int = 0
    running: int = 0
    interrupted: int = 0
    work: int = 0
    work_done: int = 0
    rate: float = 0.0  # units per second, summed over running shards
    running_names: list[str] = field(default_factory=list)

    @property
    def eta(self) -> float | None:
        left = self.work - self.work_done
        if left <= 0:
            return 0.0
        return left / self.rate if self.rate > 0 else None

    def line(self) -> str:
        pct = 100.0 * self.work_done / self.work if self.work else 100.0
        state = f"{self.done}/{self.shards} shards"
        if self.running:
            state += f", {self.running} running"
        if self.interrupted:
            state += f", {self.interrupted} interrupted"
        eta = "?" if self.eta is None else duration(self.eta)
        speed = f", {self.rate:,.0f} {self.unit}/s, ETA {eta}" if self.running else ""
        return f"{self.game:<10} {pct:5.1f} % of {self.work:,} {self.unit} ({state}){speed}"


@dataclass
class Status:
    games: list[GameStatus]
    alive: bool  # a snakemake holds this directory
    warehouse: str  # "missing", "older than shards", "current"
    reports: str

    @property
    def finished(self) -> bool:
        return all(g.done == g.shards for g in self.games) and self.warehouse == "current" and self.reports == "current"

    def lines(self) -> list[str]:
        shards = sum(g.shards for g in self.games)
        done = sum(g.done for g in self.games)
        etas = [g.eta for g in self.games if g.done < g.shards]
        eta = "" if not etas or any(e is None for e in etas) else f", ETA about {duration(max(etas))}"
        state = "running" if self.alive else ("finished" if self.finished else "not running")
        head = f"cardlab campaign {state}: {done}/{shards} shards done{eta}"
        return [
            head,
            *("  " + g.line() for g in self.games),
            f"  warehouse  {self.warehouse};  reports {self.reports}",
        ]


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


def last_progress(log: Path) -> tuple[int, float] | None:
    """(units done, units/s) from the last progress line of a shard log; None without one."""
    try:
        with open(log, "rb") as fh:
            fh.seek(max(0, fh.seek(0, 2) - 4096))
            tail = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    found = PROGRESS.findall(tail)
    if not found:
        return None
    done, _total, _unit, rate, _elapsed = found[-1]
    return int(done.replace(",", "")), float(rate.replace(",", ""))


def mtime(path: str | Path) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def status(
    config: str = "config.yaml", results: str = "results", reports: str = "reports", alive: bool | None = None
) -> Status:
    """Where the campaign stands; ``alive`` says whether a run is known to be going (default: ask the run lock)."""
    # imported here: `cardlab --help` and the game commands register this module without using it
    from .config import load_config

    cfg = load_config(config)
    alive = run_alive() if alive is None else alive
    games, newest = [], 0.0
    for game in GAMES:
        if not cfg.get(game):
            continue
        eng = engine(game)
        gs = GameStatus(game, eng.work_unit)
        for spec in eng.plan(cfg[game]):
            work = int(spec.get("work", 0) or 0)
            gs.shards += 1
            gs.work += work
            times = [mtime(shard_path(game, t, spec, root=results)) for t in eng.spec_tables(spec)]
            if all(t is not None for t in times):
                gs.done += 1
                gs.work_done += work
                newest = max([newest, *times])
                continue
            log = Path(log_path(game, spec["experiment"], spec["variant"], int(spec["shard"]), root=results))
            seen = last_progress(log)
            if seen is None and not (alive and log.exists()):
                continue
            units, rate = seen or (0, 0.0)
            gs.work_done += min(units, work)
            if alive:
                gs.running += 1
                gs.rate += rate
            else:
                gs.interrupted += 1
        games.append(gs)
    wh = mtime(f"{results}/warehouse.duckdb")
    all_done = all(g.done == g.shards for g in games)
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
    return Status(games, alive, warehouse, report_state)


def summary(args, alive: bool | None = None) -> list[str]:
    st = status(args.config, args.results, alive=alive)
    out = st.lines()
    if not st.alive and not st.finished:
        out.append("  resume with `snakemake --cores all` (or `cardlab run --cores all`): finished shards are kept")
    out.append(f"  logs: {args.results}/logs/<game>/<experiment>/<variant>/shard=NNNN.log, {RUN_LOG}")
    return out


def cmd_status(args) -> int:
    if not args.follow:
        print("\n".join(summary(args)))
        return 0
    return follow(args, None)


def follow(args, proc: subprocess.Popen | None) -> int:
    """Redraw the summary every ``args.every`` seconds until ``proc`` ends (or, without one, the run ends)."""
    tty = sys.stdout.isatty()
    drawn = 0
    last_print = 0.0
    started = time.monotonic()
    while True:
        ended = proc.poll() is not None if proc is not None else False
        lines = summary(args, alive=(not ended) if proc is not None else None)
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
        description="Shards done, running and interrupted per game, with rate and ETA, "
        "read from results/ and the shard logs.",
        epilog=EPILOG_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("--follow", "-f", action="store_true", help="redraw until the run in this directory ends")
    s.add_argument("--every", type=float, default=2.0, help="seconds between redraws (default: %(default)s)")
    s.add_argument("--config", default="config.yaml", help="config file (default: %(default)s)")
    s.add_argument("--results", default="results", help="results tree (default: %(default)s)")
    s.set_defaults(func=cmd_status)
