"""The one way cardlab runs Snakemake: its command line, its process, the loop that follows it, its end.

``cardlab run`` (engines/pipeline/commands/run.py) and a campaign's ``--run`` (engines/campaign/shards.py)
both start Snakemake here: :func:`snakemake_command` builds the command line (targets first, then
the config files, cores and the caller's extra options), :func:`run_snakemake` starts it in a session
of its own at a niceness with its output in a log file and calls the caller's ``tick`` every ``every``
seconds until it ends (:func:`follow`, the one polling loop, also ``cardlab status --follow``'s).

The run never outlives its caller.  On Ctrl-C, a plain ``kill`` (SIGTERM) or a closed terminal (SIGHUP)
Snakemake is told to stop (SIGINT to its process group: it stops its jobs and removes their partial
outputs) and waited for; anything else that raises in the caller (its ``tick``, say) ends it the same way
before the exception goes on (:func:`end_run`: a bounded wait, then SIGKILL to the group).  A caller
killed outright (SIGKILL) cannot do that: on Linux the kernel sends Snakemake SIGINT when it dies
(``PR_SET_PDEATHSIG``).  What the terminal says is the caller's.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from .options import CONFIGFILE, CORES, snakemake_executable

INTERRUPTED = 130  # the exit status of a run stopped by Ctrl-C
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # each stops a run as Ctrl-C does
# Snakemake told to stop kills its jobs and removes their outputs in seconds; one that has not ended by
# then is killed with what is left of its process group
STOP_GRACE_S = 60.0


@dataclass(frozen=True)
class RunResult:
    """How a Snakemake run ended: its exit status (INTERRUPTED after Ctrl-C) and whether Ctrl-C stopped it."""

    rc: int
    interrupted: bool = False
    pid: int | None = field(default=None, compare=False)  # Snakemake's process (the run lock notes whom it refused)


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
        cmd += [CONFIGFILE, *configfiles]
    if cores is not None:
        cmd += [CORES, str(cores)]
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
    Ctrl-C, SIGTERM or SIGHUP stops Snakemake and waits for it (INTERRUPTED); any other exception ends it
    (:func:`end_run`) and goes on."""
    Path(log_file).parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "w") as log, stop_signals_as_ctrl_c():
        proc = start(cmd, log, niceness)
        try:
            let_stop_signals_in()
            return RunResult(follow(proc, tick, every), pid=proc.pid)
        except KeyboardInterrupt:
            end_run(proc)
            return RunResult(INTERRUPTED, interrupted=True, pid=proc.pid)
        finally:
            if proc.returncode is None:  # the caller failed: its run goes with it
                end_run(proc)


def start(cmd: Sequence[str], log: IO, niceness: int = 0) -> subprocess.Popen:
    """Snakemake in a session of its own (its jobs share its process group, so one signal reaches them all).

    It returns with the stop signals held back in the main thread, so none comes between the start and the
    caller's ``try`` (where it would leave Snakemake unseen): the caller lets them in there
    (:func:`let_stop_signals_in`); the child lets them in before it runs."""
    parent, prctl = os.getpid(), libc_prctl()  # libc loaded before the fork
    in_main = threading.current_thread() is threading.main_thread()

    def in_the_child() -> None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        # a caller started in the background from a shell ignores SIGINT, and so would Snakemake: it is how
        # Snakemake is stopped
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if in_main and prctl is not None:  # the parent death signal follows the starting thread: only the
            end_with(parent, prctl)  # main thread lives as long as the process
        if niceness:
            os.nice(niceness)

    if in_main:
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        return subprocess.Popen(
            list(cmd), stdout=log, stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=in_the_child
        )
    except BaseException:
        let_stop_signals_in()
        raise


def let_stop_signals_in() -> None:
    """Deliver the stop signals again (one that came while they were held back arrives now)."""
    if threading.current_thread() is threading.main_thread():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def end_with(parent: int, prctl: Callable[..., int]) -> None:
    """In a child before it runs: SIGINT when ``parent`` dies, however it dies (SIGKILL included)."""
    prctl(PR_SET_PDEATHSIG, signal.SIGINT)
    if os.getppid() != parent:  # it died before the request: nobody would send the signal
        os._exit(INTERRUPTED)


def end_run(proc: subprocess.Popen) -> None:
    """Stop a run and wait for it: SIGINT to its process group (Snakemake stops its jobs and removes their
    partial outputs), up to STOP_GRACE_S seconds for it to end, then SIGKILL to whatever of the group is
    left (a second Ctrl-C kills at once)."""
    try:
        signal_group(proc.pid, signal.SIGINT)
        proc.wait(STOP_GRACE_S)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        pass
    finally:
        signal_group(proc.pid, signal.SIGKILL)  # Snakemake's jobs outliving it included
        proc.wait()


def signal_group(pgid: int, signum: int) -> None:
    """Send a signal to a process group; one already gone is not an error."""
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass


@contextmanager
def stop_signals_as_ctrl_c():
    """While it lasts, SIGTERM and SIGHUP raise KeyboardInterrupt in the main thread, as Ctrl-C does (a run
    started in the background from a shell ignores SIGINT, so ``kill PID`` is how it is stopped; a closed
    terminal sends SIGHUP).  A signal the caller ignores stays ignored: ``nohup cardlab run`` outlives its
    terminal."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise KeyboardInterrupt

    previous = {
        s: signal.signal(s, stop)
        for s in STOP_SIGNALS
        if s != signal.SIGINT and signal.getsignal(s) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@functools.cache
def libc_prctl() -> Callable[..., int] | None:
    """libc's prctl (Linux); None elsewhere.  Loaded when a run starts, not at import: every command's
    start-up imports this module."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def log_tail(log_file: str | os.PathLike, lines: int = 25) -> str:
    """The last lines of a run's log: what a failed run shows on the terminal."""
    return "\n".join(Path(log_file).read_text(errors="replace").splitlines()[-lines:])
