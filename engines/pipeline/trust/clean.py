"""``cardlab clean``: list, and with ``--remove`` delete, the files under results/ that no plan owns.

"No plan owns" is what ``cardlab verify`` reports as *unexpected* or *leftover* for the
same config: shards of a removed experiment or of a shard count no longer planned,
stray copies, temporaries of interrupted writes, and the job logs and timing records of those shards.
Never removed: a planned file, a kept campaign file (a sound shard of a pinned result
version, whatever the config), and anything git tracks.  Removing deletes the files
(they are results no plan uses; recomputing them is what a plan that wants them does).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ...core.layout import log_of_shard_file, log_path, timing_of
from ..bookkeeping.runstate import hold_run_lock, lock_refusal
from ..planning.plan import load_plan, run_config_files
from .repair import is_tracked
from .verify import unplanned


@dataclass
class Cleanup:
    """What clean would remove, and what it leaves although no plan names it."""

    remove: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    tracked: list[Path] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(p.stat().st_size for p in self.remove if p.exists())


def planned_logs(plan: dict, results: str) -> set[str]:
    """The job logs of the planned shards (never removed)."""
    return {
        os.path.normpath(log_path(game, spec["experiment"], spec["variant"], int(spec["shard"]), results))
        for game, _table, spec in plan.values()
    }


def orphan_logs(orphans: list[Path], plan: dict, results: str) -> list[Path]:
    """The job logs and timing records of unplanned shard files, unless a planned shard writes the same log."""
    keep = planned_logs(plan, results)
    logs = {f for p in orphans if (f := log_of_shard_file(p)) and os.path.normpath(f) not in keep}
    return sorted(Path(f) for log in logs for f in (log, timing_of(log)) if os.path.exists(f))


def cleanup(results: str, config) -> Cleanup:
    """What no plan of ``config`` owns under ``results``, sorted into removable, kept and tracked."""
    plan = load_plan(config, results).files
    found = unplanned(results, plan)
    out = Cleanup(kept=found.kept)
    candidates = found.leftovers + found.orphans
    for p in sorted(candidates + orphan_logs(found.orphans, plan, results)):
        (out.tracked if is_tracked(p) else out.remove).append(p)
    return out


def cmd_clean(args) -> int:
    config = run_config_files(args.config or ())
    found = cleanup(args.results, config)
    verb = "removing" if args.remove else "would remove"
    for p in found.remove:
        print(f"{verb}: {p}")
    for p in found.tracked:
        print(f"left alone: {p}: tracked by git (restore it with `git checkout -- {p}` or remove it with git rm)")
    if found.kept:
        print(f"left alone: {len(found.kept)} kept campaign file(s) (sound, of a pinned result version)")
    if not found.remove:
        print(f"clean: nothing under {args.results}/ outside the plan of {' + '.join(config)}")
        return 0
    size = f"{found.size / 1e6:,.1f} MB"
    if not args.remove:
        print(
            f"clean: {len(found.remove)} file(s) ({size}) that no plan of {' + '.join(config)} owns; "
            "delete them with `cardlab clean --remove`"
        )
        return 0
    if not hold_run_lock():  # its temporaries are live: the one refusal, in the lock's words
        print(f"error: {lock_refusal() or 'another snakemake run is working in this directory'}", file=sys.stderr)
        return 1
    for p in found.remove:
        p.unlink(missing_ok=True)
    print(f"clean: removed {len(found.remove)} file(s) ({size})")
    return 0
