"""The first ten minutes, measured: CPU seconds of a cold `make run` from a clean clone.

    .venv/bin/python bench/cold_run.py [--repo .] [--keep DIR] [--cores 2]   (make bench-cold)

Clones the repository's HEAD into a temporary directory, then times, as children of this
process (CPU seconds: user + system, so a loaded machine stretches the wall time, not
this), the two steps a newcomer runs:

* set-up: ``make .venv/bin/.installed`` (the venv and the pinned packages);
* the run: ``make run`` with cold numba caches (the default config.yaml).

The run is split with what its shard jobs' timing records say (results/timings/): the shards'
own timed work, the part of it that compiled kernels (estimated: a kernel's first shard
less what its group's median rate says its work costs), and the rest of the run (process
and job start-up, Snakemake's own work, the warehouse, the reports and the live view).
It prints the run's CPU seconds against the budget of 240 (the first ten minutes of a
newcomer on a 2-core machine) and exits 0 either way (a measurement, not a test).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

BUDGET_CPU_S = 240.0  # a cold `make run` on 2 cores: the first ten minutes


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], cwd: Path, log: Path) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, exit status) of a command and all its children."""
    cpu0, wall0 = children_cpu(), time.perf_counter()
    with open(log, "w") as out:
        rc = subprocess.call(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    return children_cpu() - cpu0, time.perf_counter() - wall0, rc


def shard_timings(clone: Path, since: float) -> list[dict]:
    """Timing records of the shard jobs this run finished (kept campaigns' records are older)."""
    out = []
    timings = clone / "results" / "timings"
    for path in timings.rglob("shard=*.json"):
        if path.stat().st_mtime < since:
            continue
        rec = json.loads(path.read_text())
        if rec.get("state") == "done":
            rec["group"] = path.relative_to(timings).parts[:2]  # game, experiment
            rec["game"] = rec["group"][0]
            out.append(rec)
    return out


def compile_estimate(records: list[dict]) -> float:
    """CPU seconds above each group's median cost per unit of work, where a shard costs over
    a second and three times what its work should: a kernel's first shard on a cold cache."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in records:
        groups[(r["game"], r["unit"])].append(r)
    excess = 0.0
    for rs in groups.values():
        rate = statistics.median(r["cpu_s"] / max(1, r["work"]) for r in rs)
        for r in rs:
            expected = rate * max(1, r["work"])
            if r["cpu_s"] > 1.0 and r["cpu_s"] > 3 * expected:
                excess += r["cpu_s"] - expected
    return excess


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", default=".", help="repository to clone (its HEAD; default: %(default)s)")
    ap.add_argument("--keep", help="clone into this new directory and keep it (default: a temporary one, removed)")
    ap.add_argument("--cores", default="2", help="make run CORES=N (default: %(default)s, the budget's machine)")
    args = ap.parse_args()
    if args.keep and Path(args.keep).exists():
        print(f"error: --keep {args.keep}: already exists; name a new directory", file=sys.stderr)
        return 2
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="cardlab-cold-")) / "clone"
    try:
        subprocess.run(["git", "clone", "-q", str(Path(args.repo).resolve()), str(base)], check=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=base, capture_output=True, text=True)
        print(
            f"cold make run of {commit.stdout.strip()} in {base} ({os.cpu_count()} CPUs here, load {os.getloadavg()[0]:.1f})"
        )
        setup = timed(["make", ".venv/bin/.installed"], base, base.parent / "setup.log")
        if setup[2]:
            print(f"error: set-up failed (exit status {setup[2]}): {base.parent / 'setup.log'}", file=sys.stderr)
            return 1
        started = time.time()
        run = timed(["make", "run", f"CORES={args.cores}"], base, base.parent / "run.log")
        if run[2]:
            print(f"error: make run failed (exit status {run[2]}): {base.parent / 'run.log'}", file=sys.stderr)
            return 1
        records = shard_timings(base, started)
        work = sum(r["cpu_s"] for r in records)
        compiling = compile_estimate(records)
        stats = re.search(r"^total\s+(\d+)$", (base / "results/logs/snakemake.log").read_text(), re.M)
        jobs = int(stats.group(1)) if stats else -1  # Snakemake's "Job stats" total
        print(f"  set-up   {setup[0]:7.1f} CPU-s ({setup[1]:6.0f} s wall)")
        print(
            f"  run      {run[0]:7.1f} CPU-s ({run[1]:6.0f} s wall, load now {os.getloadavg()[0]:.1f}), {jobs} jobs, {len(records)} shards:"
        )
        print(f"    shard work  {work:7.1f}  (compiling about {compiling:.1f}, computing about {work - compiling:.1f})")
        print(f"    the rest    {run[0] - work:7.1f}  (start-up of each job, Snakemake, warehouse, reports, live view)")
        for game in sorted({r["game"] for r in records}):
            rs = [r for r in records if r["game"] == game]
            print(f"      {game:9s} {sum(r['cpu_s'] for r in rs):7.1f} CPU-s of shard work in {len(rs)} shards")
        verdict = "within" if run[0] <= BUDGET_CPU_S else "over"
        print(
            f"  the run is {run[0] / BUDGET_CPU_S:.2f}x the budget of {BUDGET_CPU_S:.0f} CPU-s ({verdict}); with set-up {setup[0] + run[0]:.1f}"
        )
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(base.parent, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
