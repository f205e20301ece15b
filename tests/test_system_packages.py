"""`make test` installs nothing system-wide; `make test-tools` (as root) installs Debian packages and
says which before it does.  The Makefile's `test-tools` step runs here with a package that is never
installed and an apt-get that only records how it was called."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from wfhelp import ROOT

ROOTED = os.geteuid() == 0


def make(tmp_path: Path, *args: str) -> tuple[str, str]:
    """What `make ARGS` prints, and what the recording apt-get was asked (empty: never called)."""
    stub, calls = tmp_path / "bin", tmp_path / "apt-calls"
    stub.mkdir(exist_ok=True)
    (stub / "apt-get").write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    (stub / "apt-get").chmod(0o755)
    run_env = {**os.environ, "PATH": f"{stub}{os.pathsep}{os.environ['PATH']}"}
    out = subprocess.run(
        [
            "make",
            "-s",
            *args,
            "TEST_PACKAGES=cardlab-no-such-package:/nonexistent/tool",
            f"TOOLS_LOG={tmp_path / 'log'}",
        ],
        cwd=ROOT,
        env=run_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return out.stdout + out.stderr, calls.read_text() if calls.exists() else ""


def test_the_terminal_says_what_is_installed_before_apt_get_runs(tmp_path):
    said, calls = make(tmp_path, "test-tools")
    if ROOTED:
        assert "make test-tools installs Debian packages system-wide with apt-get" in said
        assert "cardlab-no-such-package" in said.split("apt-get", 1)[1].splitlines()[0]
        assert "install -y -qq cardlab-no-such-package" in calls.splitlines()
    else:  # only root installs: the note says what is missing, and nothing is installed
        assert "cardlab-no-such-package" in said and "missing (installed only as root" in said and calls == ""


def test_make_test_installs_nothing_and_make_ci_asks_for_every_check():
    """`make test` does not reach test-tools (a dry run of make lists every command it would run);
    `make ci` runs test-tools, then the suite with every outside program required."""
    plan = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "pytest" in plan and "apt-get" not in plan and "slurm_cluster.py" not in plan
    ci = subprocess.run(["make", "-n", "ci"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "apt-get" in ci and "CARDLAB_TEST_SYSTEM=1" in ci
