"""The report's GPU section: what a lent GPU measured (the warehouse's ``measurements``) and the
campaign shards it computed (``shard_timings`` rows whose machine names a GPU, with their counts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import duckdb
import numpy as np

from ...core.fmt import duration, hours_text, plural
from ...kinds import GPU_MARK, on_gpu
from ...report.common import markdown_table, records
from .cost import CostToFinish, cost_line

GPU_MACHINE = f"%{GPU_MARK}%"  # a GPU's machine name (engines/kinds.py)

MEASUREMENTS_SQL = """
SELECT record, device, host, measured_on, metric, value, low, high, unit, detail
FROM measurements WHERE game = 'redblack' ORDER BY measured_on, record, metric
"""

# Each shard a GPU computed: its deals, rounds and wall seconds (its job's timing record).
GPU_SHARD_WORK_SQL = f"""
SELECT c.experiment, t.machine, c.k, c.shard, c.deals, c.rounds, t.wall_s
FROM redblack_counts c
JOIN shard_timings t ON t.game = 'redblack' AND t.experiment = c.experiment AND t.variant = c.algorithm
                     AND t.shard = c.shard
WHERE c.method = 'exhaustive' AND c.algorithm = 'owner' AND c.deals > 0 AND t.machine LIKE '{GPU_MACHINE}'
ORDER BY c.experiment, t.machine, c.shard
"""

# Each size not yet complete: deals left and rounds per deal in the ranks left (the cost windows that lie
# there; else the coverage's: a uniform sample of the size, or the ranks searched). A campaign from the top
# searches the cheap ranks first: their rounds per deal would price the rest at a third of its cost.
SIZES_LEFT_SQL = """
SELECT c.k, c.deals_left, coalesce(w.rounds_per_deal, c.rounds_per_deal) AS rounds_per_deal
FROM redblack_coverage c LEFT JOIN redblack_window_cost w USING (k)
WHERE NOT c.complete AND coalesce(w.rounds_per_deal, c.rounds_per_deal) IS NOT NULL ORDER BY c.k
"""

RATE_COLUMNS = ("windows", "GPU deals/s", "one CPU core deals/s", "GPU / core", "GPU rounds/s")
WINDOWS = {"k23_windows": "k = 23, evenly spaced", "k26_windows": "k = 26 cost windows (10^6 ranks each)"}


def gpu_section(con: duckdb.DuckDBPyConnection, costs: Mapping[int, Sequence[CostToFinish]]) -> list[str]:
    """The cost to finish on a GPU (``costs``: the report's one figure per size and kind,
    engines/redblack/report/cost.py), then its cross-checks: each kept GPU measurement and the
    projection from the shards a GPU computed."""
    rows = records(con, MEASUREMENTS_SQL)
    work = records(con, GPU_SHARD_WORK_SQL)
    if not rows and not work:
        return []
    out = ["## On a GPU", ""]
    out.append(
        "The `gpu` backend (numba-cuda) gives the CPU's results bit for bit. A GPU is a kind of machine of "
        "its own in the cost to finish: its figure is the cost windows' scaled by the miss its campaign "
        "shards measured, in GPU-hours (their timing records time a host process that waits on the device)."
    )
    gpu = [(k, c) for k, by_kind in sorted(costs.items()) for c in by_kind if on_gpu(c.machine)]
    out += [""] + [f"- k = {k}: {cost_line(c)}" for k, c in gpu] + [""]
    out += shard_lines(work)
    out += ["", "Cross-checks, not costs:", ""]
    for record in dict.fromkeys(r["record"] for r in rows):
        out += measurement_lines([r for r in rows if r["record"] == record])
    out += projection_lines(work, records(con, SIZES_LEFT_SQL))
    return out


def shard_lines(work: list[dict]) -> list[str]:
    """The campaign shards a GPU computed, per experiment and device: how many, their deals and wall time."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for w in work:
        groups.setdefault((w["experiment"], w["machine"]), []).append(w)
    out = []
    for (experiment, machine), done in groups.items():
        deals, wall = sum(w["deals"] for w in done), sum(w["wall_s"] for w in done)
        out.append(
            f"Shards computed on a GPU: {experiment}, {plural(len(done), 'shard')} ({done[0]['shard']}..{done[-1]['shard']}, "
            f"{deals:,} deals) on {machine} in {duration(wall)}, {deals / wall:,.0f} deals/s (their jobs' timing records)."
        )
    return out


def measurement_lines(rows: list[dict]) -> list[str]:
    """One kept measurement (bench/redblack_gpu.py on a lent GPU): its own cost windows' price of the full
    deck, the checks, and GPU against one core on the same windows."""
    by = {r["metric"]: r for r in rows}
    head = rows[0]
    out = [f"- **Measured by `bench/redblack_gpu.py` on {head['device']}**, {head['measured_on']} (kept in "
           "`results/measurements/redblack/`, warehouse table `measurements`)."]  # fmt: skip
    checks = by.get("checks_identical")
    if checks:
        out[-1] += f" Before timing: {checks['detail']} (complete k = 6 and 8, a k = 15 window, both methods)."
    deck = by.get("full_deck_gpu_hours")
    if deck:
        out[-1] += (
            f" Its own cost windows ({deck['detail']}) price the full deck at {hours_text(deck['value'])} "
            f"GPU-hours ({hours_text(deck['low'])}–{hours_text(deck['high'])}): launches that short pay their "
            "set-up, their longest games and the CPU's replays of handed-back deals far more than a campaign "
            "shard's launches of 2^30 deals, so they price the GPU low."
        )
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
        f"- **Projected at the campaign shards' rate**: the {plural(len(work), 'shard')} of k = "
        f"{', '.join(map(str, ks))} a GPU computed took {a * 1e12:.2f} ps per round and {b * 1e12:.1f} ps per "
        f"deal (wall = a·rounds + b·deals, fitted; no shard off by more than {miss:.1%}), so the rest costs: "
        f"{costs}: a projection from another size's shards and the size's rounds per deal, not a measurement "
        "of its ranks. (The bench's cost windows of 2^30 ranks, `bash bench/redblack_gpu_device.sh`, would "
        "measure them at a shard's launch size.)",
        "",
    ]
