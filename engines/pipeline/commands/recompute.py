"""``cardlab recompute``: damaged shard files moved aside (engines/pipeline/trust/repair.py), then the
workflow run through the one door (engines/pipeline/snakemake/), which computes exactly the planned files
now missing and rebuilds the warehouse and reports after them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

from ...core import argtypes
from ...core.errors import CardlabError
from ...core.layout import RESULTS, parse_shard_path
from ..planning.plan import DEFAULT_CONFIG, load_plan
from ..snakemake.runner import snakemake_command
from ..trust.repair import quarantine


def cmd_recompute(args) -> int:
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
    configfiles = [args.config] if args.config != DEFAULT_CONFIG else []
    cmd = snakemake_command(configfiles=configfiles, cores=args.cores)
    print(f"recompute: {' '.join(cmd)}", flush=True)
    return subprocess.call(cmd)


def register(subparsers) -> None:
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
