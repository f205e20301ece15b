"""Shared fixtures: the tiny pipeline every end-to-end test queries, built once per test session.

Once per session, not once per pytest-xdist worker: the first worker that asks for a tree builds it
under a file lock in the session's shared folder, the others wait on the lock (wfhelp.built_once).
A test reads a shared tree, or works on its own copy (``tiny_copy``, ``finished``, ``finished_run``).

pytest puts this folder on sys.path (rootdir conftest), so per-game test folders
import the workflow helpers with ``from wfhelp import ...``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings
from wfhelp import ROOT, built_once, reference_dir, share_trees_in, snakemake, workdir

# No deadline on property tests: a first example that loads (or compiles) a numba kernel on a
# busy machine takes seconds, and speed is measured in bench/, never in unit tests.
settings.register_profile("cardlab", deadline=None)
settings.load_profile("cardlab")

# A bug reaching `cardlab`'s top level is one `internal error` line for a user; under test it stays the
# traceback it is, so that no test that asks "no traceback, non-zero exit" passes on a bug (the top
# level's own test, tests/test_cli_help.py, clears this).  Child processes inherit it.
os.environ["CARDLAB_DEBUG"] = "1"

# The files that take longest run first (longest first), so that the two workers end together:
# `make test` hands each worker a whole file when it is nearly done with its last one, in collection
# order (--no-loadscope-reorder; by default pytest-xdist orders files by their number of tests, and the
# real-SLURM file, about 4 minutes, ran alone at the end).  A file that needs no shared tree comes second,
# so that the other worker computes while the first one builds the engines snapshot.
LONG_FILES = (
    "test_slurm_real.py",
    "test_lane_layouts.py",
    "test_batches.py",
    "test_robustness.py",
    "test_robustness_rebuild.py",
    "test_cluster.py",
    "test_determinism.py",
    "test_live_eta.py",
    "test_bad_input.py",
    "test_robustness_files.py",
    "test_failures.py",
    "test_every_byte.py",
    "test_versions.py",
    "test_campaign_run.py",
    "test_campaign.py",
    "test_gpu_jobs.py",
)


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


@pytest.fixture(scope="session", autouse=True)
def session_trees(tmp_path_factory, worker_id: str, testrun_uid: str) -> Path:
    """The folder where this session's trees are built once: beside the workers' own temporary
    folders (pytest-xdist gives each worker one below the session's), named by the session's id."""
    base = tmp_path_factory.getbasetemp()
    folder = (base if worker_id == "master" else base.parent) / f"trees-{testrun_uid}"
    share_trees_in(folder)
    return folder


def build_tiny(wd: Path) -> None:
    """A finished run of TINY holding its own copy of engines/ (numba caches included, mtimes kept
    so they stay valid): tests edit an engine in a copy and see what reruns, while others edit the
    real engines/."""
    workdir(wd, config=TINY)
    shutil.copytree(ROOT / "engines", wd / "engines")
    snakemake(wd, "--cores", "2", "-q", env_extra=env_of(wd))


@pytest.fixture(scope="session")
def tiny_pipeline() -> Path:
    """The finished tiny run, shared by every test of the session: read it, never change it."""
    return built_once("tiny", build_tiny)


@pytest.fixture
def tiny_copy(tiny_pipeline, tmp_path) -> Path:
    """A copy of the finished tiny run for a test that changes it or runs Snakemake in it (mtimes and
    Snakemake's records kept: nothing to do in it)."""
    wd = tmp_path / "tiny"
    shutil.copytree(tiny_pipeline, wd, symlinks=True)
    return wd


@pytest.fixture
def finished(tmp_path) -> Path:
    """A copy of a complete reference run (results and config)."""
    src = reference_dir(cores=2)
    wd = tmp_path / "wd"
    wd.mkdir()
    shutil.copytree(src / "results", wd / "results")
    shutil.copy(src / "config.yaml", wd / "config.yaml")
    return wd


@pytest.fixture
def finished_run(tmp_path) -> Path:
    """A copy of a complete reference run: workflow, config, results and Snakemake's records (the
    reference builds the warehouse target: no reports)."""
    src = reference_dir(cores=2)
    wd = tmp_path / "run"
    shutil.copytree(src, wd, symlinks=True)
    return wd
