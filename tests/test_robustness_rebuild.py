"""A finished tree through the workflow: missing shards are recomputed by a plain run, a rebuild that
fails or runs leaves the last good catalog answering, a dry run changes no file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from barrier import Barrier
from damage import damaged_copy
from wfhelp import WAREHOUSE, WAREHOUSE_RULE, cardlab, cardlab_here, digests, parquet_files, reference, snakemake, start

from engines.core import layout
from engines.core.layout import temp_files


def answers(wd: Path) -> str:
    """The catalog's answers, read in another process, as a user's query beside a rebuild is (DuckDB shares
    one database instance per file within a process)."""
    out = cardlab(wd, "sql", "SELECT experiment, games, wins FROM narcotic_summary ORDER BY ALL", "--csv")
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_missing_shards_are_recomputed_by_a_plain_run(finished_run):
    """Case 2: deleted shards (a search shard, the basins shard) and a dangling link in a shard's place."""
    wd = finished_run
    ref = reference(cores=2)
    files = parquet_files(wd)
    victims = [
        next(p for p in files if "narcotic_games" in str(p)),
        next(p for p in files if "redblack_basin" in str(p)),
        next(p for p in files if "redblack" in str(p) and "basin" not in str(p)),
    ]
    for p in victims[:2]:
        p.unlink()
    victims[2].unlink()
    victims[2].symlink_to(wd / "nowhere.parquet")
    # the warehouse target, no option forcing anything: what is checked is the shards and the
    # catalog (the default target's reports follow the catalog: the kill test's last run has them)
    out = snakemake(wd, WAREHOUSE_RULE, "--cores", "2")
    assert "Nothing to be done" not in out.stdout + out.stderr
    assert digests(wd) == ref
    v = cardlab_here(wd, "verify")
    assert v.returncode == 0, v.stdout + v.stderr
    # the catalog alone deleted: rebuilt too
    (wd / WAREHOUSE).unlink()
    snakemake(wd, WAREHOUSE_RULE, "--cores", "2")
    assert cardlab_here(wd, "verify").returncode == 0


# A damaged shard that Snakemake sees as a file (a sound shard misplaced) and one it sees as a
# directory, each through a workflow rebuild (15 s a rebuild here); a truncated and an empty file
# fail as the misplaced one does, through the same check, which test_bad_file_named_at_warehouse_build
# makes on every kind of damage in-process: their workflow rebuilds run with `pytest -m slow`
REBUILD_DAMAGE = ("misplaced", "directory")


def refused_rebuilds(wd: Path, kinds: tuple[str, ...]) -> str:
    """A rebuild with a narcotic shard damaged in each way of ``kinds`` fails, naming the file, and
    leaves the previous catalog answering as before; the shard is then put back (newer than the
    catalog).  The catalog's answers."""
    good = answers(wd)
    before = (wd / WAREHOUSE).read_bytes()
    shards = [p for p in parquet_files(wd) if "narcotic_games" in str(p)]
    saved = shards[1].read_bytes()
    for how in kinds:
        shards[1].unlink()
        if how == "misplaced":
            shutil.copy(shards[0], shards[1])
            sees = "provenance says narcotic/narcotic_games/seed/"
        elif how == "directory":
            shards[1].mkdir()
            sees = "a directory or special file is in its place"
        else:
            damaged_copy(str(shards[0]), shards[1], how)
            sees = "not a readable Parquet file"
        out = snakemake(wd, "--cores", "2", check=False)
        assert out.returncode != 0, how
        assert f"error: {shards[1].relative_to(wd)}: " in out.stderr and sees in out.stderr, out.stderr[-2000:]
        assert (wd / WAREHOUSE).read_bytes() == before, how
        assert answers(wd) == good
        if how == "directory":
            shards[1].rmdir()
            shards[1].touch()
    shards[1].write_bytes(saved)
    return good


def test_failed_or_running_rebuild_keeps_the_last_good_catalog(finished_run):
    """Case 3 (and case 1 through the workflow): a rebuild that fails leaves the previous catalog
    answering; while a rebuild runs, the old catalog stays queryable until the new one replaces it."""
    wd = finished_run
    ref = reference(cores=2)
    good = refused_rebuilds(wd, REBUILD_DAMAGE)
    # a rebuild (the shard is newer than the warehouse): held at the barrier with its new catalog
    # complete under its temporary name, the old catalog is still there and answers; the rename
    # that follows is atomic, so readers never find the catalog gone
    # (the warehouse target: the reports that follow it neither write nor remove the catalog)
    catalog = Barrier(wd.parent / "catalog-barrier", Path(WAREHOUSE).name)
    run = start(wd, "--cores", "2", WAREHOUSE_RULE, env_extra=catalog.env())
    try:
        catalog.wait_reached(run)
        assert temp_files(wd / WAREHOUSE), "the rebuild holds no temporary catalog"
        assert answers(wd) == good  # the last good catalog, while the rebuild runs
    finally:
        catalog.release()
    assert run.wait(timeout=600) == 0
    catalog.close()
    assert digests(wd) == ref and answers(wd) == good
    assert cardlab_here(wd, "verify").returncode == 0


@pytest.mark.slow
def test_a_truncated_or_empty_shard_fails_a_rebuild_as_a_misplaced_one_does(finished_run):
    refused_rebuilds(finished_run, ("truncated", "empty"))


# Snakemake's own run logs and the I/O cache a dry run leaves for --trust-io-cache
SNAKEMAKE_OWN = (".snakemake/log/", ".snakemake/iocache/")


def tree_state(wd: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under the work dir (Snakemake's records included): content and modification time."""
    files = (p for p in wd.rglob("*") if p.is_file() and not str(p.relative_to(wd)).startswith(SNAKEMAKE_OWN))
    return {str(p.relative_to(wd)): (p.read_bytes(), p.stat().st_mtime_ns) for p in files}


def interrupted_tree(wd: Path) -> None:
    """A deleted planned shard in a finished tree (its warehouse manifest present)."""
    shards = [p for p in parquet_files(wd) if "narcotic_games" in str(p)]
    shards[0].unlink()
    assert (wd / layout.manifest_of(WAREHOUSE)).exists()


def assert_no_file_changes(wd: Path, commands: tuple[list[str], ...]) -> None:
    before = tree_state(wd)
    for args in commands:
        out = snakemake(wd, *args, check=False)
        assert "Traceback" not in out.stderr, out.stderr[-2000:]
        after = tree_state(wd)
        changed = sorted(f for f in before if after.get(f) != before[f])
        added = sorted(f for f in after if f not in before)
        assert not changed and not added, (args, changed, added)


# One command of each Snakemake mode that runs no job (6 s each here); the dry run's other
# spellings, which Snakemake's own parser reads alike (options.runs_jobs) (test_only_a_command_that_runs_jobs_cleans_up),
# under `pytest -m slow`
NO_JOB_COMMANDS = (["-n"], ["--summary"], ["--dag"])
DRY_RUN_SPELLINGS = (["--dry-run", "--cores", "2"], ["-pn"])


def test_a_dry_run_changes_no_file(finished_run):
    """A deleted planned shard and the warehouse manifest: `snakemake -n` reads them and changes none;
    the real run recomputes the shard and rebuilds the warehouse."""
    wd = finished_run
    interrupted_tree(wd)
    assert_no_file_changes(wd, NO_JOB_COMMANDS)
    out = snakemake(wd, WAREHOUSE_RULE, "--cores", "2")
    assert "recomputing" in out.stderr
    assert cardlab_here(wd, "verify").returncode == 0


@pytest.mark.slow
def test_every_spelling_of_a_dry_run_changes_no_file(finished_run):
    interrupted_tree(finished_run)
    assert_no_file_changes(finished_run, DRY_RUN_SPELLINGS)
