"""``cardlab redblack ...``: replay a deal, search one size exhaustively, list a cycle's basin."""

from __future__ import annotations

import argparse
import os
import sys
import time

from ..core.errors import CardlabError
from .rules import BASIN_MAX_STATES

REPLAY_ROUNDS = 4  # rounds shown in full by `replay` before the summary

REPLAY_EXAMPLES = """examples:
  cardlab redblack replay 10 110           the seed's 5-card infinite game
  cardlab redblack replay 001101 100011 --rounds 10"""
SEARCH_EXAMPLES = """examples:
  cardlab redblack search 10               every canonical infinite balanced deal of size 10
  cardlab redblack search 12 --csv > k12.csv
  cardlab redblack search 15 --method brute --jobs 1          every game to its end (longest game too)
  cardlab redblack search 20 --ranks 0:2000000000             one rank window of a campaign"""
BASIN_EXAMPLES = """examples:
  cardlab redblack basin 001101 100011"""
RANK_EXAMPLES = """examples:
  cardlab redblack rank 0011 1100"""
CAMPAIGN_EXAMPLES = """examples:
  cardlab redblack campaign 22             k = 22's finished shards, the config's windows, the shards left
  cardlab redblack campaign 21 --results /shared/campaign/results
  cardlab redblack campaign 23 --run 4 --from top --cores 2 --nice 19 --update-config
                                           the next 4 shards from the top, then config.yaml's ranks line
  cardlab redblack campaign 24 --run 1 --deals-per-shard 20000000000     a new size's first shard
  cardlab redblack campaign 26 --run 500 --snakemake='--workflow-profile workflow/profiles/slurm'"""
AUDIT_EXAMPLES = """examples:
  cardlab redblack audit workflow/data/redblack/published_infinite.txt
  cardlab redblack audit my_list.txt --csv > audit.csv"""


def register(subparsers) -> None:
    """``cardlab redblack``: one subcommand per ``add_*`` below."""
    raw = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "redblack",
        help="RedBlack: replay deals, exhaustive search, ranks, basins of cycles, audits of lists",
        description="RedBlack: replay one deal, search every deal of a size, rank a deal, list a cycle's basin, "
        "audit a list of claimed infinite deals.",
        epilog=REPLAY_EXAMPLES
        + "\n"
        + SEARCH_EXAMPLES.removeprefix("examples:\n")
        + "\n"
        + BASIN_EXAMPLES.removeprefix("examples:\n")
        + "\n"
        + AUDIT_EXAMPLES.removeprefix("examples:\n")
        + "\n"
        + CAMPAIGN_EXAMPLES.removeprefix("examples:\n"),
        formatter_class=raw,
    )
    sub = p.add_subparsers(dest="redblack_command", required=True, parser_class=type(p))
    for add in (add_replay, add_search, add_rank, add_audit, add_basin, add_campaign):
        add(sub, raw)


def add_replay(sub, raw) -> None:
    """``cardlab redblack replay``: play one deal."""
    r = sub.add_parser(
        "replay",
        help="play one deal: the seed-style table, then the verdict",
        description="Plays one deal round by round as the seed prints it, then says whether it ends or cycles.",
        epilog=REPLAY_EXAMPLES,
        formatter_class=raw,
    )
    r.add_argument("p1", help="player 1's deck, top card first, 0 red 1 black (e.g. 10)")
    r.add_argument("p2", help="player 2's deck (e.g. 110)")
    r.add_argument("--rounds", type=int, default=REPLAY_ROUNDS, help="rounds shown play by play (default: %(default)s)")
    r.set_defaults(func=cmd_replay)


def add_search(sub, raw) -> None:
    """``cardlab redblack search``: search every deal of a size."""
    s = sub.add_parser(
        "search",
        help="every canonical balanced deal of size K (or a rank window): the infinite ones, then counts",
        description="Searches every canonical balanced deal with K cards per player by rank, exactly (cycles, "
        "no round limit); prints the infinite ones, then counts. With --ranks, a window of ranks.",
        epilog=SEARCH_EXAMPLES,
        formatter_class=raw,
    )
    s.add_argument("k", type=int, help="cards per player, 1..26")
    s.add_argument(
        "--method",
        choices=("owner", "brute"),
        default="owner",
        help="owner (default): stop a deal once a smaller deal reaches its state, list the balanced deals in "
        "the basins of the cycles found; brute: play every deal to its end (also gives the longest game)",
    )
    s.add_argument(
        "--ranks",
        metavar="START:STOP",
        help="search ranks [START, STOP) only (default: all); slices run separately add up to the whole",
    )
    s.add_argument("--jobs", type=int, default=None, help="threads (default: all cores)")
    s.add_argument("--csv", action="store_true", help="CSV of the infinite deals for machines (counts on stderr)")
    s.set_defaults(func=cmd_search)


def add_rank(sub, raw) -> None:
    """``cardlab redblack rank``: rank a deal."""
    rk = sub.add_parser(
        "rank",
        help="the rank of a canonical balanced deal (its place in the search order)",
        description="Prints the rank of a balanced deal (of its colour swap when player 1's first card is black).",
        epilog=RANK_EXAMPLES,
        formatter_class=raw,
    )
    rk.add_argument("p1", help="player 1's deck, top card first, 0 red 1 black")
    rk.add_argument("p2", help="player 2's deck")
    rk.set_defaults(func=cmd_rank)


def add_audit(sub, raw) -> None:
    """``cardlab redblack audit``: audit a list of claimed infinite deals."""
    a = sub.add_parser(
        "audit",
        help="replay a list of claimed infinite deals, walk their cycles' basins, name what it misses",
        description="Reads 'P1 P2' per line (# comments and blank lines ignored), replays every deal exactly, "
        "walks the basin of every cycle reached, and reports per k: listed, confirmed infinite, listed but finite, "
        "and the infinite deals the list misses in those basins.",
        epilog=AUDIT_EXAMPLES,
        formatter_class=raw,
    )
    a.add_argument("file", help="the list of deals")
    a.add_argument("--csv", action="store_true", help="one row per deal: k,p1,p2,status")
    a.add_argument(
        "--max-states",
        type=int,
        default=BASIN_MAX_STATES,
        help="refuse a basin larger than this (default: %(default)s)",
    )
    a.set_defaults(func=cmd_audit)


def add_basin(sub, raw) -> None:
    """``cardlab redblack basin``: list a cycle's basin."""
    b = sub.add_parser(
        "basin",
        help="every balanced deal leading into the cycle this deal reaches",
        description="Runs rounds backwards from the cycle this deal reaches and lists every balanced deal "
        "that falls into it (or its colour swap).",
        epilog=BASIN_EXAMPLES,
        formatter_class=raw,
    )
    b.add_argument("p1", help="player 1's deck, top card first, 0 red 1 black (e.g. 001101)")
    b.add_argument("p2", help="player 2's deck, same size (e.g. 100011)")
    b.add_argument(
        "--max-states",
        type=int,
        default=BASIN_MAX_STATES,
        help="stop after this many basin states (default: %(default)s)",
    )
    b.set_defaults(func=cmd_basin)


def add_campaign(sub, raw) -> None:
    """``cardlab redblack campaign``: where a size's rank-window campaign stands."""
    c = sub.add_parser(
        "campaign",
        help="a size's finished search shards: coverage, CPU, the config's ranks windows, the shards left",
        description="Reads the finished exhaustive shards of size K under a results tree (every table checked) "
        "and prints the ranks they searched, their CPU time from the job logs, the `ranks:` windows that plan "
        "exactly those shards (for the size's block in config.yaml, so they are kept and not recomputed), and "
        "the shards left.",
        epilog=CAMPAIGN_EXAMPLES,
        formatter_class=raw,
    )
    c.add_argument("k", type=int, help="cards per player, 1..26")
    c.add_argument("--method", choices=("owner", "brute"), default="owner", help="the shards' method (default: owner)")
    c.add_argument("--results", default="results", help="results tree (default: %(default)s)")
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
    r.add_argument(
        "--config", default="config.yaml", help="the config the campaign's block is in (default: %(default)s)"
    )
    r.add_argument("--deals-per-shard", type=int, help="the shard grid of a campaign with no finished shard yet")
    r.add_argument("--nice", type=int, default=0, help="run Snakemake and its jobs at this niceness (default: 0)")
    r.add_argument(
        "--update-config",
        action="store_true",
        help="write the `ranks:` line of every finished shard into the config (else print it)",
    )
    r.add_argument(
        "--snakemake",
        default="",
        metavar="ARGS",
        help="more Snakemake options: --snakemake='--workflow-profile workflow/profiles/slurm'",
    )
    c.set_defaults(func=cmd_campaign)


def cmd_campaign(args) -> int:
    from ..pipeline.jobs import read_timing
    from .campaign import campaign_state, describe
    from .campaign_next import ready_to_run

    if args.run is not None:
        ready_to_run(args.results, args.cores)
    state = campaign_state(args.k, args.method, args.results, timing=read_timing)
    rc = 0 if args.run is None else run_campaign(args, state, read_timing)
    if args.run is not None:
        state = campaign_state(args.k, args.method, args.results, timing=read_timing)
    print("\n".join(describe(state, args.results, cost_left(state, args.results))))
    if args.run is not None or args.update_config:
        keep_planned(args, state)
    return rc


def cost_left(state, results: str) -> str | None:
    """The rest's cost by the warehouse's cost windows, when there is a warehouse that prices it."""
    import duckdb

    from ..pipeline.warehouse import connect
    from .campaign import cost_left_text
    from .report.queries import coverage_of, window_cost

    db = os.path.join(results, "warehouse.duckdb")
    try:  # a warehouse being rebuilt, or one without RedBlack, only costs this line
        with connect(db) as con:
            coverage, windows = coverage_of(con, state.k), window_cost(con, state.k)
    except (CardlabError, duckdb.Error):
        return None
    return cost_left_text(state, coverage, windows.get("machine"), db) if coverage and state.shards else None


def run_campaign(args, state, timing) -> int:
    """`campaign K --run N`: Snakemake computes the next N shards (engines/redblack/campaign_next.py)."""
    import shlex

    from ..core.fmt import plural
    from ..pipeline.plan import load_config
    from ..pipeline.shard_run import run_shards
    from .campaign_next import finished_line, plan_run, run_config, shard_runs

    config = load_config([args.config])
    run = plan_run(state, config, args.run, args.from_ == "top", args.deals_per_shard, args.config)
    if not run.shards:
        print(f"k = {run.k}: every shard is finished; nothing to run")
        return 0
    log = f".snakemake/log/cardlab-campaign-k{run.k:02d}-{time.strftime('%Y%m%dT%H%M%S')}.log"  # beside snakemake's
    print(
        f"k = {run.k}: {plural(len(run.shards), 'shard')} ({shard_runs(run.shards)}, {run.deals:,} deals) "
        f"on {plural(args.cores, 'core')}; snakemake's output: {log}",
        flush=True,
    )
    shards, plan = {str(n): files for n, files in run.files().items()}, run_config(config, run, args.config)
    extra, line = shlex.split(args.snakemake), lambda name: finished_line(run, int(name), timing)
    watch = {"finished": line, "logs": run.logs(), "work": run.work()}
    command = shlex.join(["cardlab", *sys.argv[1:]])  # what `cardlab status` says is running
    return run_shards(shards, plan, args.cores, log, extra, args.nice, **watch, command=command)[0]


def keep_planned(args, state) -> None:
    """After a run: the size's ranks line that plans every finished shard, written (--update-config) or shown."""
    from pathlib import Path

    from ..pipeline.config import read_yaml
    from ..pipeline.shard_run import replace_config_text
    from .campaign_next import config_with_ranks, ranks_line

    if not state.windows:
        return
    line = ranks_line(state.windows)
    if args.update_config:
        change = config_with_ranks(Path(args.config).read_text(), read_yaml(args.config), state, args.config)
        if change is not None and replace_config_text(args.config, *change):
            print(f"{args.config}: the k = {state.k} block now plans every finished shard: {line}")
            return
        print(
            f"{args.config}: could not set the k = {state.k} block's ranks in place (that needs one "
            f"`- k: [{state.k}]` block of method {state.method} with a one-line `ranks:`); set it by hand: {line}"
        )
    else:
        print(f"to keep every finished shard planned, set the k = {state.k} block of {args.config} to: {line}")


def cmd_replay(args) -> int:
    import engines.redblack as rb

    from ..cli import print_table

    rb.parse_deal(args.p1, args.p2)
    if args.rounds < 0:
        raise CardlabError("--rounds must be >= 0")
    outcome = rb.play(args.p1, args.p2)
    # a size the user gives is bounded: never more rounds than the game has (an infinite
    # game: until its cycle has been played once; at least the default), however large --rounds is
    length = outcome.rounds if outcome.finished else outcome.rounds + outcome.period
    rows = list(rb.trace_reference(args.p1, args.p2, max_rounds=min(args.rounds, max(length, REPLAY_ROUNDS))))
    print(
        f"RedBlack deal P1 {args.p1}  P2 {args.p2}: {len(args.p1) + len(args.p2)} cards "
        f"({(args.p1 + args.p2).count('0')} red, {(args.p1 + args.p2).count('1')} black), player 1 leads"
    )
    print_table(["P1 pile", "P2 pile", "played pile", "comment"], rows, out=sys.stdout)
    if outcome.finished:
        shown = "" if outcome.rounds <= args.rounds else f" (first {args.rounds} shown)"
        print(f"finite: ends after {outcome.rounds} rounds{shown}; player {outcome.winner} runs out of cards and wins")
    else:
        print(
            f"infinite: enters a cycle of {outcome.period} rounds after {outcome.rounds} rounds "
            f"(cycle {outcome.cycle_id})"
        )
    return 0


def cmd_search(args) -> int:
    import numba

    import engines.redblack as rb

    from ..core.progress import Progress

    if not 1 <= args.k <= rb.K_MAX:
        raise CardlabError(f"K must be between 1 and {rb.K_MAX}, got {args.k}")
    if args.jobs is not None:
        if args.jobs < 1:
            raise CardlabError(f"--jobs must be >= 1, got {args.jobs}")
        numba.set_num_threads(min(args.jobs, numba.config.NUMBA_NUM_THREADS))
    total = rb.canonical_deals(args.k)
    start, stop = parse_ranks(args.ranks, total)
    label = f"redblack k={args.k}" + ("" if (start, stop) == (0, total) else f" ranks [{start:,}, {stop:,})")
    progress = Progress(stop - start, "deals", label=label, stream=sys.stderr)
    try:
        res = rb.search_range(args.k, start, stop, progress, method=args.method)
    finally:
        progress.close()
    window = "complete" if (start, stop) == (0, total) else f"ranks [{start:,}, {stop:,}) of {total:,}"
    if args.method == "brute":
        deals = sorted(res.infinite, key=lambda d: (d["p1"], d["p2"]))
        cycles = len({d["cycle_id"] for d in deals})
        counts = (
            f"k={args.k}: {res.deals:,} canonical deals searched ({window}), {res.finite:,} finite, "
            f"{res.infinite_count:,} infinite ({2 * res.infinite_count:,} with colour swaps) in "
            f"{cycles} cycle(s); longest finite game {res.longest_rounds} rounds "
            f"({' '.join(res.longest_deal)})"
        )
    else:
        deals, cycles = basin_closure(res, args.k)
        counts = (
            f"k={args.k}: {res.deals:,} canonical deals searched ({window}) with the owner rule: "
            f"{res.stopped:,} stopped (a smaller deal reaches the same state), {res.finite:,} played to their end, "
            f"{res.rounds:,} rounds; {cycles} cycle(s) found, whose basins hold the {len(deals):,} infinite "
            f"deals listed ({2 * len(deals):,} with colour swaps)"
            + (
                ""
                if window == "complete"
                else f"; proves: every cycle whose smallest basin deal has a rank in [{start:,}, {stop:,}) is found"
            )
        )
    if args.csv:
        from ..cli import print_csv

        print_csv(
            ["k", "p1", "p2", "cycle_id", "period", "rounds_before_cycle"],
            [(args.k, d["p1"], d["p2"], d["cycle_id"], d["period"], d["rounds_before_cycle"]) for d in deals],
            out=sys.stdout,
        )
        print(counts, file=sys.stderr)
    else:
        for d in deals:
            print(f"{d['p1']} {d['p2']}")
        print(counts)
    return 0


def parse_ranks(text: str | None, total: int) -> tuple[int, int]:
    """``START:STOP`` (either side may be empty) -> a rank window inside [0, total)."""
    if text is None:
        return 0, total
    lo, sep, hi = text.partition(":")
    try:
        start = int(lo) if lo.strip() else 0
        stop = int(hi) if hi.strip() else total
    except ValueError:
        raise CardlabError(f"--ranks {text!r}: expected START:STOP with whole numbers, e.g. 0:1000000") from None
    if not sep or not 0 <= start < stop <= total:
        raise CardlabError(f"--ranks {text!r}: expected START:STOP with 0 <= START < STOP <= {total:,}")
    return start, stop


def basin_closure(res, k: int) -> tuple[list[dict], int]:
    """The owner rule's answer: the balanced deals in the basins of the cycles found, and how many cycles."""
    import engines.redblack as rb

    ids = sorted({d["cycle_id"] for d in res.infinite})
    deals = []
    for cid in ids:
        bas = rb.basin(cid)
        deals += [
            {"p1": p1, "p2": p2, "cycle_id": bas.cycle_id, "period": bas.period, "rounds_before_cycle": depth}
            for p1, p2, depth in bas.deals
            if len(p1) == k
        ]
    return sorted(deals, key=lambda d: (d["p1"], d["p2"])), len(ids)


def cmd_rank(args) -> int:
    import engines.redblack as rb

    rb.parse_deal(args.p1, args.p2)
    k = len(args.p1)
    if len(args.p2) != k or (args.p1 + args.p2).count("0") != k:
        raise CardlabError(f"{args.p1} {args.p2} is not a balanced deal (k cards each, k red and k black)")
    p1, p2 = rb.canonical(args.p1, args.p2)
    rank = rb.rank_deal(p1, p2)
    swapped = "" if (p1, p2) == (args.p1, args.p2) else f" (its colour swap {p1} {p2}: player 1's first card red)"
    print(f"{rank}")
    print(f"k={k}: rank {rank:,} of {rb.canonical_deals(k):,} canonical deals{swapped}", file=sys.stderr)
    return 0


def cmd_audit(args) -> int:
    from collections import Counter

    from ..core.progress import Progress
    from .audit import MISSING, audit, read_deal_list

    deals = read_deal_list(args.file)
    if args.max_states < 1:
        raise CardlabError(f"--max-states must be >= 1, got {args.max_states}")
    progress = Progress(len(deals), "deals", label="audit", stream=sys.stderr)
    try:
        rows = audit(deals, args.max_states, progress)
    finally:
        progress.close()
    if args.csv:
        from ..cli import print_csv

        print_csv(["k", "p1", "p2", "status"], [(r.k, r.p1, r.p2, r.status) for r in rows], out=sys.stdout)
        return 0
    by_k: dict[int, Counter] = {}
    for r in rows:
        by_k.setdefault(r.k, Counter())[r.status] += 1
    for r in rows:
        if r.status == MISSING:
            print(f"missing k={r.k}: {r.p1} {r.p2} (cycle {r.cycle_id}, period {r.period}, enters after {r.rounds})")
    for k, c in sorted(by_k.items()):
        listed = c["listed-infinite"] + c["listed-finite"]
        size = f"k={k}" if k else "unequal hands"
        print(
            f"{size}: {listed} listed, {c['listed-infinite']} confirmed infinite, {c['listed-finite']} listed but "
            f"finite, {c[MISSING]} missing from the basins of their cycles"
        )
    print(
        "An audit proves each listed deal infinite or finite and names every infinite deal in the basins of "
        "the cycles reached; a list is complete for a size only if an exhaustive search of that size says so."
    )
    return 0


def cmd_basin(args) -> int:
    import engines.redblack as rb

    rb.parse_deal(args.p1, args.p2)
    if args.max_states < 1:
        raise CardlabError(f"--max-states must be >= 1, got {args.max_states}")
    outcome = rb.play(args.p1, args.p2)
    if outcome.finished:
        print(
            f"{args.p1} {args.p2} is finite (ends after {outcome.rounds} rounds, player "
            f"{outcome.winner} wins): it is in no cycle's basin"
        )
        return 0
    bas = rb.basin(outcome.cycle_id, min(args.max_states, 2**63 - 1))  # the kernel counts in int64
    for p1, p2, _ in bas.deals:
        print(f"{p1} {p2}")
    n = len(args.p1) + len(args.p2)
    note = "" if n % 2 == 0 else f" (an odd number of cards, {n}: no balanced deals)"
    print(
        f"cycle {bas.cycle_id}: period {bas.period} rounds, basin {bas.states:,} states"
        f"{'' if bas.complete else ' (INCOMPLETE: --max-states reached)'}, "
        f"{len(bas.deals):,} canonical balanced deals ({2 * len(bas.deals):,} with colour swaps){note}; "
        f"{args.p1} {args.p2} enters it after {outcome.rounds} rounds"
    )
    return 0


def main(argv=None) -> int:  # pragma: no cover - convenience for `python -m engines.redblack.cli`
    from ..cli import main as cardlab_main

    return cardlab_main(["redblack", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
