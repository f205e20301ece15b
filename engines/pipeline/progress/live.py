"""The live view of a campaign in words: the renderer of the progress model, the only place with its English.

:func:`view` renders the :class:`~engines.pipeline.progress.progress_model.Model` of one snapshot as
the lines ``cardlab status`` prints (a head with the shards done and the ETA, a line per
game, the warehouse and reports); :func:`eta_text` is the one way an ETA is said (also by a
campaign run's lines, :func:`running_line`).  The numbers are the model's
(engines/pipeline/progress/progress_model.py), read from the job records by engines/pipeline/progress/timings.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...core.fmt import count, duration, listed
from ...core.fmt import eta as fmt_eta
from .progress_model import (
    Estimate,
    GameTally,
    KindTally,
    Model,
    PlannedShard,
    Shown,
    Snapshot,
    model,
    smoothed,
)
from .timings import RecordFile, read_shard_record

__all__ = [
    "Frame",
    "RecordFile",
    "PlannedShard",
    "Shown",
    "Snapshot",
    "eta_text",
    "read_shard_record",
    "running_line",
    "smoothed",
    "view",
]


# What the head names when no command is given: a run found going in this directory (`cardlab status`), and
# the campaign on disk when none goes.
A_RUN = "snakemake run"
THE_CAMPAIGN = "cardlab campaign"


@dataclass
class Frame:
    lines: list[str]
    shown: Shown
    finished: bool  # every shard done, warehouse and reports current
    model: Model | None = None  # the numbers the lines say
    going: bool = False  # a run goes (its head says so)


def eta_text(eta: float | None, est: Estimate | None = None) -> str:
    """The ETA, and the kinds of work it still prices by their estimates (nothing of them measured yet)."""
    if eta is None:
        return "ETA not known yet"
    guessed = (est.unmeasured + est.unmeasured_jobs) if est else []
    return f"ETA about {fmt_eta(eta)}" + (f" (estimated: {listed(kinds(guessed))} not yet measured)" if guessed else "")


def kinds(names: list[tuple[str, str]]) -> list[str]:
    """(game, kind) pairs as the view names them: "redblack basin"."""
    return [f"{game} {kind}" for game, kind in names]


def shard_state(k: KindTally) -> str:
    text = f"{k.done}/{count(k.shards, 'shards')}"
    if k.running:
        text += f", {k.running} running"
    if k.interrupted:
        text += f", {k.interrupted} interrupted"
    return text


def speed(k: KindTally) -> str:
    if not k.running:
        return ""
    if k.rate > 0:  # a slow rate keeps two significant digits: never shown as 0
        return f", {k.rate:,.0f} {k.unit}/s" if k.rate >= 10 else f", {k.rate:.2g} {k.unit}/s"
    return ", starting (imports, compiling kernels)"


def game_text(g: GameTally) -> str:
    """This run's work of a game, its kept shards said apart."""
    main = g.main
    kept = f"kept: {count(g.kept, 'shards')}" if g.kept else ""
    if not main.shards and not g.others:
        return f"{g.game:<10} {kept}, nothing to run"
    line = f"{g.game:<10} {g.percent:5.1f} % of {count(int(main.work), main.unit)}"
    line += f" ({shard_state(main)}){speed(main)}" if main.shards else ""
    for k in g.others.values():
        line += f" + {count(int(k.work), k.unit)} ({shard_state(k)})"
    return line + (f"; {kept}" if kept else "")


def step_text(m: Model, snap: Snapshot) -> str | None:
    """Snakemake starting (no job of this run begun yet)."""
    if not snap.alive or snap.run_started is None or m.all_done:
        return None
    if not any(s.log is not None and s.log.mtime >= snap.run_started for s in m.states if s.state != "kept"):
        return "  starting: Snakemake checks the plan's files and schedules the first jobs"
    return None


def head_text(m: Model, snap: Snapshot, finished: bool, running: str = "") -> str:
    """The first line: what runs (``running``: the command, as `cardlab run`'s own view names itself; "": a
    run found going here, or the campaign on disk), its shards done and the ETA, or how it stands."""
    est = m.estimate
    kept = f" ({count(est.kept, 'shards')} kept)" if est.kept else ""
    if snap.alive:
        eta = f", {eta_text(m.eta_s, est)}" if m.eta_s is not None else ""
        return f"{running or A_RUN}: {m.done}/{m.total} shards done{kept}{eta}"
    state = "finished" if finished else "stopped" if running else "not running"
    head = f"{running or THE_CAMPAIGN} {state}: {m.done}/{m.total} shards done{kept}"
    interrupted = m.count("interrupted")
    if interrupted:
        head += f", {interrupted} interrupted"
    if not m.all_done and not snap.alive and est.seconds is not None:
        head += f"; about {duration(est.job_seconds)} of one job's time left at the measured rates"
    return head


def view(snap: Snapshot, previous: Shown | None = None, running: str = "") -> Frame:
    """The summary lines of a snapshot, and what they showed (pass ``frame.shown`` to the next frame's call);
    ``running``: the command whose run it is, named in the head (:func:`head_text`)."""
    m = model(snap, previous)
    finished = m.all_done and snap.warehouse == "current" and snap.reports == "current"
    step = step_text(m, snap)
    head = head_text(m, snap, finished, running)
    lines = [head, *([step] if step else []), *("  " + game_text(g) for g in m.games)]
    if snap.warehouse or snap.reports:
        lines.append(f"  warehouse  {snap.warehouse};  reports {snap.reports}")
    if snap.stale and not snap.alive:
        lines.append(
            f"  stale: {count(snap.stale, 'files')} written by an earlier version of their engine's code or for "
            "another spec (`cardlab verify` lists them): a run computes them again"
        )
    return Frame(lines, m.shown, finished, m, snap.alive)


def running_line(
    share: float, progress: Mapping[str, float], elapsed: float, eta: float | None, est: Estimate | None = None
) -> str | None:
    """A campaign run's minute line: each running shard's share (``progress``: name -> share), the run's
    ``share`` done and its ETA; None while no running shard reports."""
    if not progress:
        return None
    parts = ", ".join(f"shard {name} {100 * p:.0f} %" for name, p in progress.items())
    return f"  running: {parts}; the run {100 * share:.1f} % done after {duration(elapsed)}, {eta_text(eta, est)}"


def finished_count(done: int, total: int, elapsed: float, eta: float | None, est: Estimate | None = None) -> str:
    """The tail of a finished shard's line: how many of the run's are done, after how long, and the ETA."""
    tail = f", {eta_text(eta, est)}" if done < total else ""
    return f"({done} of {total} after {duration(elapsed)}{tail})"
