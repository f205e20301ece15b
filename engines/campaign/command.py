"""One campaign command for every game: where a campaign stands, its next shards, its ledger.

``cardlab campaign GAME NAME`` (and its alias ``cardlab GAME campaign NAME``, the same parser)
reads the campaign's finished shards through the game's book (engines/campaign/book.py), says
what the config's block and the ledger keep, and with ``--run N`` computes the next N shards
through the one Snakemake runner (engines/campaign/shards.py) under a run config of its own,
keeping each in the ledger as it finishes; ``--keep`` records the finished shards found under
results/ (computed elsewhere and copied in) and rebuilds a ledger that cannot be read.  The
user's config is never written: only a campaign block (``campaign: true``) plans from the ledger.
"""

from __future__ import annotations

import os
import shlex
import sys
import time

from ..core.bookkeeping import left_out
from ..core.errors import CardlabError
from ..core.fmt import duration, hours_text, listed, plural
from ..core.layout import RESULTS, ledger_path, logs_dir, timing_of
from ..core.ledger import Ledger, LedgerError, read_ledger, record_kept, write_ledger
from ..core.runs import runs_of, runs_text
from ..core.yamlfile import read_yaml
from ..pipeline.bookkeeping import runstate  # its lock_refusal looked up at the call: tests stand in for it
from ..pipeline.bookkeeping.records import timing_of_log as read_timing
from ..pipeline.commands.campaign_work import shard_prices
from ..pipeline.planning.plan import Plan, load_config
from . import shards as runner  # its run_shards looked up at the call: tests stand in for it
from .book import ALLOW_LONG, LONG_SHARD_CPU_S, Campaign, CampaignBook, agreed_per_shard, book_of
from .state import CampaignState


def main(args) -> int:
    """``cardlab campaign GAME NAME ...`` and its alias ``cardlab GAME campaign NAME ...``: the game's book
    runs the one command."""
    return campaign_command(book_of(args.campaign_game), args)


def campaign_command(book: CampaignBook, args) -> int:
    """Run the command the parsed arguments ask for; returns the exit status."""
    if args.run is not None and args.keep:
        raise CardlabError("--run keeps each shard it finishes in the ledger; give --run or --keep, not both")
    if args.run is not None:
        ready_to_run(args.results, args.cores)
    campaign = book.campaign(args)
    state = book.finished(campaign, args.results, read_timing)
    rc = 0
    if args.run is not None:
        rc = run_next(book, campaign, state, args, read_timing)
        state = book.finished(campaign, args.results, read_timing)
    elif args.keep:
        keep_finished(book, campaign, state, args)
    print("\n".join(book.describe(campaign, state, args.results, status_lines(book, campaign, state, args), args)))
    return rc


def ready_to_run(results: str, cores: int) -> None:
    """--run's preconditions, checked before anything is read or started."""
    if os.path.normpath(results) != RESULTS:
        raise CardlabError(f"--run computes shards under {RESULTS}/ of this directory (the workflow's); drop --results")
    if not os.path.isfile("Snakefile"):
        raise CardlabError("--run needs the workflow: run it in the directory that holds the Snakefile")
    if cores < 1:
        raise CardlabError(f"--cores must be at least 1, got {cores}")
    os.makedirs(RESULTS, exist_ok=True)


def the_ledger(campaign: Campaign, results: str, grid_of: tuple[int | None, str] = (None, "")) -> Ledger | None:
    """The campaign's ledger, refused (LedgerError) when it lies on another grid than ``grid_of``: the
    config block's per_shard and where it says so (a ledger mixing two grids proves nothing)."""
    per_shard, source = grid_of
    return read_ledger(*campaign.place, campaign.grid(per_shard, source or "the campaign's config"), root=results)


def block_grid(book: CampaignBook, campaign: Campaign, args) -> tuple[int | None, str]:
    """The config block's grid and its words: what the ledger must lie on."""
    block = the_block(book, campaign, user_config(args.config), args.config)
    return (book.block_per_shard(block) if block else None), f"the {campaign.label} block of {args.config}"


def user_config(path: str) -> dict | None:
    return read_yaml(path) if os.path.isfile(path) else None


def the_block(book: CampaignBook, campaign: Campaign, config: dict | None, where: str) -> dict | None:
    """The config's block of the campaign; {} for one that cannot be a campaign's (it plans more)."""
    if config is None:
        return None
    try:
        return book.block(config, campaign, where)
    except CardlabError:
        return {}


def per_shard_of(book: CampaignBook, campaign: Campaign, state: CampaignState, args, ledger: Ledger | None) -> int:
    """The campaign's grid: the finished shards', the option's, the config block's or the ledger's, agreed."""
    if args.per_shard is not None and args.per_shard > campaign.total:
        raise CardlabError(
            f"{campaign.option} {args.per_shard:,}: {campaign.label} has {campaign.total:,} {campaign.unit} in all; "
            f"give at most {campaign.total:,}"
        )
    block = the_block(book, campaign, user_config(args.config), args.config)
    return agreed_per_shard(
        campaign,
        {
            "the finished shards": state.per_shard,
            campaign.option: args.per_shard,
            f"the {campaign.label} block of {args.config}": book.block_per_shard(block) if block else None,
            "the campaign's ledger": ledger.per_shard if ledger else None,
        },
    )


def keep_finished(book: CampaignBook, campaign: Campaign, state: CampaignState, args) -> None:
    """`--keep`: every finished shard under the results tree, into the ledger.

    A ledger that cannot be read (not JSON, runs off the grid, ...) is rebuilt from the finished shards
    alone: they are what its error message sends the user here to keep."""
    path = ledger_path(*campaign.place, root=args.results)
    try:
        ledger, broken = the_ledger(campaign, args.results, block_grid(book, campaign, args)), None
    except LedgerError as exc:
        ledger, broken = None, exc
    if not state.shards and broken is None:
        print(f"{campaign.label}: no finished shard under {args.results}/ to keep")
        return
    try:
        per_shard = per_shard_of(book, campaign, state, args, ledger)
    except CardlabError as exc:
        if broken is None:
            raise
        raise CardlabError(f"{path}: {broken.problem}; to rebuild it, {exc}") from None
    numbers = [s.shard for s in state.shards]
    if broken is not None:
        kept = write_ledger(Ledger.of(*campaign.place, per_shard, numbers), args.results)
        print(f"{campaign.label}: {path} could not be read ({broken.problem}); rebuilt from the finished shards")
        text = f" ({kept.text()})" if kept else ""
        print(f"{campaign.label}: the ledger keeps {plural(kept.count, 'shard')}{text}")
        return
    kept = record_kept(*campaign.place, per_shard, numbers, campaign.grid(), root=args.results)
    print(f"{campaign.label}: {plural(kept.without(ledger or ()).count, 'shard')} newly kept in the ledger")


def status_lines(book: CampaignBook, campaign: Campaign, state: CampaignState, args) -> list[str]:
    """What the config's block is (a campaign block or not) and what the ledger keeps."""
    where, label = args.config, campaign.label
    config = user_config(where)
    block = the_block(book, campaign, config, where)
    if config is None:
        lines = [f"  {where}: not found here, so no block of {label} to read"]
    elif block is None:
        lines = [
            f"  {where} has no {label} block; to plan the ledger's shards, add one with "
            f"`campaign: true` ({book.block_hint(campaign)})"
        ]
    elif block.get("campaign"):
        lines = [f"  {where}'s {label} block is a campaign block (campaign: true): it plans the ledger's shards"]
    else:
        lines = [
            f"  {where}'s {label} block is not a campaign block: it plans its own {campaign.unit}, not a "
            "ledger's shards (with `campaign: true` it plans exactly the shards the ledger keeps)"
        ]
    if bad := campaign_left_out(campaign, args.results):
        lines.append(
            f"  {plural(len(bad), 'timing record')} left out of the CPU above (each fails its schema): "
            f"{listed([b.path for b in bad], 2)}; `cardlab verify` for the fix"
        )
    ledger = the_ledger(campaign, args.results, block_grid(book, campaign, args))
    path = ledger_path(*campaign.place, root=args.results)
    if ledger is None:
        plain = bool(block) and not block.get("campaign")  # a block of its own items: no ledger to speak of
        return lines if plain else [*lines, f"  ledger {path}: keeps no shard yet"]
    lines.append(
        f"  ledger {path}: keeps {plural(ledger.count, 'shard')} ({ledger.text()}) of "
        f"{ledger.per_shard:,} {campaign.unit}"
    )
    finished = {s.shard for s in state.shards}
    if unkept := [n for n in finished if n not in ledger]:
        lines.append(
            f"  finished but not in the ledger: shards {runs_text(runs_of(unkept))} (keep them: {campaign.command} --keep)"
        )
    if missing := ledger.without(finished):
        lines.append(
            f"  in the ledger but not finished under {args.results}/: shards {missing.text()} "
            "(a campaign block plans them, so a run recomputes them)"
        )
    return lines


def campaign_left_out(campaign: Campaign, results: str) -> list:
    """The campaign's timing records that fail their schema (engines/core/bookkeeping.py): read past."""
    mine = os.path.dirname(timing_of(campaign.log(0, results))) + os.sep
    return [b for b in left_out(results) if b.path.startswith(mine)]


def run_next(book: CampaignBook, campaign: Campaign, state: CampaignState, args, timing) -> int:
    """`--run N`: Snakemake computes the next N shards left, each kept in the ledger as it finishes."""
    if refused := runstate.lock_refusal():  # before the header that announces a run
        raise CardlabError(refused)
    config = load_config([args.config])
    ledger = the_ledger(campaign, args.results, block_grid(book, campaign, args))
    per_shard = per_shard_of(book, campaign, state, args, ledger)
    shards = state.next_shards(per_shard, args.run, args.from_ == "top")
    if not shards:
        print(f"{campaign.label}: every shard is finished; nothing to run")
        return 0
    stamp = time.strftime("%Y%m%dT%H%M%S")
    log = f"{logs_dir(args.results)}/campaigns/{campaign.game}-{campaign.experiment}-{stamp}.log"
    items = sum(b - a for a, b in campaign.windows(shards, per_shard))
    backend = getattr(args, "backend", None)
    run_config = book.run_config(config, campaign, shards, per_shard, backend)
    prices = next_prices(book, campaign, state, config, shards, per_shard, backend)
    refusal = None if getattr(args, "allow_long_shards", False) else long_shards_refusal(campaign, prices)
    print(
        f"{campaign.label}: {plural(len(shards), 'shard')} ({runs_text(runs_of(shards))}, {items:,} {campaign.unit}) "
        f"{price_words(prices)} on {plural(args.cores, 'core')}" + ("" if refusal else f"; snakemake's output: {log}"),
        flush=True,
    )
    if refusal:
        raise CardlabError(refusal)
    run_config["shard_order"] = "descending" if shards[0] > shards[-1] else "ascending"  # the run's order
    run_config["allow_campaign_work"] = (
        True  # this command asks for the work (engines/pipeline/commands/campaign_work.py)
    )

    def finished(name: str) -> str:
        a, b = campaign.window(int(name), per_shard)
        cpu = (timing(campaign.log(int(name))) or {}).get("cpu_s")
        return f"shard {name} [{a:,}, {b:,}) done" + (f", {duration(cpu)} of CPU" if cpu is not None else "")

    rc, _ = runner.run_shards(
        {str(n): campaign.files(n) for n in shards},
        run_config,
        args.cores,
        log,
        shlex.split(args.snakemake),
        args.nice,
        finished=finished,
        logs={str(n): campaign.log(n) for n in shards},
        work={str(n): b - a for n in shards for a, b in [campaign.window(n, per_shard)]},
        command=shlex.join(["cardlab", *sys.argv[1:]]),  # what `cardlab status` says is running
        kept=lambda name: record_kept(*campaign.place, per_shard, [int(name)], campaign.grid()),
    )
    return rc


def next_prices(
    book: CampaignBook,
    campaign: Campaign,
    state: CampaignState,
    config: dict,
    shards: list[int],
    per_shard: int,
    backend,
) -> dict[int, float | None]:
    """The next shards' prices, planned beside the finished shards: their timing records measure the
    campaign's rate on this grid (a plan of the new shards alone knows only the kind's estimate)."""
    finished = [s.shard for s in state.shards]
    priced_with = book.run_config(config, campaign, sorted({*finished, *shards}), per_shard, backend)
    return shard_prices_of(priced_with, campaign, shards)


def shard_prices_of(run_config: dict, campaign: Campaign, shards: list[int]) -> dict[int, float | None]:
    """Each shard's price in core-seconds on this machine, as the live view prices work left
    (engines/pipeline/commands/campaign_work.py), from a config planning them and the finished shards that measure them;
    None where nothing prices it."""
    plan = Plan.build(dict(run_config), f"the run config of {campaign.label}")
    planned = [plan.shard(*campaign.place, n) for n in shards]
    by_log = shard_prices(plan, planned)
    return {n: by_log[s.log] for n, s in zip(shards, planned, strict=True)}


def price_words(prices: dict[int, float | None]) -> str:
    """'priced at about 2.30 core-hours (the longest shard 0.400)', '... about 3 s of CPU', or what cannot be priced."""
    known = [p for p in prices.values() if p is not None]
    unknown = len(prices) - len(known)
    words = f"priced at about {cpu_words(sum(known))}" if known else "not priced"
    if len(known) > 1:
        words += f" (the longest shard {cpu_words(max(known))})"
    return words + (f", {plural(unknown, 'shard')} that nothing prices" if known and unknown else "")


def cpu_words(seconds: float) -> str:
    """CPU time at the scale a person reads it: core-hours from an hour, else a duration (under 1 s: '< 1 s')."""
    if seconds >= 3600:
        return f"{hours_text(seconds / 3600)} core-hours"
    return f"{duration(seconds) if seconds >= 0.5 else '< 1 s'} of CPU"


def long_shards_refusal(campaign: Campaign, prices: dict[int, float | None]) -> str | None:
    """Why the shards may not start without ``ALLOW_LONG`` (one priced above ``LONG_SHARD_CPU_S``, or one that
    cannot be priced, which counts as above it); None when they may."""
    long = {n: p for n, p in prices.items() if p is None or p > LONG_SHARD_CPU_S}
    if not long:
        return None
    unpriced = [n for n, p in long.items() if p is None]
    why = (
        f"shard(s) {runs_text(runs_of(unpriced))} cannot be priced: no measured shard and no price of the kind"
        if unpriced
        else f"the longest priced at about {hours_text(max(long.values()) / 3600)} core-hours"
    )
    return (
        f"{campaign.label}: {plural(len(long), 'shard')} of more than {LONG_SHARD_CPU_S / 3600:g} core-hours each "
        f"({why}); nothing started: give a smaller {campaign.option} for shorter shards, or {ALLOW_LONG} to "
        "start them as they are"
    )
