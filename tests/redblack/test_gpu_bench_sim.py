"""bench/redblack_gpu.py, the script a lent GPU runs, works end to end on numba-cuda's simulator.

A GPU session is short (minutes): a script that fails or silently computes nothing there wastes
it.  This runs the bench as the device script does, on tiny windows and a tiny grid, with
``--shards`` on a size other than 23 (it once computed k = 23's shards whatever --k said), in a
fresh directory, and checks the shards it writes against the CPU search.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from engines.redblack.exhaustive import search_range

ROOT = Path(__file__).resolve().parents[2]
K, PER_SHARD = 9, 300

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("numba_cuda") is None, reason="numba-cuda is not installed (pip install -e .[test])"
)


@pytest.fixture(scope="module")
def bench_run(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("gpu_bench")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": str(ROOT)}
    args = ["--no-cpu", "--k23-windows", "1", "--k23-window", "50", "--k26-windows", "1", "--k26-deals", "50"]
    args += ["--shards", "2", "--k", str(K), "--deals-per-shard", str(PER_SHARD), "--grid", "2,4", "--json", "g.json"]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "redblack_gpu.py"), *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (work / "stdout.txt").write_text(proc.stdout)
    return work


def test_the_shards_of_the_size_asked_are_computed_with_their_logs(bench_run):
    out = (bench_run / "stdout.txt").read_text()
    assert f"k = {K} shard 0 [0, {PER_SHARD:,}) on the GPU" in out and f"k = {K} shard 1 " in out
    record = json.loads((bench_run / "g.json").read_text())
    assert [(s["k"], s["shard"], s["ranks"]) for s in record["shards"]] == [
        (K, 0, [0, PER_SHARD]),
        (K, 1, [PER_SHARD, 2 * PER_SHARD]),
    ]
    for n in (0, 1):
        record = bench_run / f"results/timings/redblack/exhaustive_k{K:02d}/owner/shard={n:04d}.json"
        timing = json.loads(record.read_text())
        assert timing["state"] == "done" and "numba-cuda" in timing["machine"]


def test_the_shards_hold_the_cpu_searchs_counts(bench_run):
    for n in (0, 1):
        path = bench_run / f"results/redblack/redblack_counts/exhaustive_k{K:02d}/owner/shard={n:04d}.parquet"
        row = pq.read_table(path).to_pylist()[0]
        cpu = search_range(K, n * PER_SHARD, (n + 1) * PER_SHARD, method="owner")
        assert (row["deals"], row["finite"], row["stopped"], row["rounds"]) == (
            cpu.deals,
            cpu.finite,
            cpu.stopped,
            cpu.rounds,
        )
