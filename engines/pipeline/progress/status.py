"""``cardlab status``: where a campaign stands, read from its files alone.

Every planned shard (from config.yaml and the engines) is *done* when all its
Parquet files exist, *running* when a snakemake holds this directory and its record
shows a job that has not ended, *interrupted* when its record shows one but no
snakemake runs, and *waiting* otherwise.  The records are the ones each shard job
writes to ``results/timings/<game>/<experiment>/<variant>/shard=NNNN.json``
(its progress reading every few seconds, its timing at the end), so the summary
works for a live run, an interrupted one and a finished one alike, on a laptop
or on a cluster's shared file system.  The parts: a snapshot of those files
(engines/pipeline/progress/snapshot.py, read by engines/pipeline/progress/timings.py), its numbers
(engines/pipeline/progress/progress_model.py), their words (engines/pipeline/progress/live.py), whether
a run goes (engines/pipeline/running/runstate.py) and the loop that redraws
(engines/pipeline/running/runner.py).  While a ``cardlab redblack campaign K --run N`` goes in
this directory (and no ``--config`` is given), the summary is that run's: its shards under
its config, which config.yaml does not plan.

``cardlab run`` (:mod:`engines.pipeline.running.run`) redraws this summary while it runs snakemake.
"""

from __future__ import annotations

import subprocess
import sys
import time

from ...core.errors import CardlabError
from ...core.fmt import duration
from ...core.layout import RESULTS
from ..running.plan import DEFAULT_CONFIG
from ..running.runner import follow as follow_process
from ..running.runstate import RUN_DIR, RUN_LOG, RunNote, run_alive, running_campaign, write_run_note
from .live import Frame, Shown, view
from .snapshot import cached_plan, planned_shards, snapshot

__all__ = [
    "RUN_DIR",
    "RUN_LOG",
    "RunNote",
    "cached_plan",
    "follow",
    "planned_shards",
    "run_frame",
    "running_campaign",
    "snapshot",
    "summary",
    "write_run_note",
]

QUIET_START_S = 2.0  # `status --follow` with no run found yet keeps looking this long


def run_frame(
    run: RunNote, results: str, alive: bool | None, previous: Shown | None, run_started: float | None
) -> Frame:
    """The live view of a campaign run's shards alone, under its config (``campaign --run`` prints its ETA)."""
    snap = snapshot(run.config, results, alive=alive, run_started=run_started, only=run.targets)
    return view(snap, previous, running=run.command)


def summary(
    args,
    alive: bool | None = None,
    previous: Shown | None = None,
    run_started: float | None = None,
    cores: int = 1,
    running: str = "",
) -> Frame:
    """The view of the campaign in this directory; ``previous``: the last frame's state (a steady ETA);
    ``cores``: the run's most jobs at once (`cardlab run`'s);
    ``running``: the command whose run this is, as the head names it ("": a run found here, or none)."""
    run = running_campaign() if args.config is None else None
    frame = _run_view(run, args, alive, previous, run_started) if run else None
    if frame is None:
        config = DEFAULT_CONFIG if args.config is None else args.config
        snap = snapshot(config, args.results, alive=alive, run_started=run_started, cores=cores)
        frame = view(snap, previous, running)
    if not frame.going and not frame.finished:
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
        1, f"  `{run.command}` is running here: these are its shards (`--config {DEFAULT_CONFIG}`: the whole plan)"
    )
    return frame


def cmd_status(args) -> int:
    if not args.follow:
        print("\n".join(summary(args).lines))
        return 0
    return follow(args, None)


class Redraw:
    """One frame a tick: the summary redrawn in place on a terminal, printed every ten ticks into a file."""

    def __init__(self, args, process: bool, clock=time.monotonic, cores: int = 1) -> None:
        """``process``: a process is followed (`cardlab run`'s snakemake), whose end ends the run; ``cores``:
        the most jobs it runs at once.  The clock counts from here: create it when the command starts."""
        self.args = args
        self.process = process
        self.clock = clock
        self.cores = cores
        self.running = "cardlab run" if process else ""  # the head names it: only `cardlab run` follows its process
        self.tty = sys.stdout.isatty()
        self.drawn = 0
        self.last_print: float | None = None
        self.started = clock()
        # cardlab run knows when its run began: logs older than that are earlier runs', not running
        self.run_started = time.time() if process else None
        self.shown: Shown | None = None
        self.drawn_at = self.started

    def __call__(self, ended: bool) -> bool:
        """Draw a frame; True when, following no process, no run goes here any more."""
        alive = (not ended) if self.process else None
        frame = summary(self.args, alive, self.shown, self.run_started, self.cores, self.running)
        self.shown = frame.shown
        self.drawn_at = self.clock()
        lines = frame.lines
        lines[0] += f"  [{duration(self.clock() - self.started)}]"
        if self.tty:
            sys.stdout.write("\x1b[F\x1b[K" * self.drawn + "\n".join(lines) + "\n")
            sys.stdout.flush()
            self.drawn = len(lines)
        elif ended or self.last_print is None or self.clock() - self.last_print >= self.args.every * 10:
            print("\n".join(lines), flush=True)
            self.last_print = self.clock()
        return not self.process and not run_alive() and self.clock() - self.started > QUIET_START_S


def follow(args, proc: subprocess.Popen | None) -> int:
    """Redraw the summary every ``args.every`` seconds until ``proc`` ends (or, without one, the run ends)."""
    return follow_process(proc, Redraw(args, proc is not None), args.every)


EPILOG_STATUS = """examples:
  cardlab status              one summary of the campaign in this directory
  cardlab status --follow     redraw it every 2 s while a snakemake runs here (in a second terminal)"""


def register(subparsers) -> None:
    import argparse

    s = subparsers.add_parser(
        "status",
        help="summarise a running, interrupted or finished campaign from its timing records and results",
        description="Shards done, running and interrupted per game, with measured rates and an overall ETA, "
        "read from results/ and the jobs' timing records (results/timings/).",
        epilog=EPILOG_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("--follow", "-f", action="store_true", help="redraw until the run in this directory ends")
    s.add_argument("--every", type=float, default=2.0, help="seconds between redraws (default: %(default)s)")
    s.add_argument(
        "--config",
        default=None,
        help=f"config file (default: {DEFAULT_CONFIG}; while a `cardlab redblack campaign K --run N` goes here, "
        "its shards)",
    )
    s.add_argument("--results", default=RESULTS, help="results tree (default: %(default)s)")
    s.set_defaults(func=cmd_status)
