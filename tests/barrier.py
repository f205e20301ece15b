"""A barrier in a workflow run's processes (tests/hooks/sitecustomize.py): stop a run at an exact point.

``Barrier(tmp, ".parquet", passes=3)`` lets the first 3 Parquet files of the run be renamed
into place and holds every later one just before its rename; :meth:`wait_reached` waits for
the event that a writer is held there (a file the writer creates), :meth:`release` lets the
held writers go.  No sleep decides anything: the run is stopped by construction.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from wfhelp import engines_snapshot

HOOKS = Path(__file__).parent / "hooks"
DEADLINE_S = 600.0  # only against a hang: the wait ends on the event


class Barrier:
    def __init__(self, where: Path, suffix: str, passes: int = 0):
        self.dir = where
        self.dir.mkdir(parents=True, exist_ok=True)
        self.fifo = self.dir / "release"
        os.mkfifo(self.fifo)
        self.suffix = suffix
        self.passes = passes
        self._release_fd: int | None = None

    def env(self) -> dict[str, str]:
        return {
            "PYTHONPATH": f"{HOOKS}{os.pathsep}{engines_snapshot()}",
            "CARDLAB_TEST_BARRIER_SUFFIX": self.suffix,
            "CARDLAB_TEST_BARRIER_DIR": str(self.dir),
            "CARDLAB_TEST_BARRIER_PASS": str(self.passes),
        }

    def reached(self, held: int = 1) -> bool:
        """``held`` writers hold at the barrier (each claimed a slot past the ones that pass)."""
        return (self.dir / f"slot.{self.passes + held - 1}").exists()

    def wait_reached(self, proc, deadline_s: float = DEADLINE_S, held: int = 1) -> None:
        """Wait for the event that ``held`` writers are held at the barrier (their slot files); fails if the
        run ended first.  ``proc``: the run, a Popen or anything with ``poll()``."""
        end = time.monotonic() + deadline_s
        while not self.reached(held):
            assert proc.poll() is None, f"the run ended (exit status {proc.returncode}) before the barrier"
            assert time.monotonic() < end, "the barrier was never reached"
            time.sleep(0.05)

    def release(self) -> None:
        """Let every writer held at the barrier, and every later one, go."""
        if self._release_fd is None:
            self._release_fd = os.open(self.fifo, os.O_RDWR)  # RDWR: opens at once, a reader or not

    def close(self) -> None:
        if self._release_fd is not None:
            os.close(self._release_fd)
