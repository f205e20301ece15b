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

    .venv/bin/python bench/redblack_gpu.py [--k23-windows 8] [--k23-window 100000000] [--k26-windows 224]
        [--k26-deals N] [--method owner] [--grid BLOCKS,THREADS] [--no-cpu]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np
import yaml

from engines.core.errors import CardlabError
from engines.redblack import gpu
from engines.redblack.exhaustive import search_range
from engines.redblack.rules import canonical_deals
from engines.redblack.window_shards import window_starts

ROOT = Path(__file__).resolve().parents[1]
GAME = "redblack"
WARM_UP = 1000  # deals of a warm-up search


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
    """(seconds, results) of fn over the windows, one after another."""
    out = []
    t0 = time.perf_counter()
    for r0, r1 in windows:
        out.append(fn(k, r0, r1, method=method))
    return time.perf_counter() - t0, out


def compare(label: str, k: int, windows: list[tuple[int, int]], method: str, grid, cpu: bool) -> None:
    deals = sum(r1 - r0 for r0, r1 in windows)
    gpu_s, got = timed(lambda *a, **kw: gpu.search_range_gpu(*a, grid=grid, **kw), k, windows, method)
    rounds = sum(r.rounds for r in got)
    print(f"{label}: {len(windows)} windows, {deals:,} deals, {rounds:,} rounds ({rounds / deals:.1f} per deal)")
    print(f"  gpu      {gpu_s:9.3f} s  {deals / gpu_s:16,.0f} deals/s  {rounds / gpu_s:18,.0f} rounds/s")
    if not cpu:
        return
    cpu_s, want = timed(search_range, k, windows, method)
    print(f"  cpu core {cpu_s:9.3f} s  {deals / cpu_s:16,.0f} deals/s  {rounds / cpu_s:18,.0f} rounds/s")
    identical = all(same(a, b) for a, b in zip(got, want))
    print(f"  gpu / one core: {cpu_s / gpu_s:.1f} x; results identical: {'yes' if identical else 'NO'}")
    if not identical:
        sys.exit(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k23-windows", type=int, default=8)
    ap.add_argument("--k23-window", type=int, default=100_000_000)
    ap.add_argument("--k26-windows", type=int, default=224, help="the first N of config.yaml's k = 26 cost windows")
    ap.add_argument("--k26-deals", type=int, help="only the first N ranks of each k = 26 window (a quick run)")
    ap.add_argument("--method", choices=("owner", "brute"), default="owner")
    ap.add_argument("--grid", help="BLOCKS,THREADS (default: a few blocks per multiprocessor)")
    ap.add_argument("--no-cpu", action="store_true", help="time the GPU only")
    args = ap.parse_args()
    try:
        cuda = gpu.cuda_module()
    except CardlabError as e:
        print(f"redblack_gpu: {e}", file=sys.stderr)
        sys.exit(2)
    grid = tuple(int(v) for v in args.grid.split(",")) if args.grid else gpu.default_grid(cuda)
    name = getattr(cuda.get_current_device(), "name", "the simulator")
    print(f"GPU: {name.decode() if isinstance(name, bytes) else name}, grid {grid[0]} x {grid[1]}")
    numba.set_num_threads(1)
    w23 = k23_windows(args.k23_windows, args.k23_window)
    w26 = [(r0, min(r1, r0 + (args.k26_deals or r1))) for r0, r1 in k26_cost_windows()[: args.k26_windows]]
    for k, r0 in ((23, w23[0][0]), (26, w26[0][0])):  # warm-up: compile both sides
        gpu.search_range_gpu(k, r0, r0 + WARM_UP, grid=grid, method=args.method)
        search_range(k, r0, r0 + WARM_UP, method=args.method)
    compare("k = 23", 23, w23, args.method, grid, not args.no_cpu)
    compare("k = 26 cost windows", 26, w26, args.method, grid, not args.no_cpu)


if __name__ == "__main__":
    main()
