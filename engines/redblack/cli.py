"""``cardlab redblack ...``: replay a deal, search one size exhaustively, list a cycle's basin."""

from __future__ import annotations

import sys

from ..core.errors import CardlabError
from .rules import BASIN_MAX_STATES

REPLAY_ROUNDS = 4  # rounds shown in full by `replay` before the summary


def register(subparsers) -> None:
    p = subparsers.add_parser("redblack", help="RedBlack: replay deals, exhaustive search, basins of cycles")
    sub = p.add_subparsers(dest="redblack_command", required=True, parser_class=type(p))

    r = sub.add_parser("replay", help="play one deal: the seed-style table, then the verdict")
    r.add_argument("p1", help="player 1's deck, top card first, 0 red 1 black (e.g. 10)")
    r.add_argument("p2", help="player 2's deck (e.g. 110)")
    r.add_argument("--rounds", type=int, default=REPLAY_ROUNDS, help="rounds shown play by play (default: %(default)s)")
    r.set_defaults(func=cmd_replay)

    s = sub.add_parser("search", help="every canonical balanced deal of size K: the infinite ones, then counts")
    s.add_argument("k", type=int, help="cards per player, 1..26")
    s.add_argument("--jobs", type=int, default=None, help="threads (default: all cores)")
    s.add_argument("--csv", action="store_true", help="CSV of the infinite deals for machines (counts on stderr)")
    s.set_defaults(func=cmd_search)

    b = sub.add_parser("basin", help="every balanced deal leading into the cycle this deal reaches")
    b.add_argument("p1")
    b.add_argument("p2")
    b.add_argument(
        "--max-states",
        type=int,
        default=BASIN_MAX_STATES,
        help="stop after this many basin states (default: %(default)s)",
    )
    b.set_defaults(func=cmd_basin)


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
    progress = Progress(total, "deals", label=f"redblack k={args.k}", stream=sys.stderr)
    try:
        res = rb.search(args.k, progress)
    finally:
        progress.close()
    deals = sorted(res.infinite, key=lambda d: (d["p1"], d["p2"]))
    cycles = len({d["cycle_id"] for d in deals})
    counts = (
        f"k={args.k}: {res.deals:,} canonical deals searched (complete), {res.finite:,} finite, "
        f"{res.infinite_count:,} infinite ({2 * res.infinite_count:,} with colour swaps) in "
        f"{cycles} cycle(s); longest finite game {res.longest_rounds} rounds "
        f"({' '.join(res.longest_deal)})"
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
