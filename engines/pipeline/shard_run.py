"""Snakemake computes chosen shards under a config of the caller's, with a line per shard as it finishes.

A campaign (``cardlab redblack campaign K --run N``) runs a few shards at a time that the
user's config does not plan yet: the caller hands over a run config (the user's, with the
windows of those shards) and the shards' files.  The config goes to a file under
``.snakemake/`` for the run and is deleted after it; snakemake's output goes to a log file;
the terminal gets one line per finished shard and, every minute while shards run, one on
how far the running ones are (their job logs' progress lines) and the whole run, each with
the ETA of ``cardlab status``'s live view of the run's shards (one model of the time left:
engines/pipeline/live.py).  Beside the run config a note names the run (the command, the
process, the shards' files) so that ``cardlab status`` shows the run's shards while it goes
(:func:`running_campaign`).  On
Ctrl-C snakemake is told to stop (it removes the files of the jobs it was running), and
every finished shard stays.  `replace_config_text` rewrites a config file in place,
verified by reading it back, so that the shards a run made are planned from then on.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..core.errors import CardlabError
from ..core.fmt import duration, plural
from ..core.fmt import eta as fmt_eta
from ..core.layout import RESULTS
from ..core.progress import read_line
from .config import read_yaml
from .live import Shown
from .plan import snakemake_executable
from .status import RUN_DIR, RunNote, run_frame, write_run_note

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
) -> tuple[int, list[str]]:
    """Snakemake makes every file of the shards (name -> files) under `config` on `cores` cores.

    Returns (snakemake's exit status, the shards finished in the order they finished);
    `finished(name)` is what the line of a finished shard says about it; `logs` and `work`
    (name -> job log, units of work) give the minute-by-minute lines on the running ones;
    `command` is how the note for ``cardlab status`` names the run."""
    say = say or _say
    Path(RUN_DIR).mkdir(exist_ok=True)
    fd, cfg = tempfile.mkstemp(prefix="cardlab-run-", suffix=".yaml", dir=RUN_DIR)
    with os.fdopen(fd, "w") as out:
        yaml.safe_dump(config, out, sort_keys=False)
    Path(log_file).parent.mkdir(parents=True, exist_ok=True)
    targets = [f for files in shards.values() for f in files]
    # the targets first: --configfile takes every word after it that is not an option
    cmd = [snakemake_executable(), *targets, "--configfile", cfg, "--cores", str(cores), *extra]
    done: list[str] = []
    note, run = cfg.removesuffix(".yaml") + ".json", RunNote(command, cfg, frozenset(targets))
    try:
        write_run_note(note, run)
        with open(log_file, "w") as log:
            nice = (lambda: os.nice(niceness)) if niceness else None
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=nice)
            watch = _Watch(shards, done, say, finished, logs, work, run)
            try:
                rc = _follow(proc, watch)
            except KeyboardInterrupt:
                os.killpg(proc.pid, signal.SIGINT)  # snakemake stops its jobs and removes their partial files
                proc.wait()
                watch.scan()
                _remove_partial(shards, done, say)
                say(f"interrupted: {plural(len(done), 'finished shard')} kept, the others not written")
                return 130, done
    finally:
        for path in (note, cfg):  # the note first: a note never names a config that is gone
            if os.path.exists(path):
                os.unlink(path)
    if rc != 0:
        _remove_partial(shards, done, say)
        tail = Path(log_file).read_text(errors="replace").splitlines()[-25:]
        say("\n".join(tail))
        say(f"error: snakemake failed (exit status {rc}); {plural(len(done), 'shard')} finished; log: {log_file}")
    return rc, done


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
class _Watch:
    """What a run's lines say: the shards finished (in order), how far the running ones are, and
    the ETA of `cardlab status`'s live view of the run's shards (one model of the time left)."""

    shards: Mapping[str, Sequence[str]]
    done: list[str]
    say: Callable[[str], None]
    finished: Callable[[str], str]
    logs: Mapping[str, str] | None
    work: Mapping[str, int] | None
    run: RunNote
    started: float = field(default_factory=time.monotonic)
    run_started: float = field(default_factory=time.time)
    shown: Shown | None = None

    def scan(self) -> None:
        """A line for each shard whose files are all there since the last scan."""
        for name, files in self.shards.items():
            if name in self.done or not all(os.path.isfile(f) for f in files):
                continue
            self.done.append(name)
            eta = f", {eta_text(self.eta())}" if len(self.done) < len(self.shards) else ""
            self.say(f"  {self.finished(name)} ({len(self.done)} of {len(self.shards)} after {self.elapsed()}{eta})")

    def running(self) -> None:
        if self.logs and self.work:
            line = running_line(self.done, self.logs, self.work, time.monotonic() - self.started, self.eta())
            if line:
                self.say(line)

    def elapsed(self) -> str:
        return duration(time.monotonic() - self.started)

    def eta(self) -> float | None:
        """Seconds left by the live view of the run's shards (None: not measured yet)."""
        try:
            frame = run_frame(self.run, RESULTS, True, self.shown, self.run_started)
        except CardlabError:  # the run config unreadable: no ETA rather than no run
            return None
        self.shown = frame.shown
        return frame.shown.eta_s


def _follow(proc, watch: _Watch) -> int:
    """Poll until snakemake ends: finished shards every POLL_S, the running ones every PROGRESS_S."""
    shown = time.monotonic()
    while True:
        rc = proc.poll()
        watch.scan()
        if rc is not None:
            return rc
        if time.monotonic() - shown >= PROGRESS_S:
            shown = time.monotonic()
            watch.running()
        time.sleep(POLL_S)


def run_share(done: Sequence[str], logs: Mapping[str, str], work: Mapping[str, int]) -> tuple[float, list[str]]:
    """The run's share of work done (finished shards whole, running ones by the last progress line of
    their job logs) and a phrase for each running shard."""
    parts, units = [], sum(work[n] for n in done)
    for name, log in logs.items():
        reading = None if name in done else _last_reading(log)
        if reading is not None and reading.total:
            parts.append(f"shard {name} {100 * reading.done / reading.total:.0f} %")
            units += min(reading.done, work[name])
    return units / max(1, sum(work.values())), parts


def running_line(
    done: Sequence[str], logs: Mapping[str, str], work: Mapping[str, int], elapsed: float, eta: float | None
) -> str | None:
    """How far the running shards and the whole run are, and the ETA; None while no running shard reports."""
    share, parts = run_share(done, logs, work)
    if not parts:
        return None
    return f"  running: {', '.join(parts)}; the run {100 * share:.1f} % done after {duration(elapsed)}, {eta_text(eta)}"


def eta_text(eta: float | None) -> str:
    return f"ETA about {fmt_eta(eta)}" if eta is not None else "ETA not known yet"


def _last_reading(log: str):
    try:
        lines = Path(log).read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines[-5:]):
        reading = read_line(line)
        if reading is not None:
            return reading
    return None


def replace_config_text(path: str | os.PathLike, text: str, expected: object) -> bool:
    """Write `text` over the config file if it reads back as `expected`; else leave the file as it was."""
    where = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{where.name}-", suffix=".yaml", dir=where.parent)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        if read_yaml(tmp) != expected:
            return False
        os.chmod(tmp, stat.S_IMODE(where.stat().st_mode))  # mkstemp makes it private
        os.replace(tmp, where)
        return True
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
