"""Small shards share a job (engines/pipeline/planning/batches.py): which shards, how many, and that
the files are the same bytes however shards are grouped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from wfhelp import ROOT, WAREHOUSE_RULE, cardlab_here, digests, planned_jobs, snakemake, workdir

from engines.core.errors import CardlabError
from engines.core.layout import shard_path
from engines.core.prices import kind_price
from engines.pipeline.planning.batches import BATCH_CPU_S, SMALL_SHARD_CPU_S, batch_limit, plan_batches
from engines.pipeline.planning.plan import validate_config
from engines.registry import GAMES, engine

DEFAULT = validate_config(yaml.safe_load((ROOT / "config.yaml").read_text()), "config.yaml")


def _name(spec) -> tuple:
    return spec["experiment"], spec["variant"], int(spec["shard"])


@pytest.mark.parametrize("game", GAMES)
def test_default_batches_cover_each_small_shard_once_within_the_limit(game):
    eng, plan = engine(game), engine(game).plan(DEFAULT[game])
    batches = plan_batches(eng, DEFAULT[game], plan, BATCH_CPU_S)
    seen = [_name(s) for b in batches for s in b.specs]
    assert len(seen) == len(set(seen))
    assert set(seen) <= {_name(s) for s in plan}
    for b in batches:
        assert len(b.specs) >= 2 and b.game == game
        assert b.rule.startswith(f"{game}_{b.stage}_") and b.rule.endswith(f"_batch{b.index}")
        hints = [eng.kind_of(s).schedule(DEFAULT[game], s) for s in b.specs]
        assert {h.batch_group or s["experiment"] for h, s in zip(hints, b.specs)} == {b.group}  # one group a batch
        assert {eng.kind_of(s).stage for s in b.specs} == {b.stage}
        assert b.cpu_s <= BATCH_CPU_S or hints[0].batch_whole
        for h in hints:
            cost = h.batch_cpu_s
            assert cost is not None and cost <= SMALL_SHARD_CPU_S
    assert len({b.rule for b in batches}) == len(batches)
    for group in {b.group for b in batches}:
        indices = sorted(b.index for b in batches if b.group == group)
        assert indices == list(range(1, len(indices) + 1))
    # the same config makes the same jobs (Snakemake's params trigger compares them run to run)
    assert plan_batches(eng, DEFAULT[game], eng.plan(DEFAULT[game]), BATCH_CPU_S) == batches


def test_kept_campaigns_and_follow_up_jobs_are_never_batched():
    batched = {
        (g, _name(s))
        for g in GAMES
        for b in plan_batches(engine(g), DEFAULT[g], engine(g).plan(DEFAULT[g]))
        for s in b.specs
    }
    for game in GAMES:
        for spec in engine(game).plan(DEFAULT[game]):
            kept = spec["kind"] in ("tally", "exhaustive") and spec.get("method", "owner") != "brute"
            if kept or spec["kind"] in ("basin", "audit"):
                assert (game, _name(spec)) not in batched, spec


def tracked_results() -> set[str]:
    """The files under results/ that git tracks (the kept campaign files)."""
    out = subprocess.run(["git", "ls-files", "-z", "results"], cwd=ROOT, capture_output=True, check=True)
    return {p for p in out.stdout.decode().split("\0") if p}


def _kept(game: str, spec: dict, tracked: set[str]) -> bool:
    """git keeps the shard's files (a kept campaign shard: a cold run starts no job for it).  Whether the
    files merely exist would count a finished run's shards in a working tree as kept; outside a git
    checkout (nothing tracked) that is all there is to go by."""
    paths = [shard_path(game, t, spec) for t in engine(game).kind_of(spec).tables]
    if not tracked:
        return all((ROOT / p).exists() for p in paths)
    return all(p in tracked for p in paths)


def test_the_default_run_has_few_jobs(monkeypatch):
    """The point of batching: a cold run's start-up is paid per job (README: measured times).  Kept
    campaign shards, a number that grows with each session's campaign, start no job."""
    monkeypatch.chdir(ROOT)
    tracked = tracked_results()
    jobs = shards = 0
    for game in GAMES:
        eng, plan = engine(game), engine(game).plan(DEFAULT[game])
        batches = plan_batches(eng, DEFAULT[game], plan)
        in_batches = sum(len(b.specs) for b in batches)
        jobs += len(batches) + sum(1 for s in plan if not _kept(game, s, tracked)) - in_batches
        shards += sum(1 for s in plan if not _kept(game, s, tracked))
        assert in_batches > len(batches)
    # a cold run's hundreds of shards in about 20 jobs, one batch per experiment at least (117 jobs
    # when no small shards shared one)
    assert shards > 150 and jobs <= 22


def test_cost_windows_share_one_job_whole_or_not_at_all():
    eng = engine("redblack")
    section = {"cost_windows": {"k": 26, "windows": 8, "window": 1000, "seed": 1}, "basins": False}
    plan = eng.plan(section)
    (batch,) = plan_batches(eng, section, plan)
    windows = [_name(s) for s in plan if s["kind"] == "cost_window"]
    assert [_name(s) for s in batch.specs] == windows and len(windows) == 8 + 4  # the warm-up probe first
    assert batch.specs[0]["variant"] == "startup" and batch.specs[0]["shard"] == 0
    # windows too large for one batch: each window its own job again, with its probes
    window = (
        int(BATCH_CPU_S / kind_price("redblack/cost_window", "per_unit") / 8) + 1_000_000
    )  # 8 of them estimated past the limit
    big_section = {"cost_windows": {"k": 26, "windows": 8, "window": window, "seed": 1}, "basins": False}
    assert plan_batches(eng, big_section, eng.plan(big_section)) == []


def test_no_batches_at_limit_zero_and_a_bad_limit_is_named():
    eng = engine("narcotic")
    plan = eng.plan(DEFAULT["narcotic"])
    assert plan_batches(eng, DEFAULT["narcotic"], plan, 0) == []
    assert batch_limit({}) == BATCH_CPU_S and batch_limit({"batch_cpu_s": 5}) == 5.0
    with pytest.raises(CardlabError, match="batch_cpu_s"):
        batch_limit({"batch_cpu_s": -1})
    with pytest.raises(CardlabError, match="batch_cpu_s"):
        validate_config({"batch_cpu_s": "many", "narcotic": DEFAULT["narcotic"]}, "config.yaml")


CONFIG = """
narcotic:
  experiments:
    - {name: seed, rules: seed, games: 3000, shards: 3, seed: 11}
blackjack:
  exact: {decks: [1], soft17: [stand], peek: ["no"]}
  experiments:
    - {name: fresh2, shoe: fresh, decks: 2, hands_per_upcard: 2000, shards: 2, seed: 4}
"""


def test_batched_and_unbatched_runs_write_the_same_files(tmp_path: Path):
    """Grouping never changes a result: every shard is seeded and written on its own."""
    runs = {}
    for limit in (BATCH_CPU_S, 0):
        wd = workdir(tmp_path / f"limit{int(limit)}", CONFIG + f"batch_cpu_s: {limit}\n")
        # the warehouse target: every shard file, without the reports (they write no Parquet file);
        # the jobs counted from the "Job stats" table the run prints before its first job
        out = snakemake(wd, WAREHOUSE_RULE, "--cores", "2")
        jobs = planned_jobs(out.stdout + out.stderr)
        if limit:
            batched = {j: n for j, n in jobs.items() if j.endswith("_batch1")}
            assert sorted(j.split("_shard_")[0] for j in batched) == ["blackjack", "narcotic"], jobs
            assert set(batched.values()) == {1}
            # the exact tables: the configured variants' shard and fresh2's own variant's, each a job of its own
            assert "narcotic_shard" not in jobs and jobs["blackjack_shard"] == 2, jobs
        else:
            assert jobs["narcotic_shard"] == 3 and jobs["blackjack_shard"] == 4, jobs
            assert not [j for j in jobs if "_batch" in j], jobs
        runs[limit] = digests(wd)
        records = sorted((wd / "results/timings/narcotic/seed").rglob("shard=*.json"))
        assert len(records) == 3 and all(json.loads(p.read_text())["state"] == "done" for p in records)
    assert runs[BATCH_CPU_S] == runs[0] and len(runs[0]) >= 5


def test_a_failing_shard_of_a_batch_names_itself_in_its_own_log(tmp_path: Path, monkeypatch):
    from engines.pipeline.compute import jobs
    from engines.pipeline.snakemake import steps

    eng = engine("narcotic")
    specs = eng.plan({"experiments": [{"name": "seed", "rules": "seed", "games": 30, "shards": 3, "seed": 1}]})
    ran = []

    def run_shard(game, spec, outputs, threads=1, inputs=(), log=None, backend=None):
        ran.append(spec["shard"])
        if spec["shard"] == 1:
            raise CardlabError("the disk is full")

    monkeypatch.setattr(jobs, "run_shard", run_shard)
    # the step hides pandas from its process (engines.core.store.without_pandas): only for this test
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results/logs/narcotic/seed/deal.top-right.keep").mkdir(parents=True)

    class Smk:
        params = type("P", (), {"game": "narcotic", "specs": specs, "step": "batch"})
        threads = 1
        config: dict = {}  # the run's config: no backend chosen
        log = ["results/logs/narcotic/seed/deal.top-right.keep/shard=0000.log"]
        input = type("Input", (list,), {"items": lambda self: []})()  # Snakemake's named list, empty

    with pytest.raises(SystemExit) as exit_:
        steps.run(Smk)
    assert exit_.value.code == 1 and ran == [0, 1]  # shard 2 never starts
    failed = tmp_path / "results/logs/narcotic/seed/deal.top-right.keep/shard=0001.log"
    assert "error: the disk is full" in failed.read_text()
    assert not (tmp_path / Smk.log[0]).exists()  # the batch's first log is not blamed


EDITED = """
narcotic:
  experiments:
    - {name: seed, rules: seed, games: 3000, shards: 2, seed: 11}
blackjack:
  exact: {decks: [1], soft17: [stand], peek: ["no"]}
  experiments:
    - {name: a, shoe: fresh, decks: 2, soft17: stand, hands_per_upcard: 2000, shards: 2, seed: 4}
    - {name: b, shoe: fresh, decks: 1, soft17: stand, hands_per_upcard: 2000, shards: 2, seed: 5}
"""


def jobs_of(config_text: str) -> dict[str, list]:
    """Every job of a config: a batch's rule name -> its specs, and each other shard by its key -> its spec."""
    import yaml

    from engines.pipeline.planning.plan import Plan

    plan = Plan.build(yaml.safe_load(config_text), "config")
    jobs = {b.rule: list(b.specs) for batches in plan.batches.values() for b in batches}
    batched = {
        (b.game, s["experiment"], s["variant"], s["shard"]) for bs in plan.batches.values() for b in bs for s in b.specs
    }
    jobs |= {str(s.key): [dict(s.spec)] for s in plan if s.key not in batched}
    return jobs


def test_an_edit_of_one_experiment_leaves_every_other_jobs_rule_and_params():
    """b's rules edited: only b's jobs, and the exact table of b's new variant, differ; every other job
    (a's batch, the configured exact tables, Narcotic's) keeps its rule name and its specs."""
    before = jobs_of(EDITED)
    after = jobs_of(EDITED.replace("decks: 1, soft17: stand", "decks: 1, soft17: hit"))
    changed = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    assert changed and all("_b_" in name or "'b'" in name or "soft17=hit" in name for name in changed), changed
    assert any("blackjack_shard_a_" in name for name in before) and "('blackjack', 'exact', 'all', 0)" in before


def test_an_experiment_edited_and_the_edit_undone_reruns_no_shard(tmp_path: Path):
    """Editing one experiment reruns only its shards (and the exact table of its new variant, a shard of its
    own), and undoing the edit reruns none: the files of the config as it was are all there, and every job's
    params are as they were.  A Blackjack edit rebuilds the warehouse, Blackjack's report and the index,
    not the other games' reports.  The edited run's files are then unplanned, which verify lists without
    failing (the warehouse never loads them)."""
    wd = workdir(tmp_path / "wd", EDITED)
    snakemake(wd, "--cores", "2")
    edited = EDITED.replace("decks: 1, soft17: stand", "decks: 1, soft17: hit")
    (wd / "config.yaml").write_text(edited)
    dry = snakemake(wd, "-n", "--cores", "2")
    jobs = planned_jobs(dry.stdout + dry.stderr)
    shards = {j.split("_batch")[0][:17] for j in jobs if "_shard" in j}
    assert shards == {"blackjack_shard", "blackjack_shard_b"}, jobs  # nothing of a, exact 'all' or narcotic
    assert {j for j in jobs if "report" in j} == {"blackjack_report_inputs", "blackjack_report", "report_index"}, jobs
    snakemake(wd, "--cores", "2")
    (wd / "config.yaml").write_text(EDITED)
    dry = snakemake(wd, "-n", "--cores", "2")
    jobs = planned_jobs(dry.stdout + dry.stderr)
    assert not [j for j in jobs if "_shard" in j or j.startswith(("narcotic", "redblack"))], jobs
    assert "Params have changed" not in dry.stdout + dry.stderr
    snakemake(wd, "--cores", "2")
    assert "Nothing to be done" in (lambda r: r.stdout + r.stderr)(snakemake(wd, "-n"))
    res = cardlab_here(wd, "verify")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "unexpected:" in res.stdout and "unplanned file(s) left as they are" in res.stdout, res.stdout
