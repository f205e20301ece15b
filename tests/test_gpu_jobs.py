"""GPU shards through the workflow: each asks its scheduler for a GPU, and computes on the one it gets.

A shard its config computes on the gpu backend declares ``gpu=1`` in its rule's resources (the SLURM
plugin's ``--gpus=1``; a local ``--resources gpu=N`` runs at most N at once), every other shard
``gpu=0``.  A local job claims a free device of the machine (engines/pipeline/compute/devices.py) and
its timing record names it.  The GPU is numba-cuda's simulator; ``CUDA_VISIBLE_DEVICES=0,1`` stands
for a machine with two GPUs.  The run is held at an exact point by tests/barrier.py, never by time.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from barrier import DEADLINE_S, Barrier
from wfhelp import WAREHOUSE_RULE, digests, kill_group, snakemake, start, workdir

needs_numba_cuda = pytest.mark.skipif(
    importlib.util.find_spec("numba_cuda") is None, reason="numba-cuda is not installed (pip install -e .[test])"
)

# k = 6 in five shards on the GPU, k = 5 in one on the CPU; every shard a job of its own
MIXED = """
batch_cpu_s: 0
redblack:
  exhaustive:
    - {k: [6], method: owner, deals_per_shard: 100, backend: gpu}
    - {k: [5], method: owner, deals_per_shard: 1000}
  basins: false
"""
GPU_ONLY = """
batch_cpu_s: 0
redblack:
  exhaustive: {k: [6], method: owner, deals_per_shard: 100, backend: BACKEND}
  basins: false
"""
SIMULATOR = {"NUMBA_ENABLE_CUDASIM": "1", "CUDA_VISIBLE_DEVICES": "0,1"}


def records(wd: Path) -> dict[str, dict]:
    """The k = 6 shards' timing records, by file name."""
    folder = wd / "results/timings/redblack/exhaustive_k06/owner"
    return {p.name: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))} if folder.is_dir() else {}


def test_gpu_shards_ask_for_one_gpu_and_cpu_shards_for_none(tmp_path):
    wd = workdir(tmp_path / "wd", MIXED)
    out = snakemake(wd, WAREHOUSE_RULE, "-n", "--cores", "2", "--quiet", "host").stdout
    asked = re.findall(r"wildcards: experiment=(exhaustive_k0\d), variant=owner, shard=\d+\n\s+resources: (.*)", out)
    gpus = sorted((exp, re.search(r"\bgpu=(\d+)", res).group(1)) for exp, res in asked)
    assert gpus == [("exhaustive_k05", "0")] + [("exhaustive_k06", "1")] * 5, out[-3000:]


@needs_numba_cuda
def test_a_local_run_with_two_gpus_runs_two_gpu_shards_at_once_each_on_its_own_device(tmp_path):
    wd = workdir(tmp_path / "gpu", GPU_ONLY.replace("BACKEND", "gpu"))
    held = Barrier(tmp_path / "barrier", ".parquet")  # every shard's first table waits before its rename
    run = start(wd, WAREHOUSE_RULE, "--cores", "4", "--resources", "gpu=2", env_extra={**held.env(), **SIMULATOR})
    try:
        held.wait_reached(run, held=2)  # the event: two shard jobs hold there
        during = records(wd)
        # two jobs, on two devices; four cores, but the third GPU shard waits for a GPU
        assert len(during) == 2 and {r["state"] for r in during.values()} == {"running"}, during
        assert sorted(r["device_id"] for r in during.values()) == ["0", "1"], during
        held.release()
        assert run.wait(timeout=DEADLINE_S) == 0
    finally:  # whatever failed: the held jobs go, and the whole run (its jobs too) is gone
        held.release()
        if run.poll() is None:
            kill_group(run)
        held.close()
    after = records(wd)
    assert len(after) == 5 and {r["state"] for r in after.values()} == {"done"}
    assert {r["device_id"] for r in after.values()} == {"0", "1"}
    assert all("(gpu" in r["machine"] and r["device"] == r["machine"] for r in after.values())
    for name in during:  # each held job finished on the device it had claimed
        assert after[name]["device_id"] == during[name]["device_id"]
    cpu = workdir(tmp_path / "cpu", GPU_ONLY.replace("BACKEND", "scalar"))
    snakemake(cpu, WAREHOUSE_RULE, "--cores", "2")
    assert digests(wd) == digests(cpu)  # a backend never changes a byte
    assert all(r["device_id"] is None for r in records(cpu).values())
