"""What each part of the live view's ETA model buys, measured on the recorded runs.

The recordings of tests/test_live_eta.py (tests/data/live_*.json*) are replayed through the progress
model (engines/pipeline/progress/model.py) with one of its parts replaced by the plain stand-in a
simpler model would use, and each run's ETA is printed as a ratio to the truth (the recording's end)
at the first frame, at 10, 50 and 80 % of the run, with the largest jump from one frame to the next.
The product's checks: the first frame has an ETA, 10 % within 2x, 50 % within 1.3x (two named runs
1.35x), no jump of 2x.  research/README.md has the table this printed on 2026-12-07.

    .venv/bin/python research/eta_ablation.py                 # the model as it is, then every part
    .venv/bin/python research/eta_ablation.py pooled shapes   # those parts only (about 100 s each)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import live_recording  # noqa: E402 (tests/: the recordings' reader)

from engines.core.prices import run_price  # noqa: E402
from engines.pipeline.bookkeeping.records import Measure  # noqa: E402
from engines.pipeline.progress import costs  # noqa: E402
from engines.pipeline.progress import model as progress_model  # noqa: E402

RUNS = [
    "live_cold.json", "live_warm.json", "live_cold2.json", "live_warm2.json", "live_cold3.json",
    "live_warm3.json", "live_make.json.gz", "live_make2.json.gz", "live_make3.json.gz",
]  # fmt: skip


def rates_by_group(states):
    """Every shard at its group's rate: no neighbours along the shard numbers."""
    rates = costs.shard_rates(states)
    return [rates.get(s.spec.group) for s in states]


def priced_plainly(states, rates):
    """The estimate only where nothing is measured: no doubt of a group measured once."""
    scale = costs.estimate_scale(states)
    return [
        rate
        if rate is not None
        else max(1, s.spec.work) / max((s.spec.estimate_s or costs.UNESTIMATED_S) * scale, 1e-3)
        for s, rate in zip(states, rates, strict=True)
    ]


def slowdown_by_sums(states, snap):
    """Wall over CPU seconds of all the finished jobs: a mean, not the CPU-weighted median."""
    timed = [s.log for s in states if s.log is not None and s.log.finished is not None and s.log.cpu_s]
    if snap.run_started is not None:
        timed = [log for log in timed if log.mtime >= snap.run_started] or timed
    prior = max(1.0, snap.load) if snap.load is not None else costs.SLOWDOWN_PRIOR
    wall, cpu = sum(log.finished.seconds for log in timed), sum(log.cpu_s for log in timed)
    return max(1.0, (prior * costs.PRIOR_CPU_S + wall) / (costs.PRIOR_CPU_S + cpu)) if timed else prior


# part -> (what replaces it, {name in costs/model: stand-in})
PARTS: dict[str, tuple[str, dict[str, Callable]]] = {
    "pooled": ("measurements summed, no compiling first job left out", {
        "pooled": lambda ms: Measure(sum(m.work for m in ms), sum(m.seconds for m in ms))}),
    "once": ("a group measured once trusted", {"priced": priced_plainly}),
    "scale": ("estimates at their own scale (1)", {"estimate_scale": lambda states: 1.0}),
    "slowdown": ("a fixed slowdown of 1.5", {"slowdown": lambda states, snap: 1.5}),
    "slowdown-mean": ("the slowdown as a mean of all jobs", {"slowdown": slowdown_by_sums}),
    "compile": ("no kernel compilation", {"kernels_never_run": lambda states: {}, "compiling": lambda states: set()}),
    "chain": ("no longest chain of jobs", {"longest_chain": lambda left, seconds: 0.0}),
    "smoothing": ("each frame's estimate shown as it is", {"smoothed": lambda new, previous, now: new}),
    "overhead": ("a job's start-up at its price, not measured", {
        "job_overhead": lambda states, snap, parallel, slow: run_price("job_start") * slow}),
    "neighbours": ("every shard at its group's rate", {"rates_of": rates_by_group}),
    "shapes": ("no cost shape beyond the measured shards", {"cost_shapes": lambda measured: {}}),
    "machines": ("every machine pooled", {"current_machines": lambda states: {}}),
    "step-slowdown": ("the steps at the jobs' slowdown", {
        "step_slowdown": lambda slow, cores, at_once: max(run_price("step_wait"), slow)}),
}  # fmt: skip


def replay(name: str) -> str:
    rec = live_recording.load(ROOT / "tests" / "data" / name)
    shown, frames = None, []
    for t, snap in live_recording.frames(rec):
        m = progress_model.model(snap, shown)
        shown = m.shown
        frames.append((t, m.eta_s))
    end = rec["ended"]

    def ratio(t: float, eta: float | None) -> float:
        return (eta or 0.0) / (end - t)

    def at(share: float) -> float:
        return ratio(*min(frames, key=lambda f: abs(f[0] - share * end)))

    etas = [e for _, e in frames if e is not None]
    jump = max((max(a / b, b / a) for a, b in zip(etas, etas[1:]) if a > 10 and b > 10), default=0.0)
    return (
        f"{name:20} first {ratio(*frames[0]):.2f}  10 % {at(0.1):.2f}  50 % {at(0.5):.2f}  80 % {at(0.8):.2f}"
        f"  jump {jump:.2f}"
    )


def with_part_replaced(part: str | None) -> list[str]:
    stand_ins = PARTS[part][1] if part else {}
    kept = {}
    for name, stand_in in stand_ins.items():
        for module in (costs, progress_model):
            if hasattr(module, name):
                kept[module, name] = getattr(module, name)
                setattr(module, name, stand_in)
    try:
        return [replay(name) for name in RUNS]
    finally:
        for (module, name), original in kept.items():
            setattr(module, name, original)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", help=f"parts to replace (default: all): {', '.join(PARTS)}")
    args = parser.parse_args(argv)
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        parser.error(f"no part {', '.join(unknown)}; the parts: {', '.join(PARTS)}")
    for part in [None, *(args.parts or PARTS)]:
        print(f"== {part or 'the model as it is'}" + (f": {PARTS[part][0]}" if part else ""), flush=True)
        for line in with_part_replaced(part):
            print("  " + line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
