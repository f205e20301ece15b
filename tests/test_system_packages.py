"""`make test` as root installs Debian packages system-wide: it says which before it does, and
CARDLAB_NO_SYSTEM_PACKAGES=1 installs none.  The Makefile's `test-tools` step runs here with a
package that is never installed and an apt-get that only records how it was called."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from wfhelp import ROOT

ROOTED = os.geteuid() == 0


def make_test_tools(tmp_path: Path, **env: str) -> tuple[str, str]:
    """What `make test-tools` prints, and what the recording apt-get was asked (empty: never called)."""
    stub, calls = tmp_path / "bin", tmp_path / "apt-calls"
    stub.mkdir(exist_ok=True)
    (stub / "apt-get").write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    (stub / "apt-get").chmod(0o755)
    base = {k: v for k, v in os.environ.items() if k != "CARDLAB_NO_SYSTEM_PACKAGES"}
    run_env = {**base, "PATH": f"{stub}{os.pathsep}{os.environ['PATH']}", **env}
    out = subprocess.run(
        [
            "make",
            "-s",
            "test-tools",
            "TEST_PACKAGES=cardlab-no-such-package:/nonexistent/tool",
            f"TOOLS_LOG={tmp_path / 'tools.log'}",
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
    said, calls = make_test_tools(tmp_path)
    if ROOTED:
        assert (
            "installs Debian packages system-wide with apt-get (skip: CARDLAB_NO_SYSTEM_PACKAGES=1 make test)" in said
        )
        assert "now: cardlab-no-such-package" in said
        assert calls.splitlines()[-1] == "install -y -qq cardlab-no-such-package"
    else:  # only root installs: the note says what is missing, and nothing is installed
        assert "cardlab-no-such-package missing (installed only as root)" in said and calls == ""


def test_no_system_packages_installs_nothing_and_says_so(tmp_path):
    said, calls = make_test_tools(tmp_path, CARDLAB_NO_SYSTEM_PACKAGES="1")
    if ROOTED:
        assert "CARDLAB_NO_SYSTEM_PACKAGES is set: not installing Debian's cardlab-no-such-package" in said
        assert "the tests that need them are skipped" in said
    assert calls == ""
