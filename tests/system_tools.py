"""The outside programs a few tests need: a browser (the report pages in headless Chromium), Ruby (the
seed's own program) and SLURM (a private cluster).  `make test` installs none of them: a test whose
program is missing is skipped, saying how to enable it.  `make test-tools`, as root, installs Debian's
packages; `make ci` (CI's command) runs it, then the suite with CARDLAB_TEST_SYSTEM=1, under which a
missing program fails its test instead: CI keeps every check."""

from __future__ import annotations

import os

import pytest

REQUIRED = "CARDLAB_TEST_SYSTEM"  # set (make ci): every outside program must be there
HOW = "`make test-tools` as root installs it (`make ci` does, then runs every check)"


def required() -> bool:
    return bool(os.environ.get(REQUIRED))


def missing(what: str) -> None:
    """Skip the running test for want of ``what`` (why, and how to enable it); fail it where every
    check is required."""
    if required():
        pytest.fail(f"{what}, and {REQUIRED}=1 asks for every check: {HOW}")
    pytest.skip(f"{what}: {HOW}")
