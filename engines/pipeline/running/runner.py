"""The one way cardlab runs Snakemake: its command line, its process, the loop that follows it, Ctrl-C.

``cardlab run`` (engines/pipeline/running/run.py) and a campaign's ``--run`` (engines/campaign/shards.py)
both start Snakemake here: :func:`snakemake_command` builds the command line (targets first, then
the config files, cores and the caller's extra options), :func:`run_snakemake` starts it in a session
of its own at a niceness with its output in a log file, calls the caller's ``tick`` every ``every``
seconds until it ends (:func:`follow`, the one polling loop, also ``cardlab status --follow``'s), and
on Ctrl-C or a plain ``kill`` (SIGTERM) tells Snakemake to stop (SIGINT to its process group: it stops
its jobs and removes their partial outputs) and waits for it.  Snakemake runs in a session of its own,
so without that a killed caller would leave it running unseen.  What the terminal says is the caller's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .plan import snakemake_executable

INTERRUPTED = 130  # the exit status of a run stopped by Ctrl-C


@dataclass(frozen=True)
class RunResult:
    """How a Snakemake run ended: its exit status (INTERRUPTED after Ctrl-C) and whether Ctrl-C stopped it."""

    rc: int
    interrupted: bool = False


def snakemake_command(
    targets: Sequence[str] = (),
    configfiles: Sequence[str] = (),
    cores: int | str | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """Snakemake's command line: the targets first (``--configfile`` takes every word after it that is
    not an option), then the config files, the cores and the caller's options."""
    cmd = [snakemake_executable(), *targets]
    if configfiles:
        cmd += ["--configfile", *configfiles]
    if cores is not None:
        cmd += ["--cores", str(cores)]
    return [*cmd, *extra]


def follow(
    proc: subprocess.Popen | None,
    tick: Callable[[bool], bool],
    every: float,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Call ``tick(ended)`` every ``every`` seconds until ``proc`` ends (its exit status) or, without a
    process, until ``tick`` returns True (0).  ``tick`` is called once more after the process ended."""
    while True:
        ended = proc is not None and proc.poll() is not None
        stop = tick(ended)
        if ended:
            return proc.returncode
        if stop and proc is None:
            return 0
        sleep(every)


def run_snakemake(
    cmd: Sequence[str],
    log_file: str | os.PathLike,
    tick: Callable[[bool], bool],
    every: float,
    niceness: int = 0,
) -> RunResult:
    """Run ``cmd`` with its output in ``log_file``, following it with ``tick`` every ``every`` seconds;
    Ctrl-C or SIGTERM stops Snakemake and waits for it (INTERRUPTED)."""
    Path(log_file).parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "w") as log, sigterm_as_ctrl_c():
        nice = (lambda: os.nice(niceness)) if niceness else None
        proc = subprocess.Popen(
            list(cmd), stdout=log, stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=nice
        )
        try:
            return RunResult(follow(proc, tick, every))
        except KeyboardInterrupt:
            os.killpg(proc.pid, signal.SIGINT)  # snakemake stops its jobs and removes their partial files
            proc.wait()
            return RunResult(INTERRUPTED, interrupted=True)


@contextmanager
def sigterm_as_ctrl_c():
    """While it lasts, SIGTERM raises KeyboardInterrupt in the main thread, as Ctrl-C does (a run started
    in the background from a shell ignores SIGINT, so ``kill PID`` is how it is stopped)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def log_tail(log_file: str | os.PathLike, lines: int = 25) -> str:
    """The last lines of a run's log: what a failed run shows on the terminal."""
    return "\n".join(Path(log_file).read_text(errors="replace").splitlines()[-lines:])
