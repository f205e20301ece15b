"""The one Snakemake runner (engines/pipeline/snakemake/runner.py): its command line and its follow loop, with a
fake process and a fake sleep (no clock, no Snakemake)."""

from __future__ import annotations

from engines.pipeline.snakemake import runner


class FakeProc:
    """A process that ends (with ``rc``) at its ``polls``-th poll."""

    def __init__(self, polls: int, rc: int):
        self.left = polls
        self.rc = rc
        self.returncode = None

    def poll(self):
        self.left -= 1
        if self.left <= 0:
            self.returncode = self.rc
        return self.returncode


def test_the_command_line_puts_the_targets_first(monkeypatch):
    monkeypatch.setattr(runner, "snakemake_executable", lambda: "snakemake")
    cmd = runner.snakemake_command(["a.parquet", "b.parquet"], ["run.yaml"], 2, ["--quiet", "rules"])
    # --configfile takes every word after it that is not an option: the targets go before it
    assert cmd == [
        "snakemake",
        "a.parquet",
        "b.parquet",
        "--configfile",
        "run.yaml",
        "--cores",
        "2",
        "--quiet",
        "rules",
    ]
    assert runner.snakemake_command(extra=["--cores", "all"]) == ["snakemake", "--cores", "all"]


def test_the_loop_ticks_until_the_process_ends_and_once_more_after():
    ticks, sleeps = [], []
    rc = runner.follow(FakeProc(3, 7), lambda ended: ticks.append(ended) or False, 5.0, sleeps.append)
    assert (rc, ticks, sleeps) == (7, [False, False, True], [5.0, 5.0])


def test_without_a_process_the_loop_ends_when_the_tick_says_so():
    ticks = []

    def tick(ended: bool) -> bool:
        ticks.append(ended)
        return len(ticks) == 4

    assert runner.follow(None, tick, 1.0, lambda s: None) == 0
    assert ticks == [False] * 4


def sigint_child(tmp_path) -> str:
    """A child that says 'ready' in its log, then waits; on SIGINT it leaves a file and exits 130."""
    return (
        "import signal, sys\n"
        "def stop(*_):\n"
        f"    open({str(tmp_path / 'got-sigint')!r}, 'w').close()\n"
        "    sys.exit(130)\n"
        "signal.signal(signal.SIGINT, stop)\n"
        "print('ready', flush=True)\n"
        "signal.pause()\n"
    )


def test_ctrl_c_stops_snakemake_and_waits_for_it(tmp_path):
    """Ctrl-C (KeyboardInterrupt in the loop) sends SIGINT to the run's process group and waits: the child
    says it got it (a file), and the result says interrupted.  The child is ready before Ctrl-C comes: an
    event (its line in the log), not a timer."""
    import sys

    log = tmp_path / "run.log"
    child = sigint_child(tmp_path)

    def tick(ended: bool) -> bool:
        if "ready" in log.read_text():
            raise KeyboardInterrupt
        return False

    result = runner.run_snakemake([sys.executable, "-c", child], log, tick, 0.05)
    assert result == runner.RunResult(runner.INTERRUPTED, interrupted=True)
    assert (tmp_path / "got-sigint").exists()


def test_a_plain_kill_stops_snakemake_as_ctrl_c_does(tmp_path):
    """SIGTERM to the caller (``kill PID``: a campaign started in the background ignores SIGINT) stops the run
    the same way: SIGINT to Snakemake's process group, waited for, the result interrupted; afterwards SIGTERM
    is handled as before.  The child is ready before the signal comes (its line in the log)."""
    import os
    import signal
    import sys

    log = tmp_path / "run.log"
    child = sigint_child(tmp_path)
    before = signal.getsignal(signal.SIGTERM)

    def tick(ended: bool) -> bool:
        if "ready" in log.read_text():
            os.kill(os.getpid(), signal.SIGTERM)
        return False

    result = runner.run_snakemake([sys.executable, "-c", child], log, tick, 0.05)
    assert result == runner.RunResult(runner.INTERRUPTED, interrupted=True)
    assert (tmp_path / "got-sigint").exists()
    assert signal.getsignal(signal.SIGTERM) is before
