"""The RedBlack commands that play and search: replay, search, rank, audit, basin.

Their parsers are in engines/redblack/cli/__init__.py, which names these handlers as strings, so that
building the command line loads no numba kernel."""

from __future__ import annotations

import sys
from collections import Counter

import engines.redblack as rb

from ...core.errors import CardlabError
from ...core.progress import Progress
from ...core.tabular import print_text_table, write_csv
from ...core.threads import set_threads
from ...kinds import check_backend
from ...registry import engine
from ..audit import MISSING, audit, read_deal_list
from .options import REPLAY_ROUNDS


def cmd_replay(args) -> int:
    rb.parse_deal(args.p1, args.p2)
    outcome = rb.play(args.p1, args.p2)
    # a size the user gives is bounded: never more rounds than the game has (an infinite
    # game: until its cycle has been played once; at least the default), however large --rounds is
    length = outcome.rounds if outcome.finished else outcome.rounds + outcome.period
    rows = list(rb.trace_reference(args.p1, args.p2, max_rounds=min(args.rounds, max(length, REPLAY_ROUNDS))))
    print(
        f"RedBlack deal P1 {args.p1}  P2 {args.p2}: {len(args.p1) + len(args.p2)} cards "
        f"({(args.p1 + args.p2).count('0')} red, {(args.p1 + args.p2).count('1')} black), player 1 leads"
    )
    print_text_table(["P1 pile", "P2 pile", "played pile", "comment"], rows, out=sys.stdout)
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
    kind = engine("redblack").kind_of({"kind": "exhaustive"})
    search = kind.backends[check_backend(kind, args.backend, "--backend")]
    if args.jobs is not None:
        set_threads(args.jobs)
    total = rb.canonical_deals(args.k)
    start, stop = parse_ranks(args.ranks, total)
    label = f"redblack k={args.k}" + ("" if (start, stop) == (0, total) else f" ranks [{start:,}, {stop:,})")
    progress = Progress(stop - start, "deals", label=label, stream=sys.stderr)
    try:
        res = search(args.k, start, stop, progress, method=args.method)
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
        write_csv(
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
    deals = read_deal_list(args.file)
    progress = Progress(len(deals), "deals", label="audit", stream=sys.stderr)
    try:
        rows = audit(deals, args.max_states, progress)
    finally:
        progress.close()
    if args.csv:
        write_csv(["k", "p1", "p2", "status"], [(r.k, r.p1, r.p2, r.status) for r in rows], out=sys.stdout)
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
    rb.parse_deal(args.p1, args.p2)
    outcome = rb.play(args.p1, args.p2)
    if outcome.finished:
        print(
            f"{args.p1} {args.p2} is finite (ends after {outcome.rounds} rounds, player "
            f"{outcome.winner} wins): it is in no cycle's basin"
        )
        return 0
    bas = rb.basin(outcome.cycle_id, args.max_states)
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
