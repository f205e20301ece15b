"""RedBlack gpu backend benchmark: deals/s and rounds/s on a GPU against one CPU core, same windows.

Times the gpu backend (engines/redblack/gpu.py) and the CPU search (one numba thread) on
the same rank windows, checks that both give the same result, and prints each one's
deals/s and rounds/s and the GPU's speed-up:

* k = 23: ``--k23-windows`` windows of ``--k23-window`` consecutive ranks, evenly spaced
  over the ranks (the low ranks cost several times more per deal);
* k = 26: the cost windows of config.yaml (``redblack.cost_windows``, k = 26: 224 windows
  of 10^6 ranks at seeded stratified positions), or the first ``--k26-windows`` of them.

Method ``owner`` (the campaigns') unless ``--method brute``.  Each side is warmed up first
(compiling its kernels), so no timing includes a compile.  It needs an NVIDIA GPU and
numba-cuda (``pip install -e .[gpu]``); without them it says why and exits with status 2.

Before timing, ``--check`` compares the two on complete small sizes and a k = 15 window
(both methods).  ``--cost-window N`` times the GPU alone on the k = 26 cost windows' starts
extended to N ranks each (a GPU needs far more than 10^6 deals a launch to fill) and prices
the full deck in GPU-hours from them, with a 95 % interval over the windows.  ``--shards N``
then computes the next N shards left of the campaign of size ``--k`` (default 23) from the
bottom (a CPU campaign beside it works from the top) with the gpu backend, written with their logs exactly as a
campaign job writes them (engines/pipeline/compute/jobs.py), for `cardlab redblack campaign 23
--keep`; ``--until S`` starts no shard that would end after S seconds of the run.
``--json PATH`` writes every figure printed; ``--keep PATH`` writes them as a kept
measurement (``results/measurements/redblack/<name>.json``, tracked: the warehouse's
``measurements`` and the report's GPU figures come from it).

    .venv/bin/python bench/redblack_gpu.py [--check] [--k23-windows 8] [--k23-window 100000000]
        [--k26-windows 224] [--k26-deals N] [--cost-window N] [--shards N --until S]
        [--method owner] [--grid BLOCKS,THREADS] [--no-cpu] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np
import yaml

from engines.core.errors import CardlabError
from engines.core.machine import machine
from engines.redblack import gpu
from engines.redblack.exhaustive import search_range
from engines.redblack.kinds.windows import window_starts
from engines.redblack.rules import canonical_deals

ROOT = Path(__file__).resolve().parents[1]
GAME = "redblack"
WARM_UP = 1000  # deals of a warm-up search
CHECKS = [(6, 0, None), (8, 0, None), (15, 3_000_000, 4_000_000)]  # (k, first rank, end: None = all)
RECORD: dict = {}  # what --json writes


def k26_cost_windows() -> list[tuple[int, int]]:
    """config.yaml's cost windows of k = 26, in the order drawn: (start, stop)."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    blocks = config[GAME]["cost_windows"]
    block = next(b for b in (blocks if isinstance(blocks, list) else [blocks]) if b["k"] == 26)
    window = int(block["window"])
    return [(s, s + window) for s in window_starts(26, int(block["windows"]), window, int(block["seed"]), GAME)]


def k23_windows(count: int, window: int) -> list[tuple[int, int]]:
    """`count` windows of `window` ranks of k = 23, evenly spaced from the first rank to the last."""
    last = canonical_deals(23) - window
    starts = [i * last // max(count - 1, 1) for i in range(count)]
    return [(s, s + window) for s in starts]


def same(a, b) -> bool:
    fields = ("deals", "finite", "longest_rounds", "longest_deal", "infinite", "stopped", "rounds", "method")
    return all(getattr(a, f) == getattr(b, f) for f in fields) and np.array_equal(a.lengths, b.lengths)


def timed(fn, k: int, windows: list[tuple[int, int]], method: str):
    """(seconds, results, seconds per window) of fn over the windows, one after another."""
    out, each = [], []
    t0 = time.perf_counter()
    for r0, r1 in windows:
        t = time.perf_counter()
        out.append(fn(k, r0, r1, method=method))
        each.append(time.perf_counter() - t)
    return time.perf_counter() - t0, out, each


def on_gpu(grid):
    return lambda *a, **kw: gpu.search_range_gpu(*a, grid=grid, **kw)


def check(grid) -> None:
    """The GPU equals the CPU on complete small sizes and a k = 15 window, both methods; else exit 1."""
    for k, r0, r1 in CHECKS:
        r1 = canonical_deals(k) if r1 is None else r1
        for method in ("owner", "brute"):
            ok = same(on_gpu(grid)(k, r0, r1, method=method), search_range(k, r0, r1, method=method))
            print(f"check k = {k} [{r0:,}, {r1:,}) {method}: {'identical' if ok else 'DIFFERENT'}", flush=True)
            RECORD.setdefault("checks", []).append({"k": k, "ranks": [r0, r1], "method": method, "identical": ok})
            if not ok:
                finish(1)


def compare(label: str, k: int, windows: list[tuple[int, int]], method: str, grid, cpu: bool) -> None:
    deals = sum(r1 - r0 for r0, r1 in windows)
    gpu_s, got, _ = timed(on_gpu(grid), k, windows, method)
    rounds = sum(r.rounds for r in got)
    row = {"windows": len(windows), "deals": deals, "rounds": rounds, "gpu_s": gpu_s}
    RECORD.setdefault("compare", {})[label] = row
    print(f"{label}: {len(windows)} windows, {deals:,} deals, {rounds:,} rounds ({rounds / deals:.1f} per deal)")
    print(f"  gpu      {gpu_s:9.3f} s  {deals / gpu_s:16,.0f} deals/s  {rounds / gpu_s:18,.0f} rounds/s", flush=True)
    if not cpu:
        return
    cpu_s, want, _ = timed(search_range, k, windows, method)
    identical = all(same(a, b) for a, b in zip(got, want))
    row.update(cpu_s=cpu_s, identical=identical)
    print(f"  cpu core {cpu_s:9.3f} s  {deals / cpu_s:16,.0f} deals/s  {rounds / cpu_s:18,.0f} rounds/s")
    print(f"  gpu / one core: {cpu_s / gpu_s:.1f} x; results identical: {'yes' if identical else 'NO'}", flush=True)
    if not identical:
        finish(1)


def gpu_cost(window: int, count: int, method: str, grid) -> None:
    """The full deck's GPU-hours, from the k = 26 cost windows' starts extended to `window` ranks."""
    windows = [(r0, r0 + window) for r0, _ in k26_cost_windows()[:count]]
    total_s, got, each = timed(on_gpu(grid), 26, windows, method)
    per_deal = [t / window for t in each]
    mean = statistics.fmean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / math.sqrt(len(per_deal)) if len(per_deal) > 1 else float("nan")
    total = canonical_deals(26)
    hours = [total * x / 3600 for x in (mean, mean - half, mean + half)]
    deals = window * len(windows)
    rounds = sum(r.rounds for r in got)
    RECORD["full_deck"] = {
        "windows": len(windows),
        "window": window,
        "gpu_s": total_s,
        "deals": deals,
        "rounds": rounds,
        "gpu_hours": hours[0],
        "gpu_hours_95": hours[1:],
        "infinite_found": sum(len(r.infinite) for r in got),
    }
    print(f"k = 26 cost windows on the GPU: {len(windows)} of {window:,} ranks, {deals / total_s:,.0f} deals/s")
    print(
        f"  full deck ({total:,} deals): {hours[0]:,.2f} GPU-hours (95 %: {hours[1]:,.2f}-{hours[2]:,.2f})", flush=True
    )


def first_seconds_per_deal(k: int) -> float:
    """GPU seconds a deal of size k costs before a shard of it is timed: this run's full-deck cost windows where
    it measured them (launches of a shard's size; a k = 26 deal costs more than a smaller one), else its k = 23
    windows, about 1.2 times dearer a deal each size up (windows much shorter than a launch price it high)."""
    deck = RECORD.get("full_deck")
    if deck and k <= 26:
        return deck["gpu_s"] / deck["deals"]
    k23 = RECORD["compare"]["k = 23"]
    return 1.2 ** max(0, k - 23) * k23["gpu_s"] / k23["deals"]


def gpu_shards(k: int, count: int, per_shard: int | None, until: float, started: float) -> None:
    """The next `count` shards of size k's campaign from the bottom, on the GPU, as campaign jobs write them
    (on the grid of its ledger or config block, else `per_shard` deals a shard)."""
    from engines.campaign.command import the_ledger
    from engines.pipeline.bookkeeping.records import timing_of_log as read_timing
    from engines.pipeline.compute.jobs import run_shard
    from engines.redblack.campaign.next import campaign_of, plan_run
    from engines.redblack.campaign.state import campaign_state
    from engines.redblack.kinds.search import ExhaustiveSearch
    from engines.redblack.tables import SEARCH_TABLES

    Path("results").mkdir(exist_ok=True)  # a campaign's first shards may be a fresh tree's first results
    state = campaign_state(k, ARGS.method, "results", timing=read_timing)
    ledger = the_ledger(campaign_of(k, ARGS.method, "results"), "results")
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    run = plan_run(state, config, count, deals_per_shard=per_shard, kept=ledger.per_shard if ledger else None)
    if not run.shards:
        print(f"k = {k}: no shard left to compute", flush=True)
        return
    kind, files, logs = ExhaustiveSearch(GAME), run.files(), run.logs()
    last = 3 * run.deals_per_shard * first_seconds_per_deal(k)  # the lowest ranks cost about 3 times the mean
    for n in run.shards:
        if time.perf_counter() - started + 1.5 * last > until:
            print(f"k = {k} shard {n}: not started (--until {until:.0f} s)", flush=True)
            break
        r0, r1 = run.ranks(n)
        t = time.perf_counter()
        run_shard(
            GAME,
            kind.spec(k, ARGS.method, n, r0, r1),
            dict(zip(SEARCH_TABLES, files[n])),
            log=logs[str(n)],
            backend="gpu",
        )
        last = time.perf_counter() - t
        RECORD.setdefault("shards", []).append({"k": k, "shard": n, "ranks": [r0, r1], "wall_s": last})
        print(
            f"k = {k} shard {n} [{r0:,}, {r1:,}) on the GPU: {last:.1f} s, {(r1 - r0) / last:,.0f} deals/s", flush=True
        )


def write_record() -> None:
    """Every figure so far to --json, and as a kept measurement to --keep (written before the long
    part too: a run stopped at its limit keeps them)."""
    if ARGS.json:
        Path(ARGS.json).write_text(json.dumps(RECORD, indent=1) + "\n")
    if ARGS.keep:
        Path(ARGS.keep).parent.mkdir(parents=True, exist_ok=True)
        Path(ARGS.keep).write_text(json.dumps(kept_record(RECORD), indent=1) + "\n")


def kept_record(raw: dict) -> dict:
    """The run's figures as a kept measurement (engines/pipeline/catalog/measurements.py: the warehouse's
    ``measurements``): one metric per figure, rates per second, the full deck's GPU-hours with its interval."""
    metrics = []

    def add(metric, value, unit, detail, low=None, high=None):
        metrics.append({"metric": metric, "value": value, "low": low, "high": high, "unit": unit, "detail": detail})

    checks = raw.get("checks", [])
    if checks:
        same_ones = sum(c["identical"] for c in checks)
        add("checks_identical", same_ones, "checks", f"GPU equal to the CPU in {same_ones} of {len(checks)} checks")
    for label, key in (("k = 23", "k23_windows"), ("k = 26 cost windows", "k26_windows")):
        row = raw.get("compare", {}).get(label)
        if not row:
            continue
        what = f"{row['windows']} windows, {row['deals']:,} deals"
        add(f"{key}_gpu_deals_per_s", row["deals"] / row["gpu_s"], "deals/s", what)
        add(f"{key}_gpu_rounds_per_s", row["rounds"] / row["gpu_s"], "rounds/s", what)
        if "cpu_s" in row:
            add(f"{key}_cpu_core_deals_per_s", row["deals"] / row["cpu_s"], "deals/s", what + ", one CPU core")
            add(f"{key}_cpu_core_rounds_per_s", row["rounds"] / row["cpu_s"], "rounds/s", what + ", one CPU core")
    deck = raw.get("full_deck")
    if deck:
        what = f"{deck['windows']} k = 26 cost windows of {deck['window']:,} ranks ({raw['method']} rule)"
        add("full_deck_gpu_deals_per_s", deck["deals"] / deck["gpu_s"], "deals/s", what)
        low, high = deck["gpu_hours_95"]
        add("full_deck_gpu_hours", deck["gpu_hours"], "GPU-hours", what, low, high)
    head = {k: raw[k] for k in ("device", "host", "measured_on")}
    return {"bench": "bench/redblack_gpu.py", **head, "metrics": metrics}


def finish(rc: int = 0) -> None:
    write_record()
    sys.exit(rc)


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="first compare GPU and CPU on small complete sizes")
    ap.add_argument("--k23-windows", type=int, default=8)
    ap.add_argument("--k23-window", type=int, default=100_000_000)
    ap.add_argument("--k26-windows", type=int, default=224, help="the first N of config.yaml's k = 26 cost windows")
    ap.add_argument("--k26-deals", type=int, help="only the first N ranks of each k = 26 window (a quick run)")
    ap.add_argument("--cost-window", type=int, help="price the full deck on the GPU from windows of N ranks")
    ap.add_argument("--shards", type=int, default=0, help="then compute N campaign shards of size --k on the GPU")
    ap.add_argument("--k", type=int, default=23, help="the campaign --shards works on (default: 23)")
    ap.add_argument("--deals-per-shard", type=int, help="the grid of a campaign with no shard and no config block yet")
    ap.add_argument("--until", type=float, default=math.inf, help="start no shard that would end after S s")
    ap.add_argument("--method", choices=("owner", "brute"), default="owner")
    ap.add_argument("--grid", help="BLOCKS,THREADS (default: a few blocks per multiprocessor)")
    ap.add_argument("--no-cpu", action="store_true", help="time the GPU only")
    ap.add_argument("--json", help="write every figure to this file")
    ap.add_argument("--keep", help="write the figures as a kept measurement (results/measurements/redblack/NAME.json)")
    return ap.parse_args()


def main() -> None:
    started = time.perf_counter()
    try:
        cuda = gpu.cuda_module()
    except CardlabError as e:
        print(f"redblack_gpu: {e}", file=sys.stderr)
        sys.exit(2)
    grid = tuple(int(v) for v in ARGS.grid.split(",")) if ARGS.grid else gpu.default_grid(cuda)
    name = gpu.device_name()
    RECORD.update(device=name, grid=list(grid), method=ARGS.method, numba=numba.__version__)
    RECORD.update(host=machine(), measured_on=time.strftime("%Y-%m-%d", time.gmtime()))
    print(f"GPU: {name}, grid {grid[0]} x {grid[1]}", flush=True)
    numba.set_num_threads(1)
    w23 = k23_windows(ARGS.k23_windows, ARGS.k23_window)
    w26 = [(r0, min(r1, r0 + (ARGS.k26_deals or r1))) for r0, r1 in k26_cost_windows()[: ARGS.k26_windows]]
    for k, r0 in ((23, w23[0][0]), (26, w26[0][0])):  # warm-up: compile both sides
        gpu.search_range_gpu(k, r0, r0 + WARM_UP, grid=grid, method=ARGS.method)
        search_range(k, r0, r0 + WARM_UP, method=ARGS.method)
    if ARGS.check:
        check(grid)
    compare("k = 23", 23, w23, ARGS.method, grid, not ARGS.no_cpu)
    compare("k = 26 cost windows", 26, w26, ARGS.method, grid, not ARGS.no_cpu)
    if ARGS.cost_window:
        gpu_cost(ARGS.cost_window, ARGS.k26_windows, ARGS.method, grid)
    if ARGS.shards:
        write_record()
        gpu_shards(ARGS.k, ARGS.shards, ARGS.deals_per_shard, ARGS.until, started)
    finish(0)


if __name__ == "__main__":
    ARGS = parse_args()
    main()
