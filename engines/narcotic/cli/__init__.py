"""``cardlab narcotic play``: play decks read from standard input; ``cardlab narcotic deal``: make them."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ...core import argtypes
from ...core.errors import CardlabError
from ..rules import GATHERS, MATCHINGS, PILE_FOURS, PRESETS, Rules, check_deck

if TYPE_CHECKING:
    import numpy as np


def parse_decks(lines) -> np.ndarray:
    """Every line a full deck, or an error naming the first bad line (nothing is played)."""
    decks = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            values = [int(tok) for tok in line.split()]
        except ValueError:
            bad = next(t for t in line.split() if not t.lstrip("-").isdigit())
            raise CardlabError(f"line {number}: {bad!r} is not an integer") from None
        why = check_deck(values)
        if why:
            raise CardlabError(f"line {number}: {why}")
        decks.append(values)
    if not decks:
        raise CardlabError("no decks on standard input (one deck per line: 52 integers 1..13)")
    import numpy as np

    return np.asarray(decks, dtype=np.uint8)


def rules_from_args(args) -> Rules:
    base = Rules.preset(args.rules)
    return Rules(args.matching or base.matching, args.gather or base.gather, args.pile_four or base.pile_four)


def cmd_play(args) -> int:
    rules = rules_from_args(args)
    decks = parse_decks(sys.stdin)
    from ..kernel import play

    res = play(decks, rules)
    out = []
    for i in range(len(decks)):
        won = bool(res["won"][i])
        tail = "- -" if won else f"{res['cycle_start'][i]} {res['cycle_length'][i]}"
        out.append(f"{'won' if won else 'looped'} {res['passes'][i]} {res['time_s'][i]} {tail}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def cmd_deal(args) -> int:
    import numpy as np

    from ..kernel import shuffled_decks

    # a block at a time: memory stays small however many decks are asked for
    for a in range(0, args.n, DEAL_BLOCK):
        decks = shuffled_decks(np.uint64(args.seed), a, min(a + DEAL_BLOCK, args.n))
        sys.stdout.write("".join(" ".join(map(str, d)) + "\n" for d in decks.tolist()))
    return 0


DEAL_BLOCK = 100_000  # decks shuffled and written at once: about 50 MB of Python integers
MAX_DEAL_DECKS = 10**9  # about 150 GB of text: more is no deck list anyone reads


def cmd_simulate(args) -> int:
    """Play N seeded games (game i dealt from stream (seed, i), as in a shard) and print the summary."""
    import numba
    import numpy as np

    from ...core.fmt import duration
    from ...core.progress import Progress
    from ...core.stats import wilson
    from ..kernel import GAMES_PER_CALL, play, shuffled_decks

    if args.jobs is not None:
        numba.set_num_threads(min(args.jobs, numba.config.NUMBA_NUM_THREADS))
    rules = rules_from_args(args)
    wins = won_passes = won_time = 0
    progress = Progress(args.games, "games", label=f"narcotic {rules.variant}", stream=sys.stderr)
    try:
        for a in range(0, args.games, GAMES_PER_CALL):
            b = min(a + GAMES_PER_CALL, args.games)
            res = play(shuffled_decks(np.uint64(args.seed), a, b), rules, games=args.games)
            won = res["won"]
            wins += int(won.sum())
            won_passes += int(res["passes"][won].sum())
            won_time += int(res["time_s"][won].sum())
            progress.update(b - a)
    finally:
        progress.close()
    lo, hi = wilson(wins, args.games)
    name = rules.preset_name
    label = f"{name} rules ({rules.variant})" if name else f"rules {rules.variant}"
    line = (
        f"narcotic {label}, {args.games:,} games (seed {args.seed}): won {100 * wins / args.games:.3f} % "
        f"(95 % interval {100 * lo:.3f} – {100 * hi:.3f} %)"
    )
    if wins:
        line += (
            f"; a won game takes {won_passes / wins:.1f} passes and {duration(won_time / wins)} on average "
            "(the seed's time model)"
        )
    print(line)
    return 0


MAX_SIMULATE_GAMES = 10**10  # about a day on one core: larger runs belong in the pipeline


PLAY_EXAMPLES = """examples:
  cardlab narcotic deal 5 --seed 7 | cardlab narcotic play
  cardlab narcotic deal 1000 > decks.txt && cardlab narcotic play --rules classic < decks.txt
  cardlab narcotic play --rules seed --gather top-left < decks.txt"""

SIMULATE_EXAMPLES = """examples:
  cardlab narcotic simulate --games 1000000              the seed's rules, a million seeded games
  cardlab narcotic simulate --games 300000 --rules classic --jobs 1 --seed 7"""

DEAL_EXAMPLES = """examples:
  cardlab narcotic deal 3                 three shuffled decks (seed 1)
  cardlab narcotic deal 1000 --seed 42 > decks.txt"""


def register(sub) -> None:
    import argparse

    p = sub.add_parser(
        "narcotic",
        help="Narcotic solitaire: deal shuffled decks, play decks",
        description="Narcotic solitaire: deal seeded shuffled decks and play decks under any rules.",
        epilog=PLAY_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    nsub = p.add_subparsers(dest="narcotic_command", required=True, parser_class=type(p))
    deal_p = nsub.add_parser(
        "deal",
        help="print N shuffled decks in the input format of `play` (seeded, reproducible)",
        description="Prints N decks, one per line (52 integers 1..13, last dealt first), shuffled by the "
        "engine's own seeded Fisher-Yates shuffle (engines.narcotic.shuffled_decks): the same N and "
        "seed give the same decks on any machine; deck i is game i of a shard with that seed.",
        epilog=DEAL_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    deal_p.add_argument("n", metavar="N", type=argtypes.integer(1, MAX_DEAL_DECKS, " decks"), help="number of decks")
    deal_p.add_argument("--seed", type=argtypes.seed, default=1, help="seed of the shuffle (default: %(default)s)")
    deal_p.set_defaults(func=cmd_deal)
    play_p = nsub.add_parser(
        "play",
        help="play decks from stdin, one per line (52 integers 1..13, last dealt first)",
        description="Reads decks from standard input and prints one line per deck: "
        "won|looped passes time_s cycle_start cycle_length ('-' for won games).",
        epilog=PLAY_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play_p.set_defaults(func=cmd_play)
    add_rule_options(play_p)
    sim_p = nsub.add_parser(
        "simulate",
        help="play N seeded games and print the win rate (95 %% interval), mean passes and time",
        description="Plays games 0..N-1 of the seeded stream (game i's deck is shuffled from splitmix64 stream "
        "(seed, i), as in a pipeline shard with that seed) and prints one summary line.",
        epilog=SIMULATE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim_p.add_argument(
        "--games",
        type=argtypes.integer(1, MAX_SIMULATE_GAMES, " games"),
        required=True,
        help="number of games (more belong in the pipeline: config.yaml)",
    )
    sim_p.add_argument("--seed", type=argtypes.seed, default=1, help="seed of the shuffles (default: %(default)s)")
    sim_p.add_argument("--jobs", type=argtypes.cores, default=None, help="threads (default: all cores)")
    add_rule_options(sim_p)
    sim_p.set_defaults(func=cmd_simulate)
    add_campaign(nsub)


def add_rule_options(p) -> None:
    """--rules PRESET and the three choices that override its parts."""
    p.add_argument(
        "--rules",
        choices=sorted(PRESETS),
        default="seed",
        help="preset (default: %(default)s); the options below override its parts",
    )
    p.add_argument(
        "--matching", choices=MATCHINGS, help="which cards may be moved: deal (the seed) or cascade (pile tops only)"
    )
    p.add_argument("--gather", choices=GATHERS, help="which pile's card is dealt first after gathering")
    p.add_argument(
        "--pile-four", dest="pile_four", choices=PILE_FOURS, help="keep (the seed) or discard four equal pile tops"
    )


class NarcoticBook:
    """Narcotic's campaigns: the canonical enumeration of decks of R values under one rule combination
    (NAME an integer), or a tally campaign of the config's ``campaigns:`` (NAME its name)."""

    game = "narcotic"
    unit = "decks"
    description = (
        "NAME is R, the values of a deck (a canonical enumeration's campaign), or the name of a tally campaign "
        "of the config's `campaigns:` (seeded games kept as sums).  Reads the campaign's finished shards (each "
        "checked: a canonical shard's counts against its ranks, a tally's sums against its games) and prints "
        "what they played and won, their CPU time, the price of the rest at that rate, whether the config's "
        "block is a campaign block (`campaign: true`: it plans the shards its ledger keeps), what the ledger "
        "keeps, and the shards left."
    )

    @property
    def examples(self) -> str:
        from ..campaign import CAMPAIGN_EXAMPLES

        return CAMPAIGN_EXAMPLES

    def add_arguments(self, c) -> None:
        c.add_argument("name", metavar="NAME", help="R (values in the deck, 1..6), or a tally campaign's name")
        add_rule_options(c)
        c.add_argument(
            "--variant", help="a tally campaign's rule combination, when its entry plays several (deal.top-right.keep)"
        )

    @staticmethod
    def is_canonical(campaign) -> bool:
        from ..exact import CANONICAL_EXPERIMENT

        return campaign.experiment == CANONICAL_EXPERIMENT

    def campaign(self, args):
        if args.name.isdigit():
            return self.canonical_campaign(int(args.name), args)
        return self.tally_campaign(args)

    def canonical_campaign(self, ranks: int, args):
        from ...campaign.book import Campaign
        from ..canonical import canonical_count
        from ..exact import CANONICAL_EXPERIMENT, MAX_EXACT_RANKS, ledger_grid

        if not 1 <= ranks <= MAX_EXACT_RANKS:
            raise CardlabError(f"campaign: R must be 1..{MAX_EXACT_RANKS} (canonical ranks are 64-bit), got {ranks}")
        if args.variant:
            raise CardlabError("campaign: --variant names a tally campaign's rules; for R, give --matching, ...")
        base = rules_from_args(args)
        rules = Rules(base.matching, base.gather, base.pile_four, ranks)
        grid = ledger_grid(rules, canonical_count(rules.ranks))
        command = grid.rebuild.removesuffix(" --keep")
        return Campaign(
            "narcotic", CANONICAL_EXPERIMENT, rules.variant, f"r = {rules.ranks}", grid.items, "decks",
            ("narcotic_exhaustive",), command, "--decks-per-shard",
        )  # fmt: skip

    def tally_campaign(self, args):
        from ...campaign.book import Campaign
        from ...core.yamlfile import read_yaml
        from ..campaign import tally_block, tally_rules
        from ..tally import TALLY_TABLES, tally_grid

        if any((args.matching, args.gather, args.pile_four)) or args.rules != "seed":
            raise CardlabError("campaign: a tally campaign's entry gives its rules; name one of them with --variant")
        import os

        config = read_yaml(args.config) if os.path.isfile(args.config) else None
        block = tally_block(config, args.name, args.config)
        if block is None:
            names = [b.get("name") for b in ((config or {}).get("narcotic") or {}).get("campaigns") or []]
            known = f"; its campaigns: {', '.join(names)}" if names else ""
            raise CardlabError(
                f"campaign: {args.config} has no narcotic campaign named {args.name!r}{known} (a new one is an "
                "entry of narcotic.campaigns with its name, games and seed; R, an integer, names a canonical one)"
            )
        rules = tally_rules(block, args.variant, args.config)
        grid = tally_grid(block["name"], rules, int(block["games"]))
        return Campaign(
            "narcotic", block["name"], rules.variant, grid.name, grid.items, "games", tuple(TALLY_TABLES),
            grid.rebuild.removesuffix(" --keep"),
        )  # fmt: skip

    def rules(self, campaign) -> Rules:
        from ..rules import VALUES, all_rules

        ranks = int(campaign.label.removeprefix("r = ")) if self.is_canonical(campaign) else None
        sizes = [ranks] if ranks else range(1, VALUES + 1)
        return next(r for n in sizes for r in all_rules(n) if r.variant == campaign.variant)

    def finished(self, campaign, results: str, timing):
        from ..campaign import campaign_state, tally_state

        if self.is_canonical(campaign):
            return campaign_state(self.rules(campaign), results, timing)
        return tally_state(campaign.experiment, self.rules(campaign), campaign.total, results, timing)

    def block(self, config, campaign, where: str):
        from ..campaign import campaign_block, tally_block

        if self.is_canonical(campaign):
            return campaign_block(config, self.rules(campaign), where)
        return tally_block(config, campaign.experiment, where)

    def block_per_shard(self, block) -> int | None:
        return block.get("per_shard", block.get("games_per_shard"))

    def block_hint(self, campaign) -> str:
        if not self.is_canonical(campaign):
            return f"an entry of narcotic.campaigns named {campaign.experiment}, its games and seed"
        return f"`canonical: true`, `- ranks: [{self.rules(campaign).ranks}]`, the rules, its decks_per_shard"

    def run_config(self, config, campaign, shards, per_shard: int, backend) -> dict:
        from ..campaign import run_config, tally_run_config

        if self.is_canonical(campaign):
            return run_config(config, self.rules(campaign), campaign.windows(shards, per_shard), per_shard)
        return tally_run_config(config, campaign.experiment, self.rules(campaign), list(shards), per_shard)

    def describe(self, campaign, state, results: str, book_lines: list[str], args) -> list[str]:
        from ..campaign import describe, describe_tally

        if self.is_canonical(campaign):
            return describe(state, book_lines)
        return describe_tally(campaign.experiment, state, book_lines)


CAMPAIGN_BOOK = NarcoticBook()


def add_campaign(nsub) -> None:
    """``cardlab narcotic campaign R``: a thin wrapper of ``cardlab campaign narcotic R``."""
    from ...campaign.cli import add_campaign_options
    from ...campaign.command import campaign_command

    c = nsub.add_parser(
        "campaign",
        help="a canonical enumeration's (r = 5, ...) or a tally campaign's coverage, CPU, the rest's price, ledger",
        description=CAMPAIGN_BOOK.description + "  The same as `cardlab campaign narcotic R`.",
        epilog=CAMPAIGN_BOOK.examples,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    CAMPAIGN_BOOK.add_arguments(c)
    add_campaign_options(c, CAMPAIGN_BOOK.unit)
    c.set_defaults(func=lambda args: campaign_command(CAMPAIGN_BOOK, args))
