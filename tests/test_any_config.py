"""Runs with another config: `--configfile` plans only that file, `cardlab verify --config` and
`cardlab clean` follow the same rule, kept campaign files are listed as kept, orphans cleaned."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from wfhelp import CONFIG, ROOT, WAREHOUSE_RULE, cardlab_here, planned_stages, snakemake, workdir

from engines.core.errors import CardlabError
from engines.core.layout import log_of_shard_file
from engines.pipeline.planning.plan import load_config, run_config_files
from engines.pipeline.snakemake.options import config_files_of

OTHER = """
narcotic:
  experiments:
    - {name: other, rules: seed, games: 400, shards: 2, seed: 5}
"""
# one shard of the campaign the repository keeps (RedBlack k = 16, owner rule): three tables
KEPT = [
    f"results/redblack/{t}/exhaustive_k16/owner/shard=0000.parquet"
    for t in ("redblack_counts", "redblack_found", "redblack_hist")
]


def test_the_config_files_a_command_line_plans_from():
    assert config_files_of(["snakemake", "--cores", "all", "-n"]) == ["config.yaml"]
    assert config_files_of(["snakemake", "--configfile", "a.yaml", "b.yaml", "-n"]) == ["a.yaml", "b.yaml"]
    assert config_files_of(["snakemake", "--configfile=a.yaml", "--cores", "2"]) == ["a.yaml"]
    assert run_config_files([]) == ["config.yaml"]


def test_several_config_files_merge_like_snakemake(tmp_path):
    (tmp_path / "a.yaml").write_text(CONFIG)
    (tmp_path / "b.yaml").write_text("redblack:\n  basins: false\n" + OTHER)
    merged = load_config([tmp_path / "a.yaml", tmp_path / "b.yaml"])
    assert merged["redblack"]["basins"] is False and "exhaustive" in merged["redblack"]  # mappings merge
    assert [e["name"] for e in merged["narcotic"]["experiments"]] == ["other"]  # lists are replaced
    (tmp_path / "c.yaml").write_text("- a list\n")
    with pytest.raises(CardlabError, match="c.yaml"):
        load_config([tmp_path / "a.yaml", tmp_path / "c.yaml"])


@pytest.fixture(scope="module")
def other_run(tmp_path_factory) -> Path:
    """A run of OTHER via --configfile in a directory whose config.yaml plans much more."""
    wd = workdir(tmp_path_factory.mktemp("other") / "wd")
    (wd / "other.yaml").write_text(OTHER)
    for f in KEPT:
        (wd / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, wd / f)
    # the warehouse target: every shard file and the catalog, which verify and clean read (not the reports)
    snakemake(wd, WAREHOUSE_RULE, "--cores", "2", "--quiet", "all", "--configfile", "other.yaml")
    return wd


def test_configfile_plans_only_the_given_file(other_run):
    dry = snakemake(other_run, "-n", "--configfile", "other.yaml", "-F")
    assert planned_stages(dry.stdout) == {
        "narcotic_shard",
        "warehouse",
        "narcotic_report_inputs",
        "narcotic_report",
        "report_index",
        "all",
    }
    # the terminal: one "Job stats" table, no hint at job blocks the profile hides
    out = dry.stdout + dry.stderr
    assert out.count("Job stats:") == 1 and "check individual jobs above" not in out, out
    # without --configfile, config.yaml is the config (RedBlack and Blackjack among its jobs)
    assert {"redblack_shard", "blackjack_shard"} <= planned_stages(snakemake(other_run, "-n").stdout)
    assert not (other_run / "results/blackjack").exists()


def test_verify_after_a_run_with_another_config_is_clean_and_lists_the_kept_files(other_run):
    res = cardlab_here(other_run, "verify", "--config", "other.yaml")
    assert res.returncode == 0, res.stdout + res.stderr
    kept = [ln for ln in res.stdout.splitlines() if ln.startswith("kept: ")]
    assert len(kept) == 1 and kept[0].startswith("kept: 3 campaign file(s)") and "exhaustive_k16/owner" in kept[0]
    assert "unexpected" not in res.stdout
    # the same tree against config.yaml: its shards are missing, so that is no clean bill
    assert cardlab_here(other_run, "verify").returncode == 1


def test_clean_lists_and_removes_what_no_plan_owns_never_a_kept_file(other_run, tmp_path):
    wd = tmp_path / "wd"
    shutil.copytree(other_run, wd, symlinks=True)
    shard = next((wd / "results/narcotic/narcotic_games/other").rglob("shard=0001.parquet"))
    orphan = shard.with_name("shard=0007.parquet")
    shutil.copy2(shard, orphan)  # as left by a larger shard count, then config put back
    log = Path(log_of_shard_file(orphan))
    log.write_text("old job log\n")
    assert cardlab_here(wd, "verify", "--config", "other.yaml").returncode == 1
    listed = cardlab_here(wd, "clean", "--config", "other.yaml")
    assert listed.returncode == 0 and orphan.exists(), listed.stdout + listed.stderr
    would = sorted(ln.split(": ", 1)[1] for ln in listed.stdout.splitlines() if ln.startswith("would remove: "))
    assert would == sorted([str(log.relative_to(wd)), str(orphan.relative_to(wd))])
    assert "left alone: 3 kept campaign file(s)" in listed.stdout
    removed = cardlab_here(wd, "clean", "--config", "other.yaml", "--remove")
    assert removed.returncode == 0 and "clean: removed 2 file(s)" in removed.stdout, removed.stdout
    assert not orphan.exists() and not log.exists() and all((wd / f).exists() for f in KEPT)
    assert cardlab_here(wd, "verify", "--config", "other.yaml").returncode == 0
    again = cardlab_here(wd, "clean", "--config", "other.yaml")
    assert "clean: nothing under results/" in again.stdout
