"""Kept campaign files get Snakemake's provenance records, so its runs stop warning about them.

The repository keeps finished campaign shards (RedBlack k = 16..21, the first full-deck
ranks): a fresh clone has the files but not the records Snakemake writes when a job
finishes (``.snakemake/metadata``), so every ``snakemake -n`` said ``52 jobs have missing
provenance/metadata``.  Before a run, ``cardlab run`` marks the kept shards the plan owns as
made by their rule with Snakemake's own ``--touch`` (which records what a finished job
records and changes no byte), once per set of kept files: a mark file in ``.snakemake``
lists the ones already adopted.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from ..core.layout import RESULTS
from .plan import load_plan

MARK = Path(".snakemake/cardlab-kept-adopted")


def tracked_results(results: str = RESULTS) -> set[str]:
    """The files under ``results`` that git tracks (the kept campaign files); none outside a git checkout."""
    try:
        res = subprocess.run(["git", "ls-files", "-z", results], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {p for p in res.stdout.decode(errors="replace").split("\0") if p} if res.returncode == 0 else set()


def kept_outputs(config, results: str = RESULTS) -> list[str]:
    """Planned shard files that git keeps and that are present."""
    tracked = tracked_results(results)
    plan = load_plan(config, results)
    return sorted(f for s in plan for f in s.files.values() if f in tracked and Path(f).is_file())


def adopt_kept(snakemake: str, config: list[str], log) -> int:
    """Record Snakemake metadata for the kept shards of the plan (once per set); returns how many."""
    kept = kept_outputs(config)
    digest = hashlib.sha256("\n".join(kept).encode()).hexdigest()
    if not kept or (MARK.is_file() and MARK.read_text() == digest):
        return 0
    # the targets first: --configfile and --quiet take every word after them
    cmd = [snakemake, *kept, "--touch", "--force", "--cores", "1", "--configfile", *config, "--quiet", "all"]
    log.write(f"cardlab run: recording Snakemake metadata for {len(kept)} kept campaign file(s)\n")
    log.flush()
    if subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode != 0:
        return 0  # only a warning is at stake: the run itself says what is wrong, if anything
    MARK.parent.mkdir(parents=True, exist_ok=True)
    MARK.write_text(digest)
    return len(kept)
