"""Kept device measurements (engines/pipeline/catalog/measurements.py) load as rows, and a damaged one is named."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import duckdb
import pytest

from engines.pipeline.catalog.measurements import measurements_table
from engines.redblack.report.cost import NO_MISS, CostToFinish, Miss, Rate
from engines.redblack.report.gpu import GPU_SHARD_WORK_SQL, gpu_cost_model, gpu_section
from engines.report.common import records

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
    gpu_shards(con, [(3, 1000, 30_000, 2.0)])
    text = "\n".join(gpu_section(con, {}))
    assert "price the full deck at 7.00 GPU-hours (6.00–8.00)" in text
    assert "| 2,000 | 100 | 20.0× |" in text
    assert "exhaustive_k23, 1 shard (3..3, 1,000 deals) on NVIDIA X1" in text


def gpu_shards(con, shards: list[tuple[int, int, int, float]]) -> None:
    """k = 23 shards (shard, deals, rounds, wall seconds) computed on a GPU, and one size left, k = 26."""
    con.execute(
        "CREATE TABLE shard_timings (game TEXT, experiment TEXT, variant TEXT, shard INT, work BIGINT, "
        "wall_s DOUBLE, machine TEXT)"
    )
    con.execute(
        "CREATE TABLE redblack_counts (experiment TEXT, method TEXT, algorithm TEXT, k INT, shard INT, "
        "deals BIGINT, rounds BIGINT)"
    )
    for shard, deals, rounds, wall in shards:
        con.execute(
            "INSERT INTO shard_timings VALUES ('redblack', 'exhaustive_k23', 'owner', ?, ?, ?, "
            "'NVIDIA X1 (gpu, numba-cuda)')",
            [shard, deals, wall],
        )
        con.execute(
            "INSERT INTO redblack_counts VALUES ('exhaustive_k23', 'exhaustive', 'owner', 23, ?, ?, ?)",
            [shard, deals, rounds],
        )
    con.execute(
        "CREATE TABLE redblack_coverage AS SELECT 26 AS k, 3600 AS deals_left, 10.0 AS rounds_per_deal, "
        "false AS complete"
    )
    con.execute("CREATE TABLE redblack_window_cost AS SELECT 26 AS k, 10.0 AS rounds_per_deal")


def test_the_gpu_shards_price_the_sizes_left():
    """wall = 2 s a round + 5 s a deal, exactly: a deal of 10 rounds costs 25 s, 3,600 deals 25 hours."""
    con = duckdb.connect()
    con.register("measurements", measurements_table(Path("/nonexistent")))
    gpu_shards(con, [(0, 10, 100, 250.0), (1, 20, 100, 300.0), (2, 10, 300, 650.0)])
    assert gpu_cost_model(records(con, GPU_SHARD_WORK_SQL)) == pytest.approx((2.0, 5.0, 0.0), abs=1e-9)
    text = "\n".join(gpu_section(con, {}))
    assert "3 shards of k = 23 a GPU computed" in text and "k = 26 about 25.0 GPU-hours" in text


def test_the_gpu_cost_to_finish_is_the_reports_one_figure_in_gpu_hours():
    con = duckdb.connect()
    con.register("measurements", measurements_table(Path("/nonexistent")))
    gpu_shards(con, [(0, 10, 100, 250.0)])
    miss = Miss(2.0, 1.5, 3.0, "the campaigns of k = 23 on that machine")
    cost = CostToFinish(26, "NVIDIA X1 (gpu, numba-cuda)", "a CPU", 3_600_000_000_000, Rate(4, 1e-9, 0.0, 2.0), miss)
    cpu = CostToFinish(26, "a CPU", "a CPU", 3_600_000_000_000, Rate(4, 1e-9, 0.0, 2.0), NO_MISS)
    text = "\n".join(gpu_section(con, {26: [cpu, cost]}))
    assert "- k = 26: about 2.00 GPU-hours (95 % interval 1.50–3.00) on NVIDIA X1 (gpu, numba-cuda)" in text
    assert "on a CPU" not in text  # a CPU's figure is the cost section's, not this one's


def test_no_measurement_no_gpu_section(tmp_path):
    con = duckdb.connect()
    con.register("measurements", measurements_table(tmp_path))
    gpu_shards(con, [])
    assert gpu_section(con, {}) == []


def test_a_damaged_measurement_is_left_out_and_named_with_its_fix(tmp_path):
    """A bookkeeping file never stops the warehouse: it is left out, and verify names it."""
    from engines.core.bookkeeping import left_out

    where = tmp_path / "measurements" / "redblack"
    where.mkdir(parents=True)
    (where / "bad.json").write_text('{"bench": "b", "device": "d"}')
    assert measurements_table(tmp_path).num_rows == 0
    [bad] = left_out(tmp_path)
    assert bad.path.endswith("bad.json")
    assert "'host' is a required property" in bad.problem and "git checkout" in bad.fix


def test_the_kept_measurements_in_the_repository_load():
    table = measurements_table(ROOT / "results")
    assert table.num_rows > 0 and "full_deck_gpu_hours" in table.column("metric").to_pylist()


def test_the_gpu_projection_prices_the_ranks_left_by_their_windows_not_the_ranks_searched():
    """A campaign from the top searches the cheapest ranks first (k = 24's shard 322: 9.3 rounds a deal against
    the windows' 29.3): the projection of the rest takes the windows that lie in the ranks left."""
    from engines.redblack.report.gpu import SIZES_LEFT_SQL

    con = duckdb.connect()
    con.execute(
        "CREATE VIEW redblack_coverage AS SELECT * FROM (VALUES (24, 1000, 9.25, false), (26, 5000, 29.9, false),"
        " (25, 800, 12.0, false), (23, 0, 25.4, true)) t(k, deals_left, rounds_per_deal, complete)"
    )
    con.execute(
        "CREATE VIEW redblack_window_cost AS SELECT * FROM (VALUES (24, 29.27), (26, 30.1)) t(k, rounds_per_deal)"
    )
    rows = {r["k"]: float(r["rounds_per_deal"]) for r in records(con, SIZES_LEFT_SQL)}
    assert rows == {24: 29.27, 25: 12.0, 26: 30.1}  # no windows for 25: the coverage's figure; 23 is complete
