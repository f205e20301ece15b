"""The prices in engines/prices.yaml beside what a results tree's timing records measure.

    .venv/bin/python bench/measure_prices.py [--config config.yaml] [--results results]

For every price key the config's shards name, the CPU seconds a unit of work took (the finished jobs'
records: CPU seconds per thread over the units the price counts, on the kind of CPU they ran on), or a
shard where the file prices shards, and the ratio of the file's price to it.  A ratio below 1 is a price lower than this machine
measures (a batch of small shards may then exceed its limit); the file keeps generous prices, above the
measured ones, so a ratio of 1 to 10 is what it should read.  Only CPU jobs count (a GPU job's CPU time
waited on the device); a job that batched shards records each shard's part.  Edit the file by hand
from these figures, with a note of what was measured where: it is data, no engine's version covers it.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.core.layout import timing_of  # noqa: E402
from engines.core.prices import kind_price  # noqa: E402
from engines.pipeline.bookkeeping.records import cpu_per_thread, read_timing  # noqa: E402
from engines.pipeline.planning.plan import DEFAULT_CONFIG, load_plan  # noqa: E402


def measured(config: str, results: str) -> dict[str, tuple[float, float, int, set[str]]]:
    """Per price key: CPU seconds, units, jobs and kinds of CPU of the finished CPU shards' records."""
    plan = load_plan(config, results)
    found: dict[str, list] = defaultdict(lambda: [0.0, 0.0, 0, set()])
    for s in plan:
        hints = s.kind.schedule(plan.config.get(s.game) or {}, s.spec)
        timing = read_timing(timing_of(s.log))
        cpu = cpu_per_thread(timing) if timing else None
        if not hints.price or not hints.units or not cpu:
            continue
        entry = found[hints.price]
        entry[0] += cpu
        entry[1] += hints.units * (float(timing.get("work") or s.work) / max(1, s.work))
        entry[2] += 1
        entry[3].add(str(timing.get("machine") or "not recorded"))
    return {key: tuple(v) for key, v in found.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=DEFAULT_CONFIG)
    ap.add_argument("--results", default="results")
    args = ap.parse_args()
    rows = measured(args.config, args.results)
    if not rows:
        print(f"no finished CPU shard with a timing record under {args.results}/timings/: run the pipeline first")
        return 1
    print(f"{'price':32} {'jobs':>5} {'measured CPU-s':>15} {'per':>5} {'file':>10} {'file/measured':>14}  machines")
    for key, (cpu, units, jobs, machines) in sorted(rows.items()):
        per, price = (
            ("shard", kind_price(key, "shard")) if kind_price(key, "shard") else ("unit", kind_price(key, "per_unit"))
        )
        seen = cpu / (jobs if per == "shard" else units)
        ratio = f"{price / seen:14.2f}" if price else f"{'(no price)':>14}"
        print(f"{key:32} {jobs:5d} {seen:15.3g} {per:>5} {price or 0:10.3g} {ratio}  {', '.join(sorted(machines))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
