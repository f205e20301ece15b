"""A failing job's cause in the terminal, and a damaged input recovered by the next plain run."""

from __future__ import annotations

import os
from pathlib import Path

from wfhelp import cardlab, snakemake, workdir

from engines.pipeline.failures import failed_jobs, job_name, last_error, run_started

LOG = """redblack basins/all/0: numba threads 1
error: first attempt's cause
redblack basins/all/0: numba threads 1
progress 50 %
error: second attempt's cause
"""


def test_the_last_attempts_cause_is_the_one_reported():
    assert last_error(LOG) == "second attempt's cause"
    assert last_error(LOG + "redblack basins/all/0: numba threads 1\nwrote 3 table(s)\n") is None
    assert last_error("error: a step without a start line\n") == "a step without a start line"


def test_jobs_are_named_from_their_logs_place():
    assert job_name("results/logs/redblack/basins/all/shard=0000.log") == "redblack basins/all/0"
    assert job_name("results/logs/warehouse.log") == "warehouse"


def test_only_logs_written_during_the_run_are_reported(tmp_path):
    old, new = tmp_path / "results/logs/a/x/y/shard=0000.log", tmp_path / "results/logs/b/x/y/shard=0001.log"
    for p in (old, new):
        p.parent.mkdir(parents=True)
        p.write_text("error: broke\n")
    os.utime(old, (1_000_000, 1_000_000))
    assert [log for log, _ in failed_jobs(2_000_000, str(tmp_path / "results"))] == [str(new)]
    assert run_started("x/.snakemake/log/2026-12-04T143138.111099.snakemake.log") > 1.7e9
    assert run_started([]) == 0.0


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
