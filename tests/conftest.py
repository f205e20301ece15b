"""Shared fixtures: the tiny pipeline every end-to-end test queries, built once per test session.

pytest puts this folder on sys.path (rootdir conftest), so per-game test folders
import the workflow helpers with ``from wfhelp import ...``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings
from wfhelp import ROOT, reference_dir, snakemake, workdir

# No deadline on property tests: a first example that loads (or compiles) a numba kernel on a
# busy machine takes seconds, and speed is measured in bench/, never in unit tests.
settings.register_profile("cardlab", deadline=None)
settings.load_profile("cardlab")

# A bug reaching `cardlab`'s top level is one `internal error` line for a user; under test it stays the
# traceback it is, so that no test that asks "no traceback, non-zero exit" passes on a bug (the top
# level's own test, tests/test_cli_help.py, clears this).  Child processes inherit it.
os.environ["CARDLAB_DEBUG"] = "1"

# The files that take minutes run first: `make test` gives each of its two workers whole files in
# collection order, and the real-SLURM file (about 3.5 minutes) collected last ran alone at the end.
LONG_FILES = ("test_slurm_real.py", "test_robustness.py", "test_cluster.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return LONG_FILES.index(item.path.name) if item.path.name in LONG_FILES else len(LONG_FILES)

    items.sort(key=rank)  # stable: a file's tests stay together, in their order


# Every game has data, RedBlack has cycles (k = 6), Narcotic has both presets and all
# sixteen rule combinations; small enough for about half a minute on 2 loaded cores.
TINY = """
narcotic:
  experiments:
    - {name: seed, rules: seed, games: 3000, shards: 2, seed: 11}
    - {name: classic, rules: classic, games: 1000, shards: 1, seed: 12}
    - {name: combos, rules: all, games: 100, shards: 1, seed: 2}
redblack:
  exhaustive:
    - {k_min: 1, k_max: 6, method: brute, deals_per_shard: 1000}
    - {k: [8], method: owner, deals_per_shard: 5000}
  audit:
    - {name: published, file: workflow/data/redblack/published_infinite.txt}
  basins: true
  experiments:
    - {name: sample26, k: 26, deals: 300, shards: 1, seed: 13, balanced: true}
blackjack:
  exact: {decks: [1, 2, inf], soft17: [stand], peek: ["no"]}
  experiments:
    - {name: fresh2, shoe: fresh, decks: 2, soft17: stand, peek: "no", hands_per_upcard: 5000, shards: 2, seed: 14}
"""


def env_of(wd: Path) -> dict[str, str]:
    """Jobs import the run's private engines snapshot, found first on PYTHONPATH."""
    return {"PYTHONPATH": str(wd)}


@pytest.fixture(scope="session")
def tiny_pipeline(tmp_path_factory) -> Path:
    """A finished run of TINY in a temporary directory holding its own copy of engines/.

    The private copy (numba caches included, mtimes kept so they stay valid) lets tests
    edit an engine and see what reruns, while others edit the real engines/."""
    wd = workdir(tmp_path_factory.mktemp("tiny") / "wd", config=TINY)
    shutil.copytree(ROOT / "engines", wd / "engines")
    snakemake(wd, "--cores", "2", "-q", env_extra=env_of(wd))
    return wd


@pytest.fixture
def finished(tmp_path, tmp_path_factory) -> Path:
    """A copy of a complete reference run (results and config)."""
    src = reference_dir(tmp_path_factory.getbasetemp(), cores=2)
    wd = tmp_path / "wd"
    wd.mkdir()
    shutil.copytree(src / "results", wd / "results")
    shutil.copy(src / "config.yaml", wd / "config.yaml")
    return wd


@pytest.fixture
def finished_run(tmp_path, tmp_path_factory) -> Path:
    """A copy of a complete reference run: workflow, config, results and Snakemake's records (the
    reference builds the warehouse target: no reports)."""
    src = reference_dir(tmp_path_factory.getbasetemp(), cores=2)
    wd = tmp_path / "run"
    shutil.copytree(src, wd, symlinks=True)
    return wd
