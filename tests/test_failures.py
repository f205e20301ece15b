"""A failing job's cause in the terminal, and a damaged input recovered by the next plain run."""

from __future__ import annotations

import io
import os
from pathlib import Path

from wfhelp import cardlab, snakemake, workdir

from engines.pipeline.bookkeeping.records import JobRecorder, read_timing
from engines.pipeline.snakemake.failures import failed_jobs, job_name, record_failure, report_failures


def test_a_failure_is_recorded_and_a_finished_attempt_before_it_kept(tmp_path):
    log = tmp_path / "results/logs/redblack/basins/all/shard=0000.log"
    record = tmp_path / "results/timings/redblack/basins/all/shard=0000.json"
    JobRecorder(record, 1, 0.0).finished({"work": 5, "wall_s": 1.0, "cpu_s": 1.0, "machine": "m"})
    JobRecorder(record, 1, 1.0)  # a second attempt, which fails
    record_failure(log, "second attempt's cause")
    assert failed_jobs(0.0, str(tmp_path / "results")) == [(str(log), "second attempt's cause")]
    assert read_timing(record)["work"] == 5  # what the first attempt measured stays
    JobRecorder(record, 1, 2.0).finished({"work": 6, "wall_s": 1.0, "cpu_s": 1.0, "machine": "m"})
    assert failed_jobs(0.0, str(tmp_path / "results")) == []  # a third attempt finished


def test_jobs_are_named_from_their_logs_place():
    assert job_name("results/logs/redblack/basins/all/shard=0000.log") == "redblack basins/all/0"
    assert job_name("results/logs/warehouse.log") == "warehouse"


def test_only_jobs_that_failed_during_the_run_are_reported(tmp_path):
    results = tmp_path / "results"
    old, new = results / "logs/a/x/y/shard=0000.log", results / "logs/b/x/y/shard=0001.log"
    for p in (old, new):
        record_failure(p, "broke")
    os.utime(results / "timings/a/x/y/shard=0000.json", (1_000_000, 1_000_000))
    assert [log for log, _ in failed_jobs(2_000_000, str(results))] == [str(new)]


def test_a_run_stopped_with_jobs_under_way_says_so_not_that_it_failed(tmp_path):
    """No job failed, one never finished (a job killed, or the run stopped by a signal): the terminal says which
    and how to resume; with none unfinished either, that Snakemake ended the run itself."""
    results = tmp_path / "results"
    timings = results / "timings/redblack/exhaustive_k24/owner"
    JobRecorder(timings / "shard=0291.json", 1, 0.0)  # started, never finished
    JobRecorder(timings / "shard=0292.json", 1, 0.0).finished({"work": 5, "wall_s": 1.0, "cpu_s": 1.0})
    out = io.StringIO()
    assert report_failures(["snakemake.log"], out, str(results), since=0.0) == 0
    said = out.getvalue()
    assert "1 job(s) it started did not finish (redblack/exhaustive_k24/owner/shard=0291)" in said
    assert "and in snakemake.log" in said and "`snakemake --cores all` resumes" in said
    out = io.StringIO()
    report_failures(None, out, str(tmp_path / "empty"), since=0.0)
    assert "no job failed; Snakemake ended the run itself (asked to stop" in out.getvalue()


CONFIG = """
batch_cpu_s: 0
redblack:
  exhaustive: {k_min: 5, k_max: 6, deals_per_shard: 1000, method: owner}
  basins: true
"""


def test_a_damaged_input_is_named_in_the_terminal_and_the_next_plain_run_recovers(tmp_path):
    wd = workdir(tmp_path / "wd", CONFIG)
    snakemake(wd, "--cores", "1")
    found = wd / "results/redblack/redblack_found/exhaustive_k06/owner/shard=0000.parquet"
    good = found.read_bytes()
    basin = next((wd / "results/redblack/redblack_basins").rglob("*.parquet"))
    basin.unlink()  # the basin job must run again, and read the damaged shard
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0xFF
    found.write_bytes(bytes(bad))

    failed = snakemake(wd, "--cores", "1", check=False)
    assert failed.returncode != 0
    terminal = failed.stdout + failed.stderr
    report = terminal[terminal.index("cardlab: 1 job(s) failed:") :]
    assert "redblack basins/all/0: an input of this job is damaged:" in report, terminal
    assert str(found.relative_to(wd)) in report and "rerun `snakemake --cores all`" in report
    assert not found.exists() and list((wd / "results/damaged").rglob("shard=0000.parquet.*"))

    snakemake(wd, "--cores", "1")  # a plain run: computes the shard again, then the basins
    assert found.read_bytes() == good
    assert Path(basin).exists()

    # `cardlab run`, whose terminal shows a live view and keeps Snakemake's output in a log, says the same
    basin.unlink()
    found.write_bytes(bytes(bad))
    res = cardlab(wd, "run", "--cores", "1")
    assert res.returncode != 0
    assert "cardlab: 1 job(s) failed:" in res.stderr and "redblack basins/all/0: an input of this job" in res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith("error: snakemake failed")
