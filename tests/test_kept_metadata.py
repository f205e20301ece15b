"""Kept campaign files (committed to git) get Snakemake's records from `cardlab run`, so
`snakemake -n` stops saying `N jobs have missing provenance/metadata`."""

from __future__ import annotations

import hashlib
import subprocess

from wfhelp import cardlab, snakemake

NOISE = "missing provenance/metadata"


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_cardlab_run_records_metadata_for_kept_files_once_and_changes_no_byte(finished_run):
    """A dry run records nothing; a run records the kept files' metadata, once, changing no byte."""
    wd = finished_run
    kept = sorted((wd / "results" / "redblack" / "redblack_counts").rglob("*.parquet"))
    assert kept
    rel = [str(p.relative_to(wd)) for p in kept]
    git = lambda *a: subprocess.run(["git", *a], cwd=wd, check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    git("add", "-f", *rel)
    # a fresh clone: the files are there, Snakemake's records of the jobs that made them are not
    snakemake(wd, "--cleanup-metadata", *rel)
    before = {p: sha(p) for p in kept}

    res = cardlab(wd, "run", "-n", "--cores", "1")  # a dry run records nothing
    assert res.returncode == 0, res.stdout + res.stderr
    assert NOISE in snakemake(wd, "-n").stdout

    # the warehouse target: the kept files are recorded before any job, whatever the target
    # (the reports, the default target's rest, are not what is checked)
    res = cardlab(wd, "run", "warehouse", "--cores", "2")
    assert res.returncode == 0, res.stdout + res.stderr
    log = (wd / "results/logs/snakemake.log").read_text()
    assert f"recording Snakemake metadata for {len(kept)} kept campaign file(s)" in log
    assert NOISE not in snakemake(wd, "-n").stdout
    assert {p: sha(p) for p in kept} == before

    res = cardlab(wd, "run", "warehouse", "--cores", "2")  # the same kept files: nothing to record again
    assert res.returncode == 0 and "recording Snakemake metadata" not in (wd / "results/logs/snakemake.log").read_text()
