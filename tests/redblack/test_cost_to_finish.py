"""The one cost to finish per size and kind of CPU (engines/redblack/report/cost.py), on warehouses
with known answers: the windows in the ranks left, scaled by the misses campaigns measured."""

from __future__ import annotations

import math

import duckdb
import pytest

from engines.interface import views_sql
from engines.redblack.report.cost import NO_MISS, costs_to_finish, window_checks
from engines.registry import engine

WINDOWS_CPU = "Test CPU (x86_64, family 25, model 17)"
CAMPAIGN_CPU = "Test CPU (x86_64, family 26, model 2)"
GPU = "NVIDIA H200 (a GPU)"
T3 = 3.1824  # Student's t, 3 degrees of freedom


def warehouse(windows: list[tuple], shards: list[tuple], left: dict[int, int]) -> duckdb.DuckDBPyConnection:
    """What the cost reads: windows (k, start, cpu_s_per_deal, machine, campaign_searched), each 1,000
    ranks; campaign shards (k, start, stop, cpu_s, machine); the deals left per size."""
    con = duckdb.connect()
    for stmt in views_sql(engine("redblack")):
        if stmt.startswith("CREATE MACRO student_t95"):
            con.execute(stmt)
    con.execute(
        "CREATE TABLE redblack_cost_windows (k INT, draw INT, range_start HUGEINT, range_stop HUGEINT, "
        "cpu_s_per_deal DOUBLE, machine VARCHAR, campaign_searched BOOLEAN)"
    )
    con.executemany(
        "INSERT INTO redblack_cost_windows VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(k, i, start, start + 1000, c, m, s) for i, (k, start, c, m, s) in enumerate(windows)],
    )
    con.execute(
        "CREATE TABLE redblack_campaign_shards (k INT, range_start HUGEINT, range_stop HUGEINT, deals HUGEINT, "
        "cpu_s DOUBLE, machine VARCHAR)"
    )
    for k, a, b, c, m in shards:
        con.execute("INSERT INTO redblack_campaign_shards VALUES (?, ?, ?, ?, ?, ?)", [k, a, b, b - a, c, m])
    con.execute("CREATE TABLE redblack_coverage (k INT, deals_left HUGEINT, complete BOOLEAN)")
    con.executemany("INSERT INTO redblack_coverage VALUES (?, ?, false)", list(left.items()))
    return con


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and 95 % interval of four windows' costs (Student's t, 3 degrees of freedom)."""
    n = len(values)
    mean = sum(values) / n
    half = T3 * math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) / math.sqrt(n)
    return mean, mean - half, mean + half


# Four windows in the ranks left of k = 23 (100..400 ns a deal), four in the ranks its campaign's shard
# [0, 100,000) searched (10..13 ns a deal: low ranks looked cheap here), both timed on WINDOWS_CPU.
LEFT = [(23, 200_000 + 10_000 * i, c, WINDOWS_CPU, False) for i, c in enumerate((1e-7, 2e-7, 3e-7, 4e-7))]
SEARCHED = [(23, 10_000 * i, c, WINDOWS_CPU, True) for i, c in enumerate((10e-9, 11e-9, 12e-9, 13e-9))]


def test_windows_alone_price_their_own_kind_of_cpu_and_say_so():
    con = warehouse(LEFT, [], {23: 10**12})
    (cost,) = costs_to_finish(con)[23]
    mean, lo, hi = interval([1e-7, 2e-7, 3e-7, 4e-7])
    assert (cost.machine, cost.window_machine, cost.miss) == (WINDOWS_CPU, WINDOWS_CPU, NO_MISS)
    assert (cost.hours, cost.lo95, cost.hi95) == pytest.approx((1e12 * mean / 3600, 1e12 * lo / 3600, 1e12 * hi / 3600))


def test_a_campaign_on_another_kind_prices_the_rest_there_by_its_measured_miss():
    """The shard took 2.3 CPU-ms for 100,000 deals on CAMPAIGN_CPU where the windows in its ranks predict
    1.15 (11.5 ns a deal): a miss of 2, which prices the ranks left there; its range spans the check's
    own interval, and the windows' own kind still gets the windows alone."""
    con = warehouse(LEFT + SEARCHED, [(23, 0, 100_000, 2.3e-3, CAMPAIGN_CPU)], {23: 10**12})
    own, there = costs_to_finish(con)[23]
    assert (own.machine, own.miss) == (WINDOWS_CPU, NO_MISS)
    assert (there.machine, there.window_machine) == (CAMPAIGN_CPU, WINDOWS_CPU)
    in_mean, in_lo, in_hi = interval([10e-9, 11e-9, 12e-9, 13e-9])
    assert there.miss.factor == pytest.approx(2.3e-3 / (100_000 * in_mean)) == pytest.approx(2.0)
    assert (there.miss.lo, there.miss.hi) == pytest.approx((2.3e-3 / (100_000 * in_hi), 2.3e-3 / (100_000 * in_lo)))
    mean, lo, hi = interval([1e-7, 2e-7, 3e-7, 4e-7])
    expected = (mean * 2.0, lo * there.miss.lo, hi * there.miss.hi)
    assert (there.hours, there.lo95, there.hi95) == pytest.approx(tuple(1e12 * x / 3600 for x in expected))
    assert "k = 23's own campaign, 1 shard on that machine" in there.miss.basis
    # the same miss prices a size with no campaign of its own there, said to come from k = 23's
    con.execute(
        "INSERT INTO redblack_cost_windows SELECT 26, draw + 100, range_start, range_stop, "
        "cpu_s_per_deal * 10, machine, false FROM redblack_cost_windows WHERE NOT campaign_searched"
    )
    con.execute("INSERT INTO redblack_coverage VALUES (26, 10^14, false)")
    full = {c.machine: c for c in costs_to_finish(con)[26]}
    assert full[CAMPAIGN_CPU].miss.factor == pytest.approx(2.0)
    assert full[CAMPAIGN_CPU].miss.basis == "the campaigns of k = 23 on that machine"
    assert full[WINDOWS_CPU].miss is NO_MISS


def test_kinds_never_pool_and_a_check_that_bounds_nothing_prices_nothing():
    """A GPU's shards are a kind of their own: their miss prices the GPU alone, never CAMPAIGN_CPU's
    figure; two windows (Student's t = 12.7) leave the miss unbounded, so that kind gets no figure."""
    shards = [(23, 0, 100_000, 2.3e-3, CAMPAIGN_CPU), (23, 100_000, 200_000, 0.23e-3, GPU)]
    windows = LEFT + SEARCHED + [(23, 150_000, 6e-9, WINDOWS_CPU, True), (23, 160_000, 17e-9, WINDOWS_CPU, True)]
    con = warehouse(windows, shards, {23: 10**12})
    checks = {c.machine: c for c in window_checks(con)}
    assert checks[GPU].rate.windows == 2 and not checks[GPU].bounded
    assert [c.machine for c in costs_to_finish(con)[23]] == [WINDOWS_CPU, CAMPAIGN_CPU]
    # four GPU windows: the GPU is priced by its own miss (0.2), the CPU's figure unchanged (2.0)
    windows += [(23, 170_000, 11e-9, WINDOWS_CPU, True), (23, 180_000, 12e-9, WINDOWS_CPU, True)]
    costs = {c.machine: c for c in costs_to_finish(warehouse(windows, shards, {23: 10**12}))[23]}
    assert costs[GPU].miss.factor == pytest.approx(0.2) and costs[CAMPAIGN_CPU].miss.factor == pytest.approx(2.0)


def test_a_size_finished_or_with_one_window_left_has_no_cost():
    con = warehouse(LEFT[:1] + [(21, 0, 1e-7, WINDOWS_CPU, False), (21, 5000, 2e-7, WINDOWS_CPU, False)], [], {23: 5})
    assert costs_to_finish(con) == {}
