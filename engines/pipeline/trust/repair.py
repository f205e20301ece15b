"""``cardlab recompute``: mend a results tree without losing what it holds.

It moves damaged shard files aside (under ``results/damaged/``, never
deleted) and runs the workflow, which computes exactly the planned files now missing
and rebuilds the warehouse and reports after them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ...core import argtypes
from ...core.errors import CardlabError
from ...core.fmt import duration
from ...core.layout import RESULTS, parse_shard_path, timing_of_shard_file
from ..planning.plan import DEFAULT_CONFIG

DAMAGED = "damaged"  # results/damaged/<path inside results>.<n>: files recompute moved aside


def recompute_cost(path: str | os.PathLike) -> str:
    """What recomputing a shard file costs, from its job's timing record ('' when unmeasured)."""
    from ..bookkeeping.records import read_timing

    record = timing_of_shard_file(path)
    timing = read_timing(record)
    if not timing or timing.get("cpu_s") is None:
        return ""
    # a small shard can time at 0.0 CPU-s: measured, just short
    cpu_s = float(timing["cpu_s"])
    cost = f"about {duration(cpu_s)}" if cpu_s >= 0.5 else "under a second"
    return f"{cost} of CPU (measured: {record})"


def is_tracked(path: str | os.PathLike) -> bool:
    """Whether git tracks ``path`` (a kept campaign file), so the committed copy can be restored."""
    try:
        res = subprocess.run(
            ["git", "ls-files", "--error-unmatch", str(path)], capture_output=True, cwd=Path(path).parent, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return res.returncode == 0


def damaged_hint(path: str) -> str:
    """How to get a damaged shard back: its cost, the one command, and the committed copy if there is one."""
    cost = recompute_cost(path)
    hint = f"recompute it with `cardlab recompute {path}`" + (f" ({cost})" if cost else "")
    if is_tracked(path):
        hint = f"a kept campaign file: restore the committed copy with `git checkout -- {path}`, or {hint}"
    return hint


def quarantine(path: Path, results: Path) -> Path:
    """Move ``path`` to results/damaged/ under a name no earlier move took."""
    inside = path.resolve().relative_to(results.resolve())
    n = 0
    while (dest := results / DAMAGED / f"{inside}.{n}").exists():
        n += 1
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(path, dest)
    return dest


def cmd_recompute(args) -> int:
    from ..planning.plan import load_plan, snakemake_executable

    results = Path(args.results)
    plan = load_plan(args.config, str(results)).files
    paths = [Path(p) for p in args.paths]
    planned_paths = {os.path.normpath(k) for k in plan}
    for p in paths:
        if parse_shard_path(p) is None or os.path.normpath(p) not in planned_paths:
            raise CardlabError(
                f"{p}: not a shard file {args.config} plans; recompute needs a config that plans it "
                "(a kept campaign's block, see docs/redblack.md)"
            )
    for p in paths:
        if p.exists():
            print(f"recompute: {p} moved aside to {quarantine(p, results)}")
    cmd = [snakemake_executable(), "--cores", args.cores]
    if args.config != DEFAULT_CONFIG:
        cmd += ["--configfile", args.config]
    print(f"recompute: {' '.join(cmd)}", flush=True)
    return subprocess.call(cmd)


def register(subparsers) -> None:
    import argparse

    raw = argparse.RawDescriptionHelpFormatter
    r = subparsers.add_parser(
        "recompute",
        help="move damaged shard files aside and recompute them (then the warehouse and reports)",
        description="Moves each named shard file to results/damaged/ (nothing is deleted) and runs "
        "`snakemake --cores CORES`, which recomputes the planned files now missing.",
        epilog="examples:\n  cardlab recompute results/redblack/redblack_found/exhaustive_k16/owner/shard=0000.parquet",
        formatter_class=raw,
    )
    r.add_argument("paths", nargs="+", type=argtypes.file_path, help="shard files to recompute")
    r.add_argument("--results", type=argtypes.folder, default=RESULTS, help="results tree (default: %(default)s)")
    r.add_argument(
        "--config",
        type=argtypes.existing_file,
        default=DEFAULT_CONFIG,
        help="config that plans them (default: %(default)s)",
    )
    r.add_argument(
        "--cores",
        type=argtypes.cores_or_all,
        default="all",
        help="snakemake --cores: all or 1..4096 (default: %(default)s)",
    )
    r.set_defaults(func=cmd_recompute)
