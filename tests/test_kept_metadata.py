"""Kept campaign files (committed to git) get Snakemake's records from `cardlab run`, so
`snakemake -n` stops saying `N jobs have missing provenance/metadata`."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

from wfhelp import cardlab, env, snakemake

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


def records(wd, paths) -> dict:
    """Each file's Snakemake record, less the job's own times."""
    from engines.pipeline.adopt import VOLATILE, record_path

    out = {}
    for p in paths:
        rec = json.loads((wd / record_path(p)).read_text())
        out[p] = {k: v for k, v in rec.items() if k not in VOLATILE}
    return out


def test_the_kept_files_records_come_from_the_tracked_index_where_it_is_current(finished_run):
    """Snakemake's --touch records the kept files once (about 0.12 s a file); the index of those records
    then lets a fresh checkout write them in a second, each only where it is current: an entry whose stamp
    no longer matches what the plan gives its file (as after a change of its params) is left to --touch,
    and the records are the ones Snakemake wrote."""
    from engines.pipeline.adopt import INDEX, MARK, record_path

    wd = finished_run
    kept = sorted(str(p.relative_to(wd)) for p in (wd / "results/redblack/redblack_counts").rglob("*.parquet"))
    assert len(kept) >= 2
    git = lambda *a: subprocess.run(["git", *a], cwd=wd, check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    git("add", "-f", *kept)
    snakemake(wd, "--cleanup-metadata", *kept)
    assert cardlab(wd, "run", "warehouse", "--cores", "2").returncode == 0  # no index yet: all by --touch
    log = (wd / "results/logs/snakemake.log").read_text()
    assert f"0 from {INDEX}, {len(kept)} by snakemake --touch" in log, log
    touched = records(wd, kept)
    res = subprocess.run(
        [sys.executable, "-m", "engines.pipeline.adopt"], cwd=wd, env=env(), capture_output=True, text=True
    )
    assert f"the records of {len(kept)} kept file(s)" in res.stdout, res.stdout + res.stderr

    index = json.loads((wd / INDEX).read_text())
    index["files"][kept[0]][1] = "0" * 20  # its job's params are no longer what the index recorded
    (wd / INDEX).write_text(json.dumps(index))
    for p in kept:  # a fresh checkout: the kept files' records gone
        (wd / record_path(p)).unlink()
    (wd / MARK).unlink()
    assert cardlab(wd, "run", "warehouse", "--cores", "2").returncode == 0
    log = (wd / "results/logs/snakemake.log").read_text()
    assert f"{len(kept) - 1} from {INDEX}, 1 by snakemake --touch" in log, log
    assert records(wd, kept) == touched
    assert NOISE not in snakemake(wd, "-n").stdout
