"""The runner owns its children (engines/pipeline/snakemake/runner.py): however its caller ends (an exception in
the live view, Ctrl-C, SIGTERM, SIGHUP, even SIGKILL) the Snakemake it started ends too, jobs included; and a
run refused by the run lock says so in the lock's words (engines/pipeline/bookkeeping/runstate.py).

The children are small Python programs standing in for Snakemake: each says it is ready in its log (an event
the test waits on, never a timer), and a process the test does not own is waited on through a pidfd."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engines.core import layout
from engines.core.errors import CardlabError
from engines.pipeline.bookkeeping import runstate
from engines.pipeline.commands import run as run_command
from engines.pipeline.snakemake import runner

ROOT = Path(__file__).resolve().parent.parent
LINUX = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="pidfd: Linux only")

# Snakemake and one of its jobs, both deaf to SIGINT (only SIGKILL ends them): the job's pid, then 'ready',
# in the log
DEAF_RUN = textwrap.dedent("""
    import signal, subprocess, sys
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    job = subprocess.Popen([sys.executable, "-c", "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                            "print('job ready', flush=True); signal.pause()"], stdout=subprocess.PIPE, text=True)
    assert job.stdout.readline().strip() == "job ready"
    print(f"job {job.pid}", flush=True)
    print("ready", flush=True)
    signal.pause()
""")


def ended(pid: int, timeout: float = 30.0) -> bool:
    """Whether process ``pid`` (not ours to wait on) ends within ``timeout`` s: its pidfd becomes readable
    when it does (the timeout only guards against a hang)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def ready_then(log: Path, action):
    """A tick that does ``action`` once, when the child said it is ready."""
    done = []

    def tick(_ended: bool) -> bool:
        if not done and "ready\n" in log.read_text():
            done.append(True)
            action()
        return False

    return tick


def job_pid(log: Path) -> int:
    return int(next(line.split()[1] for line in log.read_text().splitlines() if line.startswith("job ")))


@pytest.fixture
def leftovers():
    """``leftovers(pid, ...)``: processes to SIGKILL after the test, so that a failing test leaves none paused
    for ever (through a pidfd taken now: a pid reused meanwhile is never hit)."""
    fds: list[int] = []

    def keep(*pids: int) -> None:
        for pid in pids:
            try:
                fds.append(os.pidfd_open(pid))
            except ProcessLookupError:
                pass  # gone already

    yield keep
    for fd in fds:
        try:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(fd)


@LINUX
def test_a_view_that_raises_ends_the_run_and_its_jobs(tmp_path, monkeypatch, leftovers):
    """The live view raising (a bad record, a bug) ends Snakemake's whole process group before the exception
    goes on: SIGINT first, then, as these children ignore it, SIGKILL after the grace (made short here)."""
    monkeypatch.setattr(runner, "STOP_GRACE_S", 0.2)
    log = tmp_path / "run.log"
    started = []
    real_start = runner.start
    monkeypatch.setattr(runner, "start", lambda *a: started.append(real_start(*a)) or started[-1])

    def fail():
        raise ValueError("a malformed timing record")

    with pytest.raises(ValueError, match="malformed"):
        runner.run_snakemake([sys.executable, "-c", DEAF_RUN], log, ready_then(log, fail), 0.02)
    (proc,) = started
    leftovers(job_pid(log), *[proc.pid] * (proc.returncode is None))  # a reaped pid is no longer ours
    assert proc.returncode == -signal.SIGKILL, "Snakemake was left running, or ended some other way"
    assert ended(job_pid(log)), "Snakemake's job outlived the run"


@LINUX
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_the_run_as_ctrl_c_does(tmp_path, monkeypatch, signum, leftovers):
    """``kill PID`` or a closed terminal: the run is stopped (its jobs too) and the result says interrupted;
    the caller's own handler of that signal is back afterwards."""
    monkeypatch.setattr(runner, "STOP_GRACE_S", 0.2)
    log = tmp_path / "run.log"
    # a caller that does not ignore the signal: the suite may run under nohup (SIGHUP ignored), and a
    # signal the caller ignores stays ignored (the nohup test below), so this run would wait for ever
    previous = signal.signal(signum, signal.SIG_DFL)
    try:
        before = signal.getsignal(signum)
        result = runner.run_snakemake(
            [sys.executable, "-c", DEAF_RUN], log, ready_then(log, lambda: os.kill(os.getpid(), signum)), 0.02
        )
        leftovers(job_pid(log))  # the run itself is reaped whenever run_snakemake returns
        assert result == runner.RunResult(runner.INTERRUPTED, interrupted=True)
        assert ended(job_pid(log))
        assert signal.getsignal(signum) is before
    finally:
        signal.signal(signum, previous)


def test_a_caller_under_nohup_keeps_running_when_its_terminal_closes(tmp_path):
    """SIGHUP ignored by the caller (``nohup cardlab run``) stays ignored: the run goes on to its own end
    (here: the child ends on SIGUSR1, sent after the SIGHUP; exit status 5)."""
    log = tmp_path / "run.log"
    child = (
        "import os, signal, sys\n"
        "signal.signal(signal.SIGUSR1, lambda *_: None)\n"
        "print(os.getpid(), 'ready', flush=True)\n"
        "signal.pause()\n"
        "sys.exit(5)\n"
    )

    def hang_up_then_let_it_end():
        os.kill(os.getpid(), signal.SIGHUP)
        os.kill(int(log.read_text().split()[0]), signal.SIGUSR1)

    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        result = runner.run_snakemake(
            [sys.executable, "-c", child], log, ready_then(log, hang_up_then_let_it_end), 0.02
        )
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert (result.rc, result.interrupted) == (5, False)


@LINUX
def test_a_caller_killed_outright_takes_its_run_with_it(tmp_path, leftovers):
    """SIGKILL leaves the caller no word: the kernel sends Snakemake SIGINT when its parent dies
    (PR_SET_PDEATHSIG), and Snakemake stops as on Ctrl-C (here: the child leaves a file and exits)."""
    mark = tmp_path / "got-sigint"
    child = (
        "import signal, sys\n"
        f"signal.signal(signal.SIGINT, lambda *_: (open({str(mark)!r}, 'w').close(), sys.exit(130)))\n"
        "print('ready', flush=True)\n"
        "signal.pause()\n"
    )
    caller = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from engines.pipeline.snakemake import runner
        proc = runner.start([sys.executable, "-c", {child!r}], sys.stdout)
        runner.let_stop_signals_in()
        print(proc.pid, flush=True)
        proc.wait()
    """)
    parent = subprocess.Popen([sys.executable, "-c", caller], stdout=subprocess.PIPE, text=True)
    try:
        said = {parent.stdout.readline().strip() for _ in range(2)}  # the child's pid and its 'ready', any order
        assert "ready" in said  # the child's handler is in place
        (pid,) = (int(w) for w in said if w != "ready")
        leftovers(pid)
        parent.kill()
        parent.wait(timeout=30)
        assert ended(pid, 10.0), "the run outlived its killed caller"
    finally:
        parent.kill()
    assert mark.exists(), "the run was not told to stop (SIGINT)"


def test_a_run_ignoring_sigint_from_its_shell_is_still_stopped(tmp_path, monkeypatch):
    """A caller started in the background by a shell ignores SIGINT; Snakemake must not inherit that, since
    SIGINT is how it is stopped (Python's own Ctrl-C, KeyboardInterrupt: here the child leaves a file)."""
    monkeypatch.setattr(runner, "STOP_GRACE_S", 10.0)  # on failure: killed after it, no file
    log, mark = tmp_path / "run.log", tmp_path / "got-ctrl-c"
    child = (
        "import signal, sys\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    signal.pause()\n"
        "except KeyboardInterrupt:\n"
        f"    open({str(mark)!r}, 'w').close()\n"
        "    sys.exit(130)\n"
    )

    def ctrl_c():
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        result = runner.run_snakemake([sys.executable, "-c", child], log, ready_then(log, ctrl_c), 0.02)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert result.interrupted and mark.exists()


HOLD_LOCK = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    from engines.pipeline.bookkeeping.runstate import hold_run_lock
    assert hold_run_lock()
    print("held", flush=True)
    sys.stdin.readline()
""")


@pytest.fixture
def held_lock(tmp_path, monkeypatch):
    """Another run holding the run lock of the directory the test runs in (its pid)."""
    monkeypatch.chdir(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(ROOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        yield holder.pid
    finally:
        holder.communicate("done\n", timeout=60)


def lock_words(pid: int) -> str:
    return f"another snakemake run is working in this directory (pid {pid}; started "


def test_a_second_cardlab_run_is_refused_at_once_in_the_locks_words(held_lock, capsys, monkeypatch):
    """One line, the holder named (pid, start, the lock) with the fix, exit 1; Snakemake never started and
    nothing said about a finished or stopped run."""
    from engines import cli

    monkeypatch.setattr(run_command, "run_snakemake", lambda *a, **k: pytest.fail("snakemake was started"))
    assert cli.main(["run", "--cores", "1"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith("error: " + lock_words(held_lock)), line
    assert f"it holds {layout.RUN_LOCK}" in line and f"`kill {held_lock}`" in line
    assert not any(w in line for w in ("finished", "asked to stop", "snakemake failed"))


def test_a_dry_run_goes_beside_a_running_one(held_lock, capsys, monkeypatch):
    """`cardlab run -n` changes no file: the lock does not refuse it."""
    from engines import cli

    monkeypatch.setattr(run_command, "Redraw", FakeRedraw)
    monkeypatch.setattr(run_command, "run_snakemake", lambda *a, **k: runner.RunResult(0, pid=1))
    assert cli.main(["run", "-n", "--cores", "1"]) == 0


class FakeRedraw:
    def __init__(self, *a, **k):
        pass

    def __enter__(self):
        return lambda ended: False

    def __exit__(self, *exc):
        return None


def test_a_campaign_run_is_refused_in_the_same_words(held_lock, tmp_path):
    """`cardlab campaign ... --run N`: refused before anything is written for the run."""
    from engines.campaign.shards import run_shards

    with pytest.raises(CardlabError, match=r"^another snakemake run .*\(pid \d+; started "):
        run_shards({"0": [str(tmp_path / "a.parquet")]}, {}, 1, tmp_path / "run.log")
    assert not list(Path(runstate.RUN_DIR).glob("cardlab-run-*")), "a refused run left its config"


def test_a_run_refused_after_the_look_says_the_locks_words_not_snakemakes(tmp_path, capsys, monkeypatch):
    """Another run may take the directory between `cardlab run`'s look and Snakemake's own: the lock's note
    of whom it refused (not Snakemake's words) makes the terminal say that, and no run's end."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run_command, "Redraw", FakeRedraw)
    line = "another snakemake run is working in this directory (pid 7; it holds x): wait for it"
    # a stand-in Snakemake refused by the lock: it notes the refusal as prepare_run does, and exits 1
    refused = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n" + (
        "from engines.pipeline.bookkeeping.runstate import record_refusal\n"
        f"record_refusal({line!r}, {layout.RUN_LOCK!r}); sys.exit(1)\n"
    )
    Path(layout.RUN_LOCK).parent.mkdir(parents=True)
    monkeypatch.setattr(
        "engines.pipeline.commands.campaign_work.leave_for_run", lambda cmd, *a: cmd
    )  # no config to plan here
    monkeypatch.setattr(run_command, "snakemake_command", lambda extra: [sys.executable, "-c", refused])
    assert run_command.cmd_run(run_args()) == 1
    out, err = capsys.readouterr()
    assert err == f"error: {line}\n"
    assert "done" not in out and "interrupted" not in out


def test_an_old_refusal_is_not_taken_for_this_runs(tmp_path):
    """The note names the refused process and when: another process, or an earlier time, is not this run."""
    lock = str(tmp_path / "run.lock")
    runstate.record_refusal("refused", lock)
    now = json.loads(Path(lock + runstate.REFUSED).read_text())["at"]
    assert runstate.refusal_of(os.getpid(), now, lock) == "refused"
    assert runstate.refusal_of(os.getpid() + 1, now, lock) is None
    assert runstate.refusal_of(os.getpid(), now + 1, lock) is None
    assert runstate.refusal_of(os.getpid(), now, str(tmp_path / "other.lock")) is None


@pytest.mark.parametrize(
    "record", ['{"pid": "x", "started": 1e300}', "not json", '{"pid": 12, "started": NaN}', "[]", ""]
)
def test_a_damaged_lock_record_still_refuses_in_one_line(tmp_path, record):
    """The lock's record is the holder's own, but a damaged one must not hide the refusal."""
    import fcntl

    lock = tmp_path / "run.lock"
    lock.write_text(record)
    fd = os.open(lock, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        # the probe opens the file anew: an flock of another open file description refuses it
        words = runstate.lock_refusal(str(lock))
    finally:
        os.close(fd)
    assert words is not None and "\n" not in words and "another snakemake run is working" in words
    assert runstate.lock_refusal(str(lock)) is None  # released: nobody holds it


def run_args():
    import argparse

    return argparse.Namespace(snakemake_args=["--cores", "1"], every=0.02, config=None, results="results")


def test_a_run_that_ends_by_itself_is_waited_for(tmp_path):
    """Its exit status, its pid, and no process left behind (reaped: no zombie)."""
    log = tmp_path / "run.log"
    result = runner.run_snakemake([sys.executable, "-c", "import sys; sys.exit(3)"], log, lambda e: False, 0.02)
    assert result.rc == 3 and not result.interrupted
    with pytest.raises(ChildProcessError):
        os.waitpid(result.pid, os.WNOHANG)


def test_a_real_snakemake_refused_by_the_lock_is_said_in_the_locks_words(tmp_path, capsys, monkeypatch):
    """The one real Snakemake: `cardlab run`'s own look passed (another run took the directory just after),
    so the Snakefile refuses; the terminal gets the lock's line (the holder's pid), nothing of a run's end."""
    from wfhelp import workdir

    wd = workdir(tmp_path / "wd")
    monkeypatch.chdir(wd)
    Path(layout.RUN_LOCK).parent.mkdir(parents=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(ROOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(run_command, "refuse_a_second_run", lambda: None)  # the race: the look saw no run
        monkeypatch.setattr(run_command, "Redraw", FakeRedraw)
        assert run_command.cmd_run(run_args()) == 1
    finally:
        holder.communicate("done\n", timeout=60)
    out, err = capsys.readouterr()
    assert err.startswith("error: " + lock_words(holder.pid)) and err.count("\n") == 1, err
    assert "done" not in out and "interrupted" not in out
