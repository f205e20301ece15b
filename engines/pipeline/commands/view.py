"""The live view in words, and ``cardlab status``: the only place with the progress model's English.

:func:`view` says the :class:`~engines.pipeline.progress.model.Model` of one snapshot as lines (a head with
the shards done and the ETA, a line per game, the warehouse and reports); :func:`eta_text` is the one way
an ETA is said.  :class:`Redraw` draws a frame a tick, in place on a terminal through rich's live display,
every ten ticks into a file; ``cardlab run`` (engines/pipeline/commands/run.py) redraws it while Snakemake
runs, ``cardlab status --follow`` while a run goes here.  While a ``cardlab redblack campaign K --run N``
goes here (and no ``--config`` is given), the summary is that run's shards under its config.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass, field

from ...core import argtypes
from ...core.errors import CardlabError
from ...core.fmt import count, duration, listed
from ...core.fmt import eta as fmt_eta
from ...core.layout import RESULTS
from ..bookkeeping.runstate import RUN_LOG, RunNote, run_alive, running_campaign
from ..planning.plan import DEFAULT_CONFIG
from ..progress.model import Estimate, GameTally, KindTally, Model, Shown, Snapshot, model
from ..progress.snapshot import snapshot
from ..snakemake.runner import follow as follow_process

A_RUN = "snakemake run"  # the head's name for a run found going here
THE_CAMPAIGN = "cardlab campaign"  # and for the campaign on disk when none goes
QUIET_START_S = 2.0  # `status --follow` with no run found yet keeps looking this long


@dataclass
class Frame:
    lines: list[str]
    shown: Shown
    finished: bool  # every shard done, warehouse and reports current
    model: Model | None = None
    going: bool = False  # a run goes (its head says so)
    bars: dict[int, float] = field(default_factory=dict)  # line -> the percent done its game's bar shows


def eta_text(eta: float | None, est: Estimate | None = None) -> str:
    """The ETA, and the kinds of work it still prices by their estimates (nothing of them measured yet)."""
    if eta is None:
        return "ETA not known yet"
    guessed = [f"{game} {kind}" for game, kind in est.unmeasured] if est else []
    return f"ETA about {fmt_eta(eta)}" + (f" (estimated: {listed(guessed)} not yet measured)" if guessed else "")


def shard_state(k: KindTally) -> str:
    running = f", {k.running} running" if k.running else ""
    return f"{k.done}/{count(k.shards, 'shards')}{running}" + (
        f", {k.interrupted} interrupted" if k.interrupted else ""
    )


def speed(k: KindTally) -> str:
    if not k.running:
        return ""
    if k.rate > 0:  # a slow rate keeps two significant digits: never shown as 0
        return f", {k.rate:,.0f} {k.unit}/s" if k.rate >= 10 else f", {k.rate:.2g} {k.unit}/s"
    return ", starting (imports, compiling kernels)"


def game_text(g: GameTally) -> str:
    """This run's work of a game, its kept shards said apart."""
    main, kept = g.main, f"kept: {count(g.kept, 'shards')}" if g.kept else ""
    if not main.shards and not g.others:
        return f"{g.game:<10} {kept}, nothing to run"
    line = f"{g.game:<10} {g.percent:5.1f} % of {count(int(main.work), main.unit)}"
    line += f" ({shard_state(main)}){speed(main)}" if main.shards else ""
    line += "".join(f" + {count(int(k.work), k.unit)} ({shard_state(k)})" for k in g.others.values())
    return line + (f"; {kept}" if kept else "")


def head_text(m: Model, snap: Snapshot, finished: bool, running: str = "") -> str:
    """What runs (``running``: the command; "": a run found here, or the campaign on disk), its shards done
    and the ETA, or how it stands."""
    est = m.estimate
    kept = f" ({count(est.kept, 'shards')} kept)" if est.kept else ""
    if snap.alive:
        eta = f", {eta_text(m.eta_s, est)}" if m.eta_s is not None else ""
        return f"{running or A_RUN}: {m.done}/{m.total} shards done{kept}{eta}"
    state = "finished" if finished else "stopped" if running else "not running"
    head = f"{running or THE_CAMPAIGN} {state}: {m.done}/{m.total} shards done{kept}"
    head += f", {m.count('interrupted')} interrupted" if m.count("interrupted") else ""
    if not m.all_done and est.seconds is not None:
        head += f"; about {duration(est.job_seconds)} of one job's time left at the measured rates"
    return head


def view(snap: Snapshot, previous: Shown | None = None, running: str = "") -> Frame:
    """The lines of a snapshot's frame, and what they showed (pass ``frame.shown`` to the next call)."""
    m = model(snap, previous)
    finished = m.all_done and snap.warehouse == "current" and snap.reports == "current"
    lines = [head_text(m, snap, finished, running)]
    begun = any(s.log is not None and s.log.mtime >= (snap.run_started or 0) for s in m.states if s.state != "kept")
    if snap.alive and snap.run_started is not None and not m.all_done and not begun:  # no silent start
        lines.append("  starting: Snakemake checks the plan's files and schedules the first jobs")
    bars = {len(lines) + i: g.percent for i, g in enumerate(m.games)}
    lines += ["  " + game_text(g) for g in m.games]
    if snap.warehouse or snap.reports:
        lines.append(f"  warehouse  {snap.warehouse};  reports {snap.reports}")
    if snap.left_out:  # left out of every estimate and of the warehouse: said, never a traceback
        lines.append(
            f"  {count(len(snap.left_out), 'bookkeeping files')} left out: {listed(snap.left_out, 2)}; "
            "`cardlab verify` for the fix"
        )
    if snap.stale and not snap.alive:
        lines.append(
            f"  stale: {count(snap.stale, 'files')} written by an earlier version of their engine's code or for "
            "another spec (`cardlab verify` lists them): a run computes them again"
        )
    return Frame(lines, m.shown, finished, m, snap.alive, bars)


def run_frame(run: RunNote, results: str, alive: bool | None, previous: Shown | None, started: float | None) -> Frame:
    """The live view of a campaign run's shards alone, under its config."""
    snap = snapshot(run.config, results, alive=alive, run_started=started, only=run.targets)
    return view(snap, previous, running=run.command)


def summary(args, alive=None, previous=None, run_started=None, cores: int = 1, running: str = "") -> Frame:
    """The view of the campaign in this directory (a campaign run's, while one goes and no config is named);
    ``cores``: the run's most jobs at once; ``running``: the command whose run this is ("": none named)."""
    frame = None
    run = running_campaign() if args.config is None else None
    if run is not None:
        try:
            frame = run_frame(run, args.results, alive, previous, run_started)
            note = (
                f"  `{run.command}` is running here: these are its shards (`--config {DEFAULT_CONFIG}`: the whole plan)"
            )
            frame.lines.insert(1, note)
        except CardlabError:  # its config went with the run's end
            frame = None
    if frame is None:
        config = DEFAULT_CONFIG if args.config is None else args.config
        frame = view(
            snapshot(config, args.results, alive=alive, run_started=run_started, cores=cores), previous, running
        )
    if not frame.going and not frame.finished:
        frame.lines.append(
            "  resume with `snakemake --cores all` (or `cardlab run --cores all`): finished shards are kept"
        )
    frame.lines.append(f"  logs: {args.results}/logs/<game>/<experiment>/<variant>/shard=NNNN.log, {RUN_LOG}")
    return frame


class Redraw:
    """One frame a tick: redrawn in place on a terminal (rich's live display), printed every ten ticks into a
    file.  A context manager: the terminal is given back as it was however the run ends."""

    def __init__(self, args, process: bool, clock=time.monotonic, cores: int = 1, console=None) -> None:
        """``process``: a process is followed (`cardlab run`'s Snakemake), whose end ends the run; the clock
        counts from here: create it when the command starts.  ``console``: rich's, on standard output."""
        from rich.console import Console
        from rich.live import Live

        self.args, self.process, self.clock, self.cores = args, process, clock, cores
        self.running = "cardlab run" if process else ""  # only `cardlab run` follows its process
        self.run_started = time.time() if process else None  # older records are earlier runs'
        self.started = clock()
        self.last_print: float | None = None
        self.shown: Shown | None = None
        console = console or Console(file=sys.stdout)
        self.live = Live(console=console, auto_refresh=False) if console.is_terminal else None
        self.console = console

    def __enter__(self) -> Redraw:
        if self.live is not None:
            self.live.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.live is not None:
            self.live.stop()

    def __call__(self, ended: bool) -> bool:
        """Draw a frame; True when, following no process, no run goes here any more."""
        alive = (not ended) if self.process else None
        frame = summary(self.args, alive, self.shown, self.run_started, self.cores, self.running)
        self.shown = frame.shown
        frame.lines[0] += f"  [{duration(self.clock() - self.started)}]"
        if self.live is not None:
            self.live.update(drawn(frame), refresh=True)
        elif ended or self.last_print is None or self.clock() - self.last_print >= self.args.every * 10:
            self.console.file.write("\n".join(frame.lines) + "\n")
            self.console.file.flush()
            self.last_print = self.clock()
        return not self.process and not run_alive() and self.clock() - self.started > QUIET_START_S


def drawn(frame: Frame):
    """A frame for a terminal: its head, then each line, a game's beside a bar of its share done."""
    from rich.console import Group
    from rich.progress_bar import ProgressBar
    from rich.table import Table
    from rich.text import Text

    rows = Table.grid(padding=(0, 1))
    rows.add_column(width=20, no_wrap=True)
    rows.add_column()
    for i, line in enumerate(frame.lines[1:], 1):
        bar = ProgressBar(total=100.0, completed=frame.bars[i], width=20) if i in frame.bars else Text("")
        rows.add_row(bar, Text(line.strip()))
    return Group(Text(frame.lines[0]), rows)


def follow(args, proc: subprocess.Popen | None) -> int:
    """Redraw the summary every ``args.every`` seconds until ``proc`` ends (or, without one, the run ends)."""
    with Redraw(args, proc is not None) as redraw:
        return follow_process(proc, redraw, args.every)


def cmd_status(args) -> int:
    if not args.follow:
        from rich.console import Console

        console, frame = Console(), summary(args)
        if console.is_terminal:  # the bars; into a file or pipe, the lines alone
            console.print(drawn(frame))
        else:
            print("\n".join(frame.lines))
        return 0
    return follow(args, None)


def register(subparsers) -> None:
    s = subparsers.add_parser(
        "status",
        help="summarise a running, interrupted or finished campaign from its timing records and results",
        description="Shards done, running and interrupted per game, with measured rates and an overall ETA, "
        "read from results/ and the jobs' timing records (results/timings/).",
        epilog="examples:\n  cardlab status              one summary of the campaign in this directory\n"
        "  cardlab status --follow     redraw it every 2 s while a snakemake runs here (in a second terminal)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("--follow", "-f", action="store_true", help="redraw until the run in this directory ends")
    s.add_argument(
        "--every",
        type=argtypes.real(0, 3600, " seconds", open_lo=True),
        default=2.0,
        help="seconds between redraws, at most an hour (default: %(default)s)",
    )
    s.add_argument(
        "--config",
        type=argtypes.existing_file,
        default=None,
        help=f"config file (default: {DEFAULT_CONFIG}; while a `cardlab redblack campaign K --run N` goes here, "
        "its shards)",
    )
    s.add_argument("--results", type=argtypes.folder, default=RESULTS, help="results tree (default: %(default)s)")
    s.set_defaults(func=cmd_status)
