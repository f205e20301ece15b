"""The report's GPU section: what a lent GPU measured (the warehouse's ``measurements``) and the
shards it computed (``shard_timings`` rows whose machine names a GPU)."""

from __future__ import annotations

import duckdb
import numpy as np

from ...core.fmt import duration, hours_text, plural
from ...report.common import markdown_table, records

GPU_MACHINE = "%(gpu%"  # engines/redblack/gpu.py device_name(): "<name> (gpu, numba-cuda)"

MEASUREMENTS_SQL = """
SELECT record, device, host, measured_on, metric, value, low, high, unit, detail
FROM measurements WHERE game = 'redblack' ORDER BY measured_on, record, metric
"""

GPU_SHARDS_SQL = f"""
SELECT experiment, machine, count(*) AS shards, sum(work) AS deals, sum(wall_s) AS wall_s,
       min(shard) AS first, max(shard) AS last
FROM shard_timings WHERE game = 'redblack' AND machine LIKE '{GPU_MACHINE}'
GROUP BY experiment, machine ORDER BY experiment, machine
"""

# Each shard a GPU computed: its deals, rounds and wall seconds (the job log's timing).
GPU_SHARD_WORK_SQL = f"""
SELECT c.k, c.shard, c.deals, c.rounds, t.wall_s
FROM redblack_counts c
JOIN shard_timings t ON t.game = 'redblack' AND t.experiment = c.experiment AND t.variant = c.algorithm
                     AND t.shard = c.shard
WHERE c.method = 'exhaustive' AND c.algorithm = 'owner' AND c.deals > 0 AND t.machine LIKE '{GPU_MACHINE}'
ORDER BY c.k, c.shard
"""

# Each size not yet complete: deals left and rounds per deal (the uniform sample's, else the cost windows').
SIZES_LEFT_SQL = """
SELECT c.k, c.deals_left, coalesce(c.rounds_per_deal, w.rounds_per_deal) AS rounds_per_deal
FROM redblack_coverage c LEFT JOIN redblack_window_cost w USING (k)
WHERE NOT c.complete AND coalesce(c.rounds_per_deal, w.rounds_per_deal) IS NOT NULL ORDER BY c.k
"""

RATE_COLUMNS = ("windows", "GPU deals/s", "one CPU core deals/s", "GPU / core", "GPU rounds/s")
WINDOWS = {"k23_windows": "k = 23, evenly spaced", "k26_windows": "k = 26 cost windows (10^6 ranks each)"}


def gpu_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Each kept GPU measurement (newest last) and the campaign shards computed on a GPU; nothing without either."""
    rows = records(con, MEASUREMENTS_SQL)
    shards = records(con, GPU_SHARDS_SQL)
    if not rows and not shards:
        return []
    out = ["## On a GPU", ""]
    out.append(
        "The `gpu` backend (numba-cuda) gives the CPU's results bit for bit; its speed was measured with "
        "`bench/redblack_gpu.py` on a GPU lent for a session and kept under `results/measurements/redblack/` "
        "(warehouse table `measurements`)."
    )
    out.append("")
    for record in dict.fromkeys(r["record"] for r in rows):
        out += measurement_lines([r for r in rows if r["record"] == record])
    out += projection_lines(records(con, GPU_SHARD_WORK_SQL), records(con, SIZES_LEFT_SQL))
    for s in shards:
        out.append(
            f"- {s['experiment']}: {plural(s['shards'], 'shard')} ({s['first']}..{s['last']}, {s['deals']:,} deals) "
            f"computed on {s['machine']} in {duration(s['wall_s'])}, {s['deals'] / s['wall_s']:,.0f} deals/s "
            "(their job logs)."
        )
    return out + [""]


def measurement_lines(rows: list[dict]) -> list[str]:
    """One kept measurement: the full deck's GPU-hours, the checks, and GPU against one core on the same windows."""
    by = {r["metric"]: r for r in rows}
    head = rows[0]
    out = []
    deck = by.get("full_deck_gpu_hours")
    if deck:
        out.append(
            f"**The full deck on one {head['device'].split(' (')[0]}: about {hours_text(deck['value'])} GPU-hours** "
            f"(95 % interval {hours_text(deck['low'])}–{hours_text(deck['high'])}), measured {head['measured_on']} "
            f"on {deck['detail']}, beside the core-hours above."
        )
    checks = by.get("checks_identical")
    if checks:
        out.append(f"Before timing: {checks['detail']} (complete k = 6 and 8, a k = 15 window, both methods).")
    table = [row for prefix, name in WINDOWS.items() if (row := window_rates(prefix, name, by))]
    if table:
        out += ["", markdown_table(RATE_COLUMNS, table), ""]
        out.append(f"One CPU core: the GPU machine's host ({head['host']}), on the same windows in the same run.")
    return out + [""]


def window_rates(prefix: str, name: str, by: dict) -> tuple | None:
    gpu, core = by.get(f"{prefix}_gpu_deals_per_s"), by.get(f"{prefix}_cpu_core_deals_per_s")
    if not gpu:
        return None
    rounds = by.get(f"{prefix}_gpu_rounds_per_s")
    ratio = f"{gpu['value'] / core['value']:.1f}×" if core else ""
    return (
        f"{name}: {gpu['detail']}",
        f"{gpu['value']:,.0f}",
        f"{core['value']:,.0f}" if core else "",
        ratio,
        f"{rounds['value']:,.0f}" if rounds else "",
    )


def gpu_cost_model(work: list[dict]) -> tuple[float, float, float] | None:
    """(seconds per round, seconds per deal, largest relative miss) fitted to the GPU's campaign shards,
    wall = a·rounds + b·deals; None from fewer than three shards (two unknowns and a check)."""
    if len(work) < 3:
        return None
    A = np.array([[w["rounds"], w["deals"]] for w in work], dtype=float)
    wall = np.array([w["wall_s"] for w in work], dtype=float)
    (a, b), *_ = np.linalg.lstsq(A, wall, rcond=None)
    return float(a), float(b), float(np.max(np.abs(A @ (a, b) - wall) / wall))


def projection_lines(work: list[dict], sizes: list[dict]) -> list[str]:
    """What the sizes left cost at the rate the GPU's campaign shards ran (launches of 2^30 deals, far
    fuller than the cost windows': the windows' launches wait on their longest games)."""
    model = gpu_cost_model(work)
    if model is None or not sizes:
        return []
    a, b, miss = model
    ks = sorted({w["k"] for w in work})
    costs = "; ".join(
        f"k = {s['k']} about {hours_text(float(s['deals_left']) * (a * rpd + b) / 3600)} GPU-hours "
        f"({rpd:.1f} rounds per deal)"
        for s in sizes
        for rpd in [float(s["rounds_per_deal"])]
    )
    return [
        f"**Projected at the campaign shards' rate**: the {plural(len(work), 'shard')} of k = "
        f"{', '.join(map(str, ks))} a GPU computed took {a * 1e12:.2f} ps per round and {b * 1e12:.1f} ps per "
        f"deal (wall = a·rounds + b·deals, fitted; no shard off by more than {miss:.1%}), so the rest costs: "
        f"{costs}. A projection from another size's shards and the size's rounds per deal, not a measurement "
        "of its ranks. The cost windows above were launched 2·10^7 deals at a time: such short launches (some "
        "150 deals a thread) pay their set-up, their longest games and the CPU's replays of handed-back deals "
        "far more than a shard's launches of 2^30 deals, so they price the GPU low (k = 23's evenly spaced "
        "windows ran at a third of its shards' rounds per second); cost windows of 2^30 ranks would measure "
        "the full deck's ranks at the shards' launch size (`bash bench/redblack_gpu_device.sh` does).",
        "",
    ]
