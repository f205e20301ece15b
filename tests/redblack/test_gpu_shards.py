"""A block's ``backend`` reaches the shard job, and never changes a plan, a file or a result version.

The shard step reads the backend from the run's config at run time (engines/pipeline/snakemake/steps.py),
not from a rule parameter, so switching a campaign between CPU and GPU reruns nothing; a GPU
shard's files are the CPU's bytes, and its timing record names the GPU (so CPU cost models never
pool it with a CPU kind).  The GPU runs on numba-cuda's simulator, in a subprocess.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engines.core.errors import CardlabError
from engines.pipeline.planning.plan import Plan
from engines.pipeline.snakemake.steps import backend_of
from engines.redblack.campaign.next import CampaignRun, run_config
from engines.redblack.kinds.search import ExhaustiveSearch

ROOT = Path(__file__).resolve().parents[2]
needs_numba_cuda = pytest.mark.skipif(
    importlib.util.find_spec("numba_cuda") is None, reason="numba-cuda is not installed (pip install -e .[test])"
)


def config_with(backend: str | None) -> dict:
    block = {"k": [5, 6], "method": "owner", "deals_per_shard": 100}
    if backend:
        block["backend"] = backend
    return {"redblack": {"exhaustive": [block]}}


def test_a_blocks_backend_reaches_its_shards_and_only_them():
    config = config_with("gpu")
    spec = ExhaustiveSearch().spec(5, "owner", 0, 0, 100) | {"kind": "exhaustive"}
    assert backend_of(config, "redblack", spec) == "gpu"
    assert backend_of(config_with(None), "redblack", spec) == "scalar"
    other = ExhaustiveSearch().spec(7, "owner", 0, 0, 100) | {"kind": "exhaustive"}
    assert backend_of(config, "redblack", other) == "scalar"  # no block plans k = 7


def test_switching_the_backend_changes_no_planned_shard():
    """Nothing Snakemake compares (the specs, files, versions) depends on the backend."""
    plans = [Plan.build(config_with(b), "test") for b in (None, "scalar", "gpu")]
    shards = [[(s.spec, s.files, s.version) for s in p.shards["redblack"]] for p in plans]
    assert shards[0] and shards[0] == shards[1] == shards[2]


def test_an_unknown_backend_is_named_in_one_line():
    with pytest.raises(CardlabError, match=r"backend.*'tpu'.*known: scalar, gpu"):
        Plan.build(config_with("tpu"), "test")


def test_a_campaign_run_config_carries_the_backend_chosen():
    config = {"redblack": {"exhaustive": [{"k": [23], "method": "owner", "campaign": True}]}}
    run = CampaignRun(23, "owner", 10**6, [3, 4], 10**8)
    block = run_config(copy.deepcopy(config), run, "test", "gpu")["redblack"]["exhaustive"][0]
    assert block["backend"] == "gpu" and block["ranks"] == [[3 * 10**6, 5 * 10**6]] and "campaign" not in block
    plain = run_config(copy.deepcopy(config), run, "test")["redblack"]["exhaustive"][0]
    assert "backend" not in plain


def test_campaign_backend_without_run_is_refused(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "engines.cli", "redblack", "campaign", "23", "--backend", "gpu"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode != 0 and "--backend chooses how --run computes shards" in out.stderr


SCRIPT = textwrap.dedent(
    """
    import json, sys
    from engines.pipeline.compute.jobs import run_shard
    from engines.pipeline.bookkeeping.records import timing_of_log as read_timing
    from engines.redblack.kinds.search import ExhaustiveSearch
    from engines.redblack.tables import SEARCH_TABLES

    out = sys.argv[1]
    kind = ExhaustiveSearch("redblack")
    spec = kind.spec(6, "owner", 0, 100, 400)
    machines = {}
    for backend in ("gpu", "scalar"):
        files = {t: f"{out}/{backend}/{t}.parquet" for t in SEARCH_TABLES}
        run_shard("redblack", spec, files, log=f"{out}/{backend}.log", backend=backend)
        machines[backend] = read_timing(f"{out}/{backend}.log")["machine"]
    print(json.dumps(machines))
    """
)


@needs_numba_cuda
def test_a_gpu_shard_is_the_cpu_shards_bytes_and_its_timing_names_the_gpu(tmp_path):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    machines = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "gpu" in machines["gpu"] and "gpu" not in machines["scalar"]
    for table in ("redblack_counts", "redblack_hist", "redblack_found"):
        gpu_bytes = (tmp_path / "gpu" / f"{table}.parquet").read_bytes()
        assert gpu_bytes == (tmp_path / "scalar" / f"{table}.parquet").read_bytes(), table
