"""A small finished results tree and the ways a bookkeeping file is damaged (tests/test_bookkeeping_files.py,
tests/test_fuzz_files.py)."""

from __future__ import annotations

import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from engines.cli import main
from engines.core.layout import WAREHOUSE, check_record_path, manifest_of, measurement_path
from engines.pipeline.catalog.warehouse import build
from engines.pipeline.compute.jobs import run_shard
from engines.pipeline.planning.plan import load_plan

SMALL = """
redblack:
  exhaustive: {k_min: 1, k_max: 3, deals_per_shard: 100, method: owner}
"""
KEPT = "results/redblack/redblack_counts/exhaustive_k02/owner/shard=0000.parquet"
TIMING = "results/timings/redblack/exhaustive_k02/owner/shard=0000.json"
CHECKS = check_record_path("redblack", "exhaustive_k02", "owner")
MEASUREMENT = measurement_path("redblack", "gpu-test")
GOOD_CHECK = {
    "shard": 0,
    "matched": True,
    "engine_version": "v",
    "date": "2026-12-01",
    "machine": "CPU",
    "cpu_s": 1.5,
}
GOOD_MEASUREMENT = {
    "bench": "bench/x.py",
    "device": "GPU",
    "host": "CPU",
    "measured_on": "2026-12-04",
    "metrics": [{"metric": "m", "value": 2.0, "low": None, "high": None, "unit": "u", "detail": "d"}],
}


@contextmanager
def inside(path: Path):
    before = os.getcwd()
    os.chdir(path)
    try:
        yield path
    finally:
        os.chdir(before)


def make_tree(where: Path) -> Path:
    """The shards of SMALL computed with their timing records, a check record line and a kept measurement."""
    where.mkdir(parents=True, exist_ok=True)
    with inside(where):
        Path("config.yaml").write_text(SMALL)
        plan = load_plan("config.yaml")
        for s in plan:
            run_shard(s.game, dict(s.spec), s.files, inputs=plan.input_files(s), log=s.log)
        assert main(["verify", "--recompute", KEPT]) == 0  # a check record line bound to the kept files
        write(MEASUREMENT, json.dumps(GOOD_MEASUREMENT))
    return where


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def write(path: str | Path, text: str | bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        shutil.rmtree(path)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())


def folder(path: str | Path) -> None:
    """A folder in a file's place."""
    path = Path(path)
    path.unlink(missing_ok=True)
    (path / "inside").mkdir(parents=True)


def rebuild(log: Path | None = None) -> Path:
    """The warehouse of the tree in the cwd, built as the workflow's step builds it."""
    plan = load_plan("config.yaml")
    with open(log or os.devnull, "w") as out:
        return build(list(plan.files), WAREHOUSE, plan=plan.files, manifest=manifest_of(WAREHOUSE), log=out)
