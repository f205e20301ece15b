"""A run about to recompute more than a core-hour of shards that only a campaign's ledger plans asks first
(engines/pipeline/commands/campaign_work.py): `cardlab run` y/N on a terminal, else --allow-campaign-work;
snakemake --config allow_campaign_work=True; the default config needs no leave."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from wfhelp import ROOT, SNAKEMAKE, workdir

from engines.campaign.state import CampaignState
from engines.core.errors import CardlabError
from engines.core.layout import ledger_path
from engines.pipeline.commands.campaign_work import (
    LIMIT_CPU_S,
    campaign_work,
    check_snakemake_run,
    leave_for_run,
    with_leave,
)
from engines.pipeline.planning.plan import Plan, load_plan
from engines.redblack.campaign.next import campaign_of, plan_run, run_config
from engines.redblack.tables import SEARCH_TABLES

K, D = 24, 50_000_000_000
TIMINGS = f"results/timings/redblack/exhaustive_k{K}/owner"
CONFIG = f"""redblack:
  exhaustive:
    - k: [{K}]
      method: owner
      campaign: true
      deals_per_shard: {D}
  basins: false
"""


def outside_kept(directory: str, names: list[str]) -> list[str]:
    """copytree's ignore: shards other than 311..322 (the repository keeps more as the campaign goes on)."""
    return [n for n in names if n.startswith("shard=") and not 311 <= int(n[6:10]) <= 322]


def tree(root: Path, shards: list[list[int]]) -> Path:
    """A workflow directory with the kept k = 24 shards (311..322) and a ledger claiming ``shards``."""
    workdir(root, CONFIG)
    for part in [f"redblack/{table}" for table in SEARCH_TABLES] + ["timings/redblack"]:  # the shards, their timings
        shutil.copytree(
            ROOT / f"results/{part}/exhaustive_k{K}", root / f"results/{part}/exhaustive_k{K}", ignore=outside_kept
        )
    path = root / ledger_path("redblack", f"exhaustive_k{K}", "owner")
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"game": "redblack", "experiment": f"exhaustive_k{K}", "variant": "owner", "per_shard": D}
    path.write_text(json.dumps({**record, "shards": shards}))
    return root


def plan_of(root: Path, **over) -> Plan:
    return Plan.build({**yaml.safe_load(CONFIG), **over}, "config.yaml", results=str(root / "results"))


def test_a_ledger_of_unfinished_shards_is_priced_as_campaign_work(tmp_path):
    work = campaign_work(plan_of(tree(tmp_path, [[0, 322]])))
    assert sorted(s.shard for s in work.shards) == list(range(311))
    assert work.too_much and work.cpu_s > 50 * 3600  # at the measured rate of the kept shards, the cheapest
    assert "311 campaign shards that no command asked for" in work.summary()
    assert "redblack exhaustive_k24/owner shards 0..310" in work.summary()
    with pytest.raises(CardlabError, match="--config allow_campaign_work=True") as caught:
        check_snakemake_run(plan_of(tmp_path))
    ledger = ledger_path("redblack", f"exhaustive_k{K}", "owner", str(tmp_path / "results"))
    assert f"rm {ledger} && cardlab redblack campaign 24 --results {tmp_path / 'results'} --keep" in str(caught.value)
    check_snakemake_run(plan_of(tmp_path, allow_campaign_work=True))  # leave given


def test_kept_shards_all_present_need_no_leave(tmp_path):
    work = campaign_work(plan_of(tree(tmp_path, [[311, 322]])))
    assert work.shards == () and not work.too_much
    check_snakemake_run(plan_of(tmp_path))
    (tmp_path / f"results/redblack/redblack_found/exhaustive_k{K}/owner/shard=0312.parquet").unlink()
    work = campaign_work(plan_of(tmp_path))  # one shard lost: recomputed unasked (under a core-hour)
    assert [s.shard for s in work.shards] == [312] and work.cpu_s < LIMIT_CPU_S and not work.too_much


def test_the_live_views_prices_say_what_the_work_costs(tmp_path):
    """The default config's k = 24 ledger claiming every shard: priced as the live view prices work left, by the
    kept shards' timing records along k = 23's measured cost shape (its low ranks dearer): near the kept
    shards' mean CPU a shard, far below the kind's untimed estimate (hours a shard)."""
    shutil.copytree(ROOT / "results", tmp_path / "results", ignore=shutil.ignore_patterns("*.duckdb*"))
    path = Path(ledger_path("redblack", f"exhaustive_k{K}", "owner", str(tmp_path / "results")))
    first = json.loads(path.read_text())["shards"][0][0]  # the repository keeps first..322
    path.write_text(re.sub(r'"shards": \[\[\d+, 322\]\]', '"shards": [[0, 322]]', path.read_text()))
    kept = [json.loads(f.read_text())["cpu_s"] for f in (tmp_path / TIMINGS).glob("shard=*.json")]
    work = campaign_work(load_plan([str(ROOT / "config.yaml")], str(tmp_path / "results")))
    per_shard = work.cpu_s / len(work.shards) / (sum(kept) / len(kept))
    assert len(work.shards) == first and 0.5 < per_shard < 3, per_shard


def test_the_default_config_needs_no_leave():
    plan = load_plan([str(ROOT / "config.yaml")], str(ROOT / "results"))
    work = campaign_work(plan)
    assert not work.too_much, work.summary()
    check_snakemake_run(plan)


def test_cardlab_run_asks_on_a_terminal_and_needs_the_flag_without_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tree(tmp_path, [[0, 322]]))
    cmd = ["snakemake", "--cores", "2"]
    with pytest.raises(CardlabError, match="give --allow-campaign-work .no terminal to ask on"):
        leave_for_run(cmd, ["config.yaml"], allow=False, interactive=False)
    assert leave_for_run(cmd, ["config.yaml"], allow=True, interactive=False) == [
        *cmd,
        "--config",
        "allow_campaign_work=True",
    ]
    asked = []
    yes = leave_for_run(cmd, ["config.yaml"], False, True, ask=lambda q: asked.append(q) or "y")
    assert yes[-2:] == ["--config", "allow_campaign_work=True"] and "[y/N]" in asked[0]
    for answer in ("", "n", "no", "maybe"):
        with pytest.raises(CardlabError, match="nothing started"):
            leave_for_run(cmd, ["config.yaml"], False, True, ask=lambda q, a=answer: a)
    given = [*cmd, "--config", "allow_campaign_work=True"]
    assert leave_for_run(given, ["config.yaml"], False, False) == given  # snakemake's own leave
    assert with_leave(["snakemake", "--config", "a=1"]) == ["snakemake", "--config", "allow_campaign_work=True", "a=1"]


def test_cardlab_run_and_snakemake_refuse_without_a_terminal_and_start_nothing(tmp_path):
    wd = tree(tmp_path / "wd", [[0, 322]])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "engines.cli", "run", "--cores", "1"], cwd=wd, capture_output=True, text=True, env=env
    )
    assert run.returncode == 1, run.stdout + run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert "this run would compute 311 campaign shards that no command asked for" in line
    assert "give --allow-campaign-work" in line
    assert not (wd / ".snakemake").exists()  # snakemake never started
    smk = subprocess.run([SNAKEMAKE, "--cores", "1"], cwd=wd, capture_output=True, text=True, env=env, timeout=300)
    assert smk.returncode == 1
    assert "error: this run would compute 311 campaign shards" in smk.stderr
    assert "add --config allow_campaign_work=True" in smk.stderr
    records = {p.name for p in (wd / f"results/timings/redblack/exhaustive_k{K}").rglob("*.json")}
    assert records == {f"shard={n:04d}.json" for n in range(311, 323)}  # no job started: the kept ones only
    assert not (wd / "results/logs/redblack").exists()
    dry = subprocess.run([SNAKEMAKE, "-n", "--cores", "1"], cwd=wd, capture_output=True, text=True, env=env)
    assert dry.returncode == 0, dry.stderr  # a dry run only says what a run would do


def test_the_campaign_commands_own_run_gives_leave():
    state = CampaignState(campaign_of(K), [])
    run = plan_run(state, yaml.safe_load(CONFIG), 2)
    assert run_config(yaml.safe_load(CONFIG), run, "config.yaml")["allow_campaign_work"] is True
