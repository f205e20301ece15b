"""``cardlab run [snakemake options]``: snakemake with a compact live view.

It starts ``snakemake`` (default options: ``--cores all``) through the one runner
(engines/pipeline/snakemake/runner.py) with its own output sent to ``results/logs/snakemake.log``
and redraws ``cardlab status`` on the terminal until the run ends (exit status:
snakemake's).  A directory another run holds is refused at once in the run lock's words (and, should
one take it between that look and Snakemake's, in the same words from the lock's note); whatever ends
``cardlab run`` ends its Snakemake too (the runner).  Resuming after a killed run is the workflow's own
(engines/pipeline/snakemake/resume.py), so ``snakemake --cores all`` and ``cardlab run`` resume alike.
"""

from __future__ import annotations

import sys
import time

from ...core.errors import CardlabError
from ...core.layout import RESULTS
from ..bookkeeping.runstate import RUN_LOG, lock_refusal, refusal_of
from ..planning.plan import DEFAULT_CONFIG
from ..snakemake import options
from ..snakemake.failures import report_failures
from ..snakemake.runner import log_tail, run_snakemake, snakemake_command
from .view import Redraw


def cmd_run(args) -> int:
    """snakemake with its output in results/logs/snakemake.log and the live summary on the terminal."""
    # imported here: building the parser (every command's start-up) must load no heavy module, and the
    # campaign check loads the warehouse's (duckdb)
    from .campaign_work import FLAG, leave_for_run

    given = list(args.snakemake_args or ())
    allow = FLAG in given  # cardlab's own option among snakemake's
    given = [a for a in given if a != FLAG]
    cmd = snakemake_command(extra=given or options.RUN_EVERYTHING)
    args.config = options.config_files_of(cmd)  # the live view plans what the run plans
    here = options.runs_jobs(cmd) and not options.in_another_directory(cmd)
    if here:
        refuse_a_second_run()
        # more than a core-hour of shards only a campaign's ledger plans: asked on a terminal, else refused
        cmd = leave_for_run(cmd, args.config, allow, sys.stdin.isatty() and sys.stdout.isatty())
    print(f"cardlab run: {' '.join(cmd[1:]) or '(snakemake defaults)'}; snakemake's own output: {RUN_LOG}")
    started = time.time()
    try:
        # the view's clock counts from the command's start
        with Redraw(args, process=True, cores=options.cores_of(cmd)) as redraw:
            result = run_snakemake(cmd, RUN_LOG, redraw, args.every)
    except Exception:
        print(f"stopped: cardlab run failed; nothing of its snakemake is left running; log: {RUN_LOG}", file=sys.stderr)
        raise
    refused = refusal_of(result.pid, started) if result.rc != 0 and result.pid else None
    if refused:  # another run took the directory between the look above and snakemake's start
        print(f"error: {refused}", file=sys.stderr)
    elif result.interrupted:
        print(f"interrupted: resume with `cardlab run` (or `snakemake --cores all`); log: {RUN_LOG}")
    elif result.rc != 0:
        # each failed job's cause and fix; Snakemake's own words when no job said why (a bad config)
        if not report_failures(None, sys.stderr, RESULTS, since=started):
            print(log_tail(RUN_LOG), file=sys.stderr)
        print(f"error: snakemake failed (exit status {result.rc}); full log: {RUN_LOG}", file=sys.stderr)
    else:
        print("done: open reports/index.html")
    return result.rc


def refuse_a_second_run() -> None:
    """Refuse at once, in the lock's words, when another run holds this directory (the Snakefile would, after
    its start-up, in words the live view would hide)."""
    if refused := lock_refusal():
        raise CardlabError(refused)


EPILOG_RUN = """examples:
  cardlab run                          snakemake --cores all, with a live per-game view
  cardlab run --cores 8 -n             any snakemake options after `run` are passed on
  cardlab run --allow-campaign-work    recompute more than a core-hour of shards that only a campaign's
                                       ledger plans (on a terminal cardlab asks instead)"""


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
    r.set_defaults(func=cmd_run, follow=True, every=1.0, config=DEFAULT_CONFIG, results=RESULTS)
