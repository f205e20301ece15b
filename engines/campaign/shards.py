"""Snakemake computes chosen shards under a config of the caller's, with a line per shard as it finishes.

A campaign (``cardlab redblack campaign K --run N``) runs a few shards at a time that the
user's config does not plan yet: the caller hands over a run config (the user's, with the
windows of those shards) and the shards' files.  The config goes to a file under
``.snakemake/`` for the run and is deleted after it; Snakemake runs through the one runner
(engines/pipeline/snakemake/runner.py) with its output in a log file; the terminal gets one line per
finished shard and, every minute while shards run, one on how far the running ones are
(their timing records' latest readings) and the whole run, each with the ETA of ``cardlab
status``'s live view of the run's shards (one model of the time left:
engines/pipeline/progress/model.py, said by engines/pipeline/commands/view.py).  Beside the run
config a note names the run (the command, the process, the shards' files) so that
``cardlab status`` shows the run's shards while it goes.  A run refused by the run lock is
said in the lock's words.  On Ctrl-C (or SIGTERM, SIGHUP, or anything failing here) snakemake
is stopped (it removes the files of the jobs it was running), and every finished shard stays.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..core.errors import CardlabError
from ..core.fmt import duration, plural
from ..core.layout import RESULTS, timing_of
from ..pipeline.bookkeeping.records import last_reading
from ..pipeline.bookkeeping.runstate import RUN_DIR, RunNote, lock_refusal, refusal_of, write_run_note
from ..pipeline.commands.view import eta_text, run_frame
from ..pipeline.progress.model import Estimate, Shown
from ..pipeline.snakemake.runner import log_tail, run_snakemake, snakemake_command

POLL_S = 5.0
PROGRESS_S = 60.0  # between lines on the running shards


def run_shards(
    shards: Mapping[str, Sequence[str]],
    config: dict,
    cores: int,
    log_file: str | os.PathLike,
    extra: Sequence[str] = (),
    niceness: int = 0,
    say: Callable[[str], None] | None = None,
    finished: Callable[[str], str] = str,
    logs: Mapping[str, str] | None = None,
    work: Mapping[str, int] | None = None,
    command: str = "",
    kept: Callable[[str], object] | None = None,
) -> tuple[int, list[str]]:
    """Snakemake makes every file of the shards (name -> files) under `config` on `cores` cores.

    Returns (snakemake's exit status, the shards finished in the order they finished);
    `finished(name)` is what the line of a finished shard says about it; `kept(name)` is called
    as each shard finishes (a campaign records it in its ledger); `logs` and `work` (name -> job
    log, units of work) give the minute-by-minute lines on the running ones; `command` is how
    the note for ``cardlab status`` names the run."""
    say = say or _say
    if refused := lock_refusal():  # at once, in the lock's words, rather than after Snakemake's start-up
        raise CardlabError(refused)
    Path(RUN_DIR).mkdir(exist_ok=True)
    fd, cfg = tempfile.mkstemp(prefix="cardlab-run-", suffix=".yaml", dir=RUN_DIR)
    with os.fdopen(fd, "w") as out:
        yaml.safe_dump(config, out, sort_keys=False)
    targets = [f for files in shards.values() for f in files]
    cmd = snakemake_command(targets, [cfg], cores, extra)
    note = cfg.removesuffix(".yaml") + ".json"
    run = RunNote(command, cfg, frozenset(targets))
    watch = Watch(shards, [], say, finished, logs, work, run, kept)
    started = time.time()
    try:
        write_run_note(note, run)
        result = run_snakemake(cmd, log_file, watch.tick, POLL_S, niceness)
        if result.interrupted:
            watch.scan()
    except Exception:  # the runner stopped Snakemake: its shards are all their files or none, as after Ctrl-C
        _remove_partial(shards, watch.done, say)
        say(f"stopped: the campaign run failed; nothing of its snakemake is left running; log: {log_file}")
        raise
    finally:
        for path in (note, cfg):  # the note first: a note never names a config that is gone
            if os.path.exists(path):
                os.unlink(path)
    if result.rc != 0 and result.pid and (refused := refusal_of(result.pid, started)):
        say(f"error: {refused}")  # another run took the directory between the look above and Snakemake's start
    elif result.interrupted:
        _remove_partial(shards, watch.done, say)
        say(f"interrupted: {plural(len(watch.done), 'finished shard')} kept, the others not written")
    elif result.rc != 0:
        _remove_partial(shards, watch.done, say)
        say(log_tail(log_file))
        done = plural(len(watch.done), "shard")
        say(f"error: snakemake failed (exit status {result.rc}); {done} finished; log: {log_file}")
    return result.rc, watch.done


def _say(line: str) -> None:
    print(line, flush=True)  # at once, also into a file: a run in the background is followed by its log


def _remove_partial(shards: Mapping[str, Sequence[str]], done: Sequence[str], say: Callable[[str], None]) -> None:
    """Remove the files of a shard whose job was stopped between its tables (Snakemake marks them
    incomplete but leaves them): a shard is all its files or none."""
    for name, files in shards.items():
        present = [f for f in files if os.path.isfile(f)]
        if name not in done and present:
            for f in present:
                os.unlink(f)
            say(f"  shard {name}: stopped while writing its tables; removed {plural(len(present), 'partial file')}")


@dataclass
class Watch:
    """What a run's lines say: the shards finished (in order), how far the running ones are, and
    the ETA of `cardlab status`'s live view of the run's shards (one model of the time left)."""

    shards: Mapping[str, Sequence[str]]
    done: list[str]
    say: Callable[[str], None]
    finished: Callable[[str], str]
    logs: Mapping[str, str] | None
    work: Mapping[str, int] | None
    run: RunNote
    kept: Callable[[str], object] | None = None
    clock: Callable[[], float] = time.monotonic
    started: float | None = None
    run_started: float = field(default_factory=time.time)
    shown: Shown | None = None
    last_progress: float | None = None

    def tick(self, ended: bool) -> bool:
        """One poll of the runner's loop: finished shards every poll, the running ones every PROGRESS_S."""
        now = self.clock()
        if self.started is None:
            self.started = self.last_progress = now
        self.scan()
        if not ended and now - self.last_progress >= PROGRESS_S:
            self.last_progress = now
            self.running()
        return False

    def scan(self) -> None:
        """A line for each shard whose files are all there since the last scan."""
        for name, files in self.shards.items():
            if name in self.done or not all(os.path.isfile(f) for f in files):
                continue
            self.done.append(name)
            if self.kept is not None:
                self.kept(name)
            eta: float | None = None
            est: Estimate | None = None
            if len(self.done) < len(self.shards):
                eta, est = self.eta()
            tail = finished_count(len(self.done), len(self.shards), self.elapsed(), eta, est)
            self.say(f"  {self.finished(name)} {tail}")

    def running(self) -> None:
        if not (self.logs and self.work):
            return
        progress = {}
        for name, log in self.logs.items():
            reading = None if name in self.done else last_reading(timing_of(log))
            if reading is not None and reading.total:
                progress[name] = reading.done / reading.total
        eta, est = self.eta()
        line = running_line(run_share(self.done, progress, self.work), progress, self.elapsed(), eta, est)
        if line:
            self.say(line)

    def elapsed(self) -> float:
        return self.clock() - (self.started if self.started is not None else self.clock())

    def eta(self) -> tuple[float | None, Estimate | None]:
        """Seconds left by the live view of the run's shards, and its estimate (None: not measured yet)."""
        try:
            frame = run_frame(self.run, RESULTS, True, self.shown, self.run_started)
        except CardlabError:  # the run config unreadable: no ETA rather than no run
            return None, None
        self.shown = frame.shown
        return frame.shown.eta_s, frame.model.estimate if frame.model else None


def run_share(done: Sequence[str], progress: Mapping[str, float], work: Mapping[str, int]) -> float:
    """A run's share of its work done: finished shards whole, running ones by ``progress`` (name -> share)."""
    units = sum(work[n] for n in done)
    units += sum(min(share * work[n], work[n]) for n, share in progress.items() if n not in done)
    return units / max(1, sum(work.values()))


def running_line(
    share: float, progress: Mapping[str, float], elapsed: float, eta: float | None, est: Estimate | None = None
) -> str | None:
    """A campaign run's minute line: each running shard's share, the run's share done and its ETA."""
    if not progress:
        return None
    parts = ", ".join(f"shard {name} {100 * p:.0f} %" for name, p in progress.items())
    return f"  running: {parts}; the run {100 * share:.1f} % done after {duration(elapsed)}, {eta_text(eta, est)}"


def finished_count(done: int, total: int, elapsed: float, eta: float | None, est: Estimate | None = None) -> str:
    """The tail of a finished shard's line: how many of the run's are done, after how long, and the ETA."""
    tail = f", {eta_text(eta, est)}" if done < total else ""
    return f"({done} of {total} after {duration(elapsed)}{tail})"
