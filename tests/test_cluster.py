"""Cluster: the same workflow through Snakemake's cluster-generic executor plugin, each
job a separate process started by a stand-in scheduler (sharing only files), gives the
bytes of a local run; every rule declares its resources; numba follows `threads`."""

from __future__ import annotations

import re

import numba
import pytest
import yaml
from wfhelp import CONFIG, ROOT, WAREHOUSE_RULE, cardlab_here, digests, job_logs, reference, snakemake, workdir

from engines.core.threads import set_threads

# A part of the reference campaign (same specs, so the same bytes are expected):
# every narcotic shard, redblack k = 1..3 with 2 threads per job, blackjack exact + one simulation.
CLUSTER_CONFIG = """
narcotic:
  experiments:
    - {name: seed, rules: seed, games: 4000, shards: 4, seed: 11}
redblack:
  exhaustive: {k_min: 1, k_max: 3, deals_per_shard: 1000, threads: 2}
  basins: false
blackjack:
  exact: {decks: [1, inf], soft17: [stand], peek: ["no"]}
  experiments:
    - {name: fresh2, shoe: fresh, decks: 2, hands_per_upcard: 3000, shards: 2, seed: 4}
"""


def test_cluster_generic_run_equals_local_run(tmp_path):
    assert "cont1" in CONFIG  # its exact variant (1 deck) is listed here, so the exact shard is the same
    local = reference(cores=2)
    wd = workdir(tmp_path / "cluster", CLUSTER_CONFIG)
    out = snakemake(wd, "--workflow-profile", "workflow/profiles/local-cluster", WAREHOUSE_RULE)
    submitted = re.findall(r"external jobid '(local-[\d-]+)'", out.stdout + out.stderr)
    ran = digests(wd)
    # shard jobs (small shards of one experiment share a batch job: narcotic's 4, the 3 small RedBlack
    # sizes, Blackjack's 2 simulation shards; its configured exact tables and the exact table of fresh2's
    # variant outside them, a job each: 5 jobs for the 11 shards) + the warehouse
    assert len(submitted) == cluster_jobs(CLUSTER_CONFIG) + 1 == 5 + 1, out.stderr[-2000:]
    # each job ran as its own process, through the scheduler's log, with a scrubbed environment
    sched_logs = sorted((wd / ".snakemake" / "local-cluster").glob("*.log"))
    assert len(sched_logs) == len(submitted)
    assert len(ran) >= 15
    assert {k: local.get(k) for k in ran} == ran, "cluster and local bytes differ"
    # threads: the redblack jobs asked for 2 and numba used min(2, the node's cores)
    logs = [log for log in job_logs(wd, "redblack") if "exhaustive_k" in log]
    want = str(min(2, numba.config.NUMBA_NUM_THREADS))
    assert logs and {ln.rsplit(" ", 1)[1] for log in logs for ln in log.splitlines() if "numba threads" in ln} == {want}
    # the warehouse built on the "cluster" passes verify
    v = cardlab_here(wd, "verify")
    assert v.returncode == 0, v.stdout + v.stderr


def cluster_jobs(config: str) -> int:
    """The shard jobs a config makes: its batch jobs and the shards in none."""
    from engines.pipeline.planning.batches import plan_batches
    from engines.pipeline.planning.plan import validate_config
    from engines.registry import engine

    jobs = 0
    for game, section in validate_config(yaml.safe_load(config), "config").items():
        plan = engine(game).plan(section)
        batches = plan_batches(engine(game), section, plan)
        jobs += len(batches) + len(plan) - sum(len(b.specs) for b in batches)
    return jobs


def smk_rules() -> dict[str, str]:
    """rule name -> its text, for every rule in the Snakefile and workflow/rules/*.smk.

    Rules made in a loop from the registry (``rule:`` with a ``name:`` directive) are
    keyed by their name expression, e.g. ``f"{_game}_{_stage}"``."""
    rules = {}
    for path in [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]:
        text = path.read_text()
        for m in re.finditer(r"^([ \t]*)rule ?(\w*):\n((?:\1[ \t]+.*\n|[ \t]*\n)*)", text, re.M):
            name = m.group(2) or re.search(r"name:\s*\n\s*(\S+)", m.group(3)).group(1)
            rules[name] = m.group(3)
    return rules


RULES = smk_rules()


@pytest.mark.parametrize("rule", sorted(r for r in RULES if r != "all"))
def test_every_rule_declares_runtime_mem_and_threads(rule):
    body = RULES[rule]
    assert re.search(r"^\s+resources:\s*\n(\s+\w+=.*\n)*?\s+runtime=", body + "\n", re.M), f"{rule}: no runtime"
    assert re.search(r"^\s+mem_mb=", body, re.M), f"{rule}: no mem_mb"
    assert re.search(r"^\s+threads:", body, re.M), f"{rule}: no threads"
    assert re.search(r"^\s+log:", body, re.M), f"{rule}: no log"


def test_rules_found(tmp_path):
    assert {'f"{_game}_{_stage}"', 'f"{_game}_report"', "warehouse", "report_index"} <= set(RULES)
    listed = snakemake(workdir(tmp_path / "wd", CONFIG), "--list-rules").stdout.split()
    assert {
        "narcotic_shard",
        "redblack_shard",
        "redblack_basin",
        "blackjack_shard",
        "warehouse",
        "narcotic_report",
        "redblack_report",
        "blackjack_report",
        "report_index",
    } <= set(listed)


def test_no_absolute_paths_in_the_workflow():
    files = [ROOT / "Snakefile", *(ROOT / "workflow").rglob("*.smk"), *(ROOT / "workflow" / "profiles").rglob("*.yaml")]
    for path in files:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            assert not re.search(r"""["'\s=:]/(?!/)\w""", code), f"{path.relative_to(ROOT)}:{n}: {line.strip()}"


def test_slurm_profile_sets_the_executor_and_resources():
    import yaml

    prof = yaml.safe_load((ROOT / "workflow" / "profiles" / "slurm" / "config.v8+.yaml").read_text())
    assert prof["executor"] == "slurm"
    assert {"runtime", "mem_mb"} <= set(prof["default-resources"])
    assert prof["jobs"] >= 1 and prof["latency-wait"] >= 10
    # squeue works with and without accounting and reports `scancel` as CANCELLED (docs/scaling.md);
    # the plugin keeps squeue only while MinJobAge (SLURM's default 300 s) >= 3 x the first check delay
    assert prof["slurm-status-command"] == "squeue"
    assert 3 * prof["slurm-init-seconds-before-status-checks"] <= 300
    assert prof["retries"] >= 1


@numba.njit(parallel=True)
def _threads_in_parallel_region(n: int) -> int:
    out = 0
    for _ in numba.prange(n):
        out = max(out, numba.get_num_threads())
    return out


def test_set_threads_limits_numba():
    """A job's `threads` bound numba's parallel regions (never more than numba's pool)."""
    before = numba.get_num_threads()
    try:
        assert set_threads(1) == 1 and _threads_in_parallel_region(8) == 1
        top = numba.config.NUMBA_NUM_THREADS
        assert set_threads(10_000) == top and _threads_in_parallel_region(8) == top
        assert set_threads(0) == 1
    finally:
        numba.set_num_threads(before)
