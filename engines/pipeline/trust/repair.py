"""Mend a results tree without losing what it holds: a damaged shard file moved aside (under
``results/damaged/``, never deleted), and what recomputing it costs.  ``cardlab recompute``, which then
runs the workflow, is engines/pipeline/commands/recompute.py.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ...core.fmt import duration
from ...core.layout import timing_of_shard_file
from ..bookkeeping.records import read_timing

DAMAGED = "damaged"  # results/damaged/<path inside results>.<n>: files recompute moved aside


def recompute_cost(path: str | os.PathLike) -> str:
    """What recomputing a shard file costs, from its job's timing record ('' when unmeasured)."""
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
