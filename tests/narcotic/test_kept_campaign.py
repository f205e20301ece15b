"""Kept Narcotic campaigns: the tally shards the default config plans are in the repository
(results/narcotic/, tracked with git add -f, logs under results/logs/), and a fresh copy of
kept tally files is taken as it is: nothing recomputed, not even after a kernel edit."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import yaml
from wfhelp import ROOT, snakemake, workdir

from engines.core.layout import log_of_shard_file, log_path, shard_path
from engines.pipeline.config import load_config
from engines.registry import engine

NARCOTIC = engine("narcotic")
TALLY_TABLES = ("narcotic_tallies", "narcotic_tally_passes")
# stands in for the kept files while the repository holds none (the mechanism is the same)
TINY_CAMPAIGN = {"name": "kept_tiny", "rules": "seed", "games": 900, "games_per_shard": 500, "seed": 3}


def default_campaigns() -> list[dict]:
    return (load_config(ROOT / "config.yaml").get("narcotic") or {}).get("campaigns") or []


def tally_files(campaigns: list[dict]) -> list[str]:
    """Shard files and logs of the tally shards the campaigns plan, relative to a results root's parent."""
    specs = [s for s in NARCOTIC.plan({"campaigns": campaigns}) if s["kind"] == "tally"]
    files = [shard_path("narcotic", t, s) for s in specs for t in TALLY_TABLES]
    return files + [log_path("narcotic", s["experiment"], s["variant"], s["shard"]) for s in specs]


def kept_tally_files() -> list[str]:
    """The tally shard files under results/narcotic/ and their logs, relative to the repository."""
    shards = sorted((ROOT / "results/narcotic").glob("narcotic_tall*/*/*/shard=*.parquet"))
    logs = [log_of_shard_file(f) for f in shards if f.parts[-4] == "narcotic_tallies"]
    return sorted([str(f.relative_to(ROOT)) for f in shards] + [str(Path(g).relative_to(ROOT)) for g in logs])


def test_the_default_config_plans_exactly_the_kept_tally_shards():
    """Every tally shard the default config plans is kept (with its log), and every kept one is planned."""
    planned = tally_files(default_campaigns())
    missing = [f for f in planned if not (ROOT / f).is_file()]
    assert not missing, f"the default config plans tally shards missing from results/: {missing[:4]}"
    assert sorted(planned) == kept_tally_files()


def test_kept_tally_files_are_accepted_and_not_recomputed(tmp_path):
    """A fresh directory holding the kept files (or, while none are kept, a tiny campaign's, run
    here) and the campaign's config runs no tally job, even after an edit of the kernel's code;
    the warehouse loads the shards as one complete campaign."""
    campaigns = default_campaigns()
    source = ROOT
    if not campaigns:
        campaigns = [TINY_CAMPAIGN]
        source = workdir(tmp_path / "first", yaml.safe_dump({"narcotic": {"campaigns": campaigns}}))
        snakemake(source, "--cores", "1", "warehouse")
    config = yaml.safe_dump({"narcotic": {"campaigns": campaigns}})
    wd = workdir(tmp_path / "wd", config)
    shutil.copytree(ROOT / "profiles", wd / "profiles")  # the rerun triggers a user's run has
    for f in tally_files(campaigns):
        (wd / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / f, wd / f)
    shutil.copytree(ROOT / "engines", wd / "engines", ignore=shutil.ignore_patterns("__pycache__"))
    kernel = wd / "engines/narcotic/kernel.py"
    kernel.write_text(kernel.read_text() + "\nKERNEL_EDITED = True  # a refactor: tally results stay\n")
    env = {"PYTHONPATH": str(wd)}
    dry = snakemake(wd, "-n", "--cores", "1", env_extra=env).stdout
    assert not re.search(r"^narcotic_tally\s+\d+$", dry, re.M), dry
    snakemake(wd, "--cores", "1", "warehouse", env_extra=env)
    con = duckdb.connect(str(wd / "results/warehouse.duckdb"), read_only=True)
    try:
        rows = con.execute("SELECT experiment, games, complete FROM narcotic_campaign ORDER BY ALL").fetchall()
    finally:
        con.close()
    assert rows == sorted((c["name"], c["games"], True) for c in campaigns)
