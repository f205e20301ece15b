"""``cardlab redblack campaign K``: where a size's campaign stands, its next shards, its ledger.

A campaign's kept shards are listed in its ledger (engines/core/ledger.py), which cardlab
owns; the user's config says only that the size's block is a campaign (``campaign: true``)
and is never written.  ``--run N`` computes the next N shards through the one Snakemake
runner (engines/pipeline/shard_run.py) under a run config of its own and records each
shard in the ledger as it finishes; ``--keep`` records the finished shards found under
results/ (computed elsewhere and copied in).  The ledger is written whatever the config's
block says: it is the record of what the campaign computed and only a campaign block
plans from it, so recording costs a block that is not one nothing, and a block that
becomes one later plans what was computed without a ``--keep``.
"""

from __future__ import annotations

import os
import shlex
import sys
import time

from ...core.errors import CardlabError
from ...core.fmt import plural
from ...core.layout import RESULTS, ledger_path
from ...pipeline.plan import DEFAULT_CONFIG

CAMPAIGN_EXAMPLES = """examples:
  cardlab redblack campaign 22             k = 22's finished shards, its config block and ledger, the shards left
  cardlab redblack campaign 21 --results /shared/campaign/results
  cardlab redblack campaign 23 --run 4 --from top --cores 2 --nice 19
                                           the next 4 shards from the top, each kept in the ledger
  cardlab redblack campaign 23 --keep      keep in the ledger the finished shards copied into results/
  cardlab redblack campaign 24 --run 1 --deals-per-shard 20000000000     a new size's first shard
  cardlab redblack campaign 26 --run 500 --snakemake='--workflow-profile workflow/profiles/slurm'"""


def add_campaign(sub, raw) -> None:
    """``cardlab redblack campaign``: where a size's rank-window campaign stands."""
    c = sub.add_parser(
        "campaign",
        help="a size's finished search shards: coverage, CPU, its config block and ledger, the shards left",
        description="Reads the finished exhaustive shards of size K under a results tree (every table checked) "
        "and prints the ranks they searched, their CPU time from the job logs, whether the size's block in the "
        "config is a campaign block (`campaign: true`: it plans the shards its ledger keeps), what the ledger "
        "keeps, and the shards left.",
        epilog=CAMPAIGN_EXAMPLES,
        formatter_class=raw,
    )
    c.add_argument("k", type=int, help="cards per player, 1..26")
    c.add_argument("--method", choices=("owner", "brute"), default="owner", help="the shards' method (default: owner)")
    c.add_argument("--results", default=RESULTS, help="results tree (default: %(default)s)")
    c.add_argument(
        "--config", default=DEFAULT_CONFIG, help="the config the campaign's block is in (default: %(default)s)"
    )
    c.add_argument(
        "--keep",
        action="store_true",
        help="record every finished, checked shard of the size under the results tree in the campaign's ledger",
    )
    r = c.add_argument_group("running the next shards (Snakemake, in this directory's workflow)")
    r.add_argument("--run", type=int, metavar="N", help="compute the next N shards left, then show the campaign")
    r.add_argument(
        "--from",
        dest="from_",
        choices=("bottom", "top"),
        default="bottom",
        help="which end of the ranks left (default: bottom)",
    )
    r.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="cores for Snakemake (default: all)")
    r.add_argument("--deals-per-shard", type=int, help="the shard grid of a campaign with no finished shard yet")
    r.add_argument("--nice", type=int, default=0, help="run Snakemake and its jobs at this niceness (default: 0)")
    r.add_argument(
        "--backend",
        choices=("scalar", "gpu"),
        help="compute the shards on the CPU (scalar) or an NVIDIA GPU (gpu: pip install -e .[gpu]); "
        "default: the size's block's backend.  Results are the same bits either way",
    )
    r.add_argument(
        "--snakemake",
        default="",
        metavar="ARGS",
        help="more Snakemake options: --snakemake='--workflow-profile workflow/profiles/slurm'",
    )
    c.set_defaults(func=cmd_campaign)


def cmd_campaign(args) -> int:
    from ...pipeline.jobs import read_timing
    from ..campaign import campaign_state, describe
    from ..campaign_next import ready_to_run

    if args.run is not None and args.keep:
        raise CardlabError("--run keeps each shard it finishes in the ledger; give --run or --keep, not both")
    if args.run is not None:
        ready_to_run(args.results, args.cores)
        if args.backend == "gpu":
            from ..gpu import cuda_module

            cuda_module()  # no GPU or no numba-cuda: say so before Snakemake starts
    elif args.backend is not None:
        raise CardlabError("--backend chooses how --run computes shards; give it with --run")
    state = campaign_state(args.k, args.method, args.results, timing=read_timing)
    rc = 0
    if args.run is not None:
        rc = run_campaign(args, state, read_timing)
        state = campaign_state(args.k, args.method, args.results, timing=read_timing)
    elif args.keep:
        keep_finished(args, state)
    book = campaign_lines(state, args.config, args.results)
    print("\n".join(describe(state, args.results, cost_left(state, args.results), book)))
    return rc


def cost_left(state, results: str) -> str | None:
    """The rest's cost as the report prices it (engines/redblack/report/cost.py), when there is a warehouse."""
    import duckdb

    from ...pipeline.snapshot import warehouse_in
    from ...pipeline.warehouse import connect
    from ..campaign import cost_left_text
    from ..report.cost import cost_line, costs_to_finish
    from ..report.queries import coverage_of

    db = warehouse_in(results)
    try:  # a warehouse being rebuilt, or one without RedBlack, only costs this line
        with connect(db) as con:
            coverage = coverage_of(con, state.k)
            costs = costs_to_finish(con).get(state.k, [])
    except (CardlabError, duckdb.Error):
        return None
    return cost_left_text(state, coverage, costs, cost_line, db) if coverage else None


def the_ledger(k: int, method: str, results: str):
    """The size's campaign ledger under the results tree (None: it keeps nothing yet) and its path."""
    from ...core.ledger import read_ledger
    from ..campaign import GAME
    from ..search_shards import EXHAUSTIVE_VARIANT, exhaustive_experiment, ledger_grid

    place = (GAME, exhaustive_experiment(k), EXHAUSTIVE_VARIANT[method])
    return read_ledger(*place, ledger_grid(k, method, results), root=results), ledger_path(*place, root=results)


def keeper(k: int, method: str, per_shard: int, results: str = RESULTS):
    """A function that records shards (by number) in the size's ledger."""
    from ...core.ledger import record_kept
    from ..campaign import GAME
    from ..search_shards import EXHAUSTIVE_VARIANT, exhaustive_experiment, ledger_grid

    experiment = exhaustive_experiment(k)
    variant = EXHAUSTIVE_VARIANT[method]
    grid = ledger_grid(k, method, results)
    return lambda shards: record_kept(GAME, experiment, variant, per_shard, shards, grid, root=results)


def keep_finished(args, state) -> None:
    """`campaign K --keep`: every finished shard of the size under the results tree, into its ledger.

    A ledger that cannot be read (not JSON, runs off the grid, ...) is rebuilt from the finished shards
    alone: they are what its error message sends the user here to keep."""
    from ...core.ledger import Ledger, LedgerError, write_ledger
    from ...pipeline.config import read_yaml
    from ..campaign import GAME
    from ..campaign_next import shard_grid_of
    from ..search_shards import EXHAUSTIVE_VARIANT, exhaustive_experiment

    place = (GAME, exhaustive_experiment(state.k), EXHAUSTIVE_VARIANT[state.method])
    path = ledger_path(*place, root=args.results)
    try:
        ledger, broken = the_ledger(state.k, state.method, args.results)[0], None
    except LedgerError as exc:
        ledger, broken = None, exc
    if not state.shards and broken is None:
        print(f"k = {state.k}: no finished shard under {args.results}/ to keep")
        return
    config = read_yaml(args.config) if os.path.isfile(args.config) else {}
    try:
        grid = shard_grid_of(state, config, args.deals_per_shard, args.config, ledger.per_shard if ledger else None)
    except CardlabError as exc:
        if broken is None:
            raise
        raise CardlabError(f"{path}: {broken.problem}; to rebuild it, {exc}") from None
    if broken is not None:
        kept = write_ledger(Ledger.of(*place, grid, [s.shard for s in state.shards]), args.results)
        print(f"k = {state.k}: {path} could not be read ({broken.problem}); rebuilt from the finished shards")
        print(f"k = {state.k}: the ledger keeps {plural(kept.count, 'shard')}" + (f" ({kept.text()})" if kept else ""))
        return
    kept = keeper(state.k, state.method, grid, args.results)([s.shard for s in state.shards])
    print(f"k = {state.k}: {plural(kept.without(ledger or ()).count, 'shard')} newly kept in the ledger")


def campaign_lines(state, config_path: str, results: str) -> list[str]:
    """What the config's block of the size is (a campaign block or not) and what its ledger keeps."""
    from ...pipeline.config import read_yaml
    from ..campaign_next import campaign_block, shard_runs

    k = state.k
    method = state.method
    config = read_yaml(config_path) if os.path.isfile(config_path) else None
    try:
        block = campaign_block(config, k, method, config_path) if config is not None else None
    except CardlabError:  # a block of several sizes: no campaign block, which needs one of its own
        block = {}
    if config is None:
        lines = [f"  {config_path}: not found here, so no block of k = {k} to read"]
    elif block is None:
        lines = [
            f"  {config_path} has no k = {k} block ({method}); to plan the ledger's shards, add one with "
            f"`campaign: true` (`- k: [{k}]`, `method: {method}`, its deals_per_shard)"
        ]
    elif block.get("campaign"):
        lines = [f"  {config_path}'s k = {k} block is a campaign block (campaign: true): it plans the ledger's shards"]
    else:
        lines = [
            f"  {config_path}'s k = {k} block is not a campaign block: it plans its ranks, not a ledger's shards "
            "(with `campaign: true` it plans exactly the shards the ledger keeps)"
        ]
    ledger, path = the_ledger(k, method, results)
    if ledger is None:
        plain = block is not None and not block.get("campaign")  # a block of its own ranks: no ledger to speak of
        return lines if plain else [*lines, f"  ledger {path}: keeps no shard yet"]
    lines.append(
        f"  ledger {path}: keeps {plural(ledger.count, 'shard')} ({ledger.text()}) of {ledger.per_shard:,} deals"
    )
    finished = {s.shard for s in state.shards}
    unkept = [n for n in finished if n not in ledger]
    if unkept:
        lines.append(
            f"  finished but not in the ledger: shards {shard_runs(unkept)} "
            f"(keep them: cardlab redblack campaign {k} --keep)"
        )
    missing = ledger.without(finished)
    if missing:
        lines.append(
            f"  in the ledger but not finished under {results}/: shards {missing.text()} "
            "(a campaign block plans them, so a run recomputes them)"
        )
    return lines


def run_campaign(args, state, timing) -> int:
    """`campaign K --run N`: Snakemake computes the next N shards (engines/redblack/campaign_next.py),
    each kept in the ledger as it finishes."""
    from ...pipeline.plan import load_config
    from ...pipeline.shard_run import run_shards
    from ..campaign_next import finished_line, plan_run, run_config, shard_runs

    config = load_config([args.config])
    ledger, _ = the_ledger(state.k, state.method, args.results)
    grid = ledger.per_shard if ledger else None
    run = plan_run(state, config, args.run, args.from_ == "top", args.deals_per_shard, args.config, grid)
    if not run.shards:
        print(f"k = {run.k}: every shard is finished; nothing to run")
        return 0
    log = f".snakemake/log/cardlab-campaign-k{run.k:02d}-{time.strftime('%Y%m%dT%H%M%S')}.log"  # beside snakemake's
    print(
        f"k = {run.k}: {plural(len(run.shards), 'shard')} ({shard_runs(run.shards)}, {run.deals:,} deals) "
        f"on {plural(args.cores, 'core')}; snakemake's output: {log}",
        flush=True,
    )
    record = keeper(run.k, run.method, run.deals_per_shard)
    rc, _ = run_shards(
        {str(n): files for n, files in run.files().items()},
        run_config(config, run, args.config, args.backend),
        args.cores,
        log,
        shlex.split(args.snakemake),
        args.nice,
        finished=lambda name: finished_line(run, int(name), timing),
        logs=run.logs(),
        work=run.work(),
        command=shlex.join(["cardlab", *sys.argv[1:]]),  # what `cardlab status` says is running
        kept=lambda name: record([int(name)]),
    )
    return rc
