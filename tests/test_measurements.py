"""Kept device measurements (engines/pipeline/measurements.py) load as rows, and a damaged one is named."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import duckdb
import pytest

from engines.core.errors import CardlabError
from engines.pipeline.measurements import measurements_table
from engines.redblack.report.gpu import gpu_section

ROOT = Path(__file__).resolve().parents[1]


def kept_record() -> dict:
    """A bench run's record, made by the bench's own converter from a raw run."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import redblack_gpu
    finally:
        sys.path.pop(0)
    raw = {
        "device": "NVIDIA X1 (gpu, numba-cuda)",
        "host": "a CPU",
        "measured_on": "2026-12-04",
        "method": "owner",
        "checks": [{"identical": True}, {"identical": True}],
        "compare": {"k = 23": {"windows": 2, "deals": 1000, "rounds": 30000, "gpu_s": 0.5, "cpu_s": 10.0}},
        "full_deck": {"windows": 4, "window": 100, "gpu_s": 2.0, "deals": 400, "rounds": 1, "gpu_hours": 7.0,
                      "gpu_hours_95": [6.0, 8.0]},
    }  # fmt: skip
    return redblack_gpu.kept_record(raw)


def test_a_kept_measurement_loads_one_row_per_figure_and_reaches_the_report(tmp_path):
    where = tmp_path / "measurements" / "redblack"
    where.mkdir(parents=True)
    (where / "gpu-x1.json").write_text(json.dumps(kept_record()))
    table = measurements_table(tmp_path)
    rows = {r["metric"]: r for r in table.to_pylist()}
    assert rows["full_deck_gpu_hours"]["value"] == 7.0 and rows["full_deck_gpu_hours"]["high"] == 8.0
    assert rows["k23_windows_gpu_deals_per_s"]["value"] == 2000.0
    assert rows["k23_windows_cpu_core_deals_per_s"]["value"] == 100.0
    assert {r["game"] for r in rows.values()} == {"redblack"} and rows["checks_identical"]["value"] == 2
    con = duckdb.connect()
    con.register("measurements", table)
    con.execute(
        "CREATE TABLE shard_timings AS SELECT 'redblack' AS game, 'exhaustive_k23' AS experiment, 3 AS shard, "
        "1000 AS work, 2.0 AS wall_s, 'NVIDIA X1 (gpu, numba-cuda)' AS machine"
    )
    text = "\n".join(gpu_section(con))
    assert "about 7.00 GPU-hours** (95 % interval 6.00–8.00)" in text
    assert "| 2,000 | 100 | 20.0× |" in text
    assert "1 shard (3..3, 1,000 deals) computed on NVIDIA X1" in text


def test_no_measurement_no_gpu_section(tmp_path):
    con = duckdb.connect()
    con.register("measurements", measurements_table(tmp_path))
    con.execute(
        "CREATE TABLE shard_timings (game TEXT, experiment TEXT, shard INT, work BIGINT, wall_s DOUBLE, machine TEXT)"
    )
    assert gpu_section(con) == []


def test_a_damaged_measurement_is_named(tmp_path):
    where = tmp_path / "measurements" / "redblack"
    where.mkdir(parents=True)
    (where / "bad.json").write_text('{"bench": "b", "device": "d"}')
    with pytest.raises(CardlabError, match=r"bad\.json: not a measurement record.*restore the file from git"):
        measurements_table(tmp_path)


def test_the_kept_measurements_in_the_repository_load():
    table = measurements_table(ROOT / "results")
    assert table.num_rows > 0 and "full_deck_gpu_hours" in table.column("metric").to_pylist()
