"""``cardlab run [snakemake options]``: snakemake with a compact live view.

It starts ``snakemake`` (default options: ``--cores all``) with its own output sent
to ``results/logs/snakemake.log`` and redraws ``cardlab status`` on the terminal
until the run ends (exit status: snakemake's).  Resuming after a killed run is the
workflow's own (engines/pipeline/resume.py), so ``snakemake --cores all`` and
``cardlab run`` resume alike.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from .plan import snakemake_config_files, snakemake_executable
from .status import RUN_LOG, follow


def cmd_run(args) -> int:
    """snakemake with its output in results/logs/snakemake.log and the live summary on the terminal."""
    # imported here: building the parser (every command's start-up) must load no heavy module
    from .adopt import adopt_kept
    from .resume import asks_for_a_run

    snakemake = snakemake_executable()
    Path(RUN_LOG).parent.mkdir(parents=True, exist_ok=True)
    cmd = [snakemake, *(args.snakemake_args or ["--cores", "all"])]
    args.config = snakemake_config_files(cmd[1:])  # the live view plans what the run plans
    print(f"cardlab run: {' '.join(cmd[1:]) or '(snakemake defaults)'}; snakemake's own output: {RUN_LOG}")
    with open(RUN_LOG, "w") as log:
        if asks_for_a_run(cmd) and not {"-d", "--directory"} & {a.split("=")[0] for a in cmd}:
            adopt_kept(snakemake, args.config, log)
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = follow(args, proc)
        except KeyboardInterrupt:
            os.killpg(proc.pid, signal.SIGINT)  # snakemake stops its jobs and cleans up
            rc = proc.wait()
            print(f"interrupted: resume with `cardlab run` (or `snakemake --cores all`); log: {RUN_LOG}")
            return 130
    if rc != 0:
        tail = Path(RUN_LOG).read_text(errors="replace").splitlines()[-25:]
        print("\n".join(tail), file=sys.stderr)
        print(f"error: snakemake failed (exit status {rc}); full log: {RUN_LOG}", file=sys.stderr)
    else:
        print("done: open reports/index.html")
    return rc


EPILOG_RUN = """examples:
  cardlab run                          snakemake --cores all, with a live per-game view
  cardlab run --cores 8 -n             any snakemake options after `run` are passed on"""


def register(subparsers) -> None:
    import argparse

    r = subparsers.add_parser(
        "run",
        help="run snakemake with a compact live view (its own output goes to results/logs/snakemake.log)",
        description="Runs snakemake (default options: --cores all) and redraws `cardlab status` "
        f"until it ends; snakemake's output is written to {RUN_LOG}. Exit status: snakemake's.",
        epilog=EPILOG_RUN,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("snakemake_args", nargs=argparse.REMAINDER, help="options passed on to snakemake")
    r.set_defaults(func=cmd_run, follow=True, every=1.0, config="config.yaml", results="results")
