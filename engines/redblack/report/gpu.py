"""The report's GPU section: what a lent GPU measured (the warehouse's ``measurements``) and the
shards it computed (``shard_timings`` rows whose machine names a GPU)."""

from __future__ import annotations

import duckdb

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
