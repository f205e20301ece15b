"""Faults: a workflow killed at several points resumes to the same bytes; a writer killed mid-write
leaves only a temporary; a second run in the same directory stops at once.  Damaged, foreign or stale
files: tests/test_robustness_files.py; rebuilds and dry runs of a finished tree:
tests/test_robustness_rebuild.py (three files, so that pytest's workers share the minutes)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest
from barrier import Barrier
from wfhelp import (
    WAREHOUSE,
    WAREHOUSE_RULE,
    cardlab_here,
    digests,
    kill_group,
    parquet_files,
    reference,
    snakemake,
    start,
    workdir,
)

from engines.core import layout
from engines.core.layout import temp_files
from engines.pipeline.catalog.warehouse import check_file

# imported with the module, before any test: a shard step run in this process hides pandas
# (engines.core.store.without_pandas), which Snakemake imports
from engines.pipeline.snakemake.options import runs_jobs


def assert_no_false_results(wd: Path) -> None:
    """Every *.parquet under results/ is complete with provenance; temporaries are dot-files
    that no result glob (``*.parquet``) matches; a warehouse present is a complete catalog."""
    for path in parquet_files(wd):
        assert not path.name.startswith("."), path
        check_file(str(path))
    for tmp in (wd / "results").rglob(".*.tmp*"):
        assert not tmp.name.endswith(".parquet"), tmp
    wh = wd / WAREHOUSE
    if wh.exists():
        con = duckdb.connect(str(wh), read_only=True)
        assert con.execute("SELECT count(*) FROM provenance").fetchone()[0] > 0
        con.close()


def test_kill_at_several_points_then_plain_rerun_gives_identical_bytes(tmp_path):
    """The kills come at exact points (tests/barrier.py): a barrier in the run's own processes holds a
    write just before its rename, the test waits for that event and kills the run there."""
    ref = reference(cores=2)
    wd = workdir(tmp_path / "killed")
    # 1: kill the whole run (snakemake and its jobs) once exactly 3 shard files are written
    shards = Barrier(tmp_path / "shards", ".parquet", passes=3)
    run = start(wd, "--cores", "2", WAREHOUSE_RULE, env_extra=shards.env())
    shards.wait_reached(run)
    kill_group(run)
    assert_no_false_results(wd)
    assert 3 <= len(parquet_files(wd)) < len(ref)
    # 2: a plain rerun, killed again while the warehouse is being built: its catalog written in full
    # under its temporary name, not yet renamed
    catalog = Barrier(tmp_path / "catalog", Path(WAREHOUSE).name)
    run = start(wd, "--cores", "2", WAREHOUSE_RULE, env_extra=catalog.env())
    catalog.wait_reached(run)
    assert temp_files(wd / WAREHOUSE), "the warehouse build holds no temporary catalog"
    kill_group(run)
    assert_no_false_results(wd)
    assert not (wd / WAREHOUSE).exists(), "a half-built warehouse under the final name"
    assert len(parquet_files(wd)) == len(ref)
    # 3: the plain command a user types finishes the campaign (the killed jobs rerun: the profile's
    # rerun-incomplete; no stale lock stops it: the profile's nolock, the run lock an flock)
    snakemake(wd, "--cores", "2")
    assert digests(wd) == ref
    assert not list((wd / "results").rglob(".*.tmp*")), "temporaries left after the rerun"
    assert (wd / "reports").is_dir()
    v = cardlab_here(wd, "verify")
    assert v.returncode == 0, v.stdout + v.stderr
    assert "Nothing to be done" in snakemake(wd, "--cores", "2", "-n").stdout


def test_kill_during_shard_write_leaves_only_a_temporary(tmp_path):
    """A writer killed after it created its temporary leaves no file under the final name;
    the job's rerun removes the temporary."""
    out = tmp_path / "results" / "narcotic" / "narcotic_games" / "e" / "v" / "shard=0000.parquet"
    code = textwrap.dedent(f"""
        import os
        real = os.fsync
        def hang(fd):
            real(fd)
            print("written", flush=True)
            os.kill(os.getpid(), 9)          # SIGKILL between write and rename
        os.fsync = hang
        from engines.core.store import write_parquet
        write_parquet({str(out)!r}, {{"x": [1, 2, 3]}}, {{"game": "narcotic"}})
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == -9 and "written" in proc.stdout
    assert not out.exists()
    leftovers = temp_files(out)
    assert len(leftovers) == 1 and leftovers[0].name.startswith(".shard=0000.parquet.")
    assert layout.remove_temp_files(out) == leftovers and not temp_files(out)


@pytest.mark.parametrize(
    "argv, runs",
    [
        (["snakemake", "--cores", "all"], True),
        (["snakemake", "--cores", "2", "warehouse"], True),
        (["snakemake", "-n"], False),
        (["snakemake", "-pn", "--cores", "2"], False),
        (["snakemake", "--dry-run"], False),
        (["snakemake", "--summary"], False),
        (["snakemake", "--dag"], False),
        (["snakemake", "--unlock"], False),
        (["snakemake", "--report=r.html"], False),
        (["snakemake", "-c2", "-p"], True),
        (["snakemake", "-nc2"], False),
        (["snakemake", "-qn", "--cores", "all"], False),
        (["snakemake", "-pc", "2"], True),
    ],
)
def test_only_a_command_that_runs_jobs_cleans_up(argv, runs):
    assert runs_jobs(argv) is runs


def test_a_second_run_in_the_same_directory_stops_at_once(tmp_path):
    """No Snakemake lock files (the profile's nolock): the run lock, an flock, says a run is alive here."""
    wd = workdir(tmp_path / "wd")
    lock = wd / layout.RUN_LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        out = snakemake(wd, "--cores", "1", check=False)
        assert out.returncode == 1 and "another snakemake run is working in this directory" in out.stderr
        assert not parquet_files(wd), "a refused run computed shards"
    finally:
        holder.communicate("done\n", timeout=60)
    assert "Nothing to be done" not in snakemake(wd, "--cores", "1", "-n").stdout  # the lock gone: it would run


HOLD_LOCK = textwrap.dedent("""
    import fcntl, os, sys
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("held", flush=True)
    sys.stdin.readline()
""")
