"""``cardlab narcotic campaign R``: where a canonical enumeration's campaign stands, its next shards, its ledger.

A canonical block with ``campaign: true`` (engines/narcotic/exact.py) plans exactly the shards its
ledger keeps (``results/ledger/narcotic/canonical/<variant>.json``, engines/core/ledger.py): the
user's config is never written.  ``--run N`` computes the next N shards left on the block's grid
through the one Snakemake runner (engines/pipeline/shard_run.py), under a run config whose
exhaustive section plans just those shards' windows, and records each one in the ledger as it
finishes; ``--keep`` records the finished shards found under results/ (computed elsewhere and
copied in).  Without either it reads the finished shards (their counts and the CPU time of their
job logs) and says what is covered, what the rest costs at the measured rate, and what is left.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Mapping
from copy import deepcopy
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core.errors import CardlabError
from ..core.fmt import plural
from ..core.layout import RESULTS, ShardPlace, ledger_path, log_path, place_path
from ..core.ledger import runs_text
from .rules import Rules, experiment_rules

GAME = "narcotic"
TABLE = "narcotic_exhaustive"

CAMPAIGN_EXAMPLES = """examples:
  cardlab narcotic campaign 5                  r = 5, seed rules: decks covered, CPU, the rest's price, the ledger
  cardlab narcotic campaign 5 --run 1 --cores 1 --nice 19
                                               the next shard left, kept in the ledger as it finishes
  cardlab narcotic campaign 5 --gather bottom-right --run 6 --decks-per-shard 500000000
                                               a new campaign of other rules (its block: canonical, campaign)
  cardlab narcotic campaign 5 --keep           keep in the ledger the finished shards copied into results/"""


@dataclass(frozen=True)
class Finished:
    """A finished canonical shard under a results tree: its number, canonical ranks, counts and CPU."""

    shard: int
    start: int
    stop: int
    won: int
    sequences: int
    cpu_s: float | None


@dataclass(frozen=True)
class CampaignState:
    rules: Rules
    total: int  # canonical decks of the size
    shards: list[Finished]

    @property
    def decks(self) -> int:
        return sum(s.stop - s.start for s in self.shards)

    def rate(self) -> float | None:
        """Decks a CPU-second over the finished shards whose job logs have a timing line."""
        timed = [s for s in self.shards if s.cpu_s]
        cpu = sum(s.cpu_s for s in timed)
        return sum(s.stop - s.start for s in timed) / cpu if cpu else None


def add_campaign(nsub, raw, add_rule_options) -> None:
    c = nsub.add_parser(
        "campaign",
        help="a canonical enumeration's campaign (r = 5, ...): coverage, CPU, the rest's price, its ledger",
        description="Reads the finished canonical shards of decks of R values under one rule combination "
        "(every count checked against the shard's ranks) and prints the decks they played, their CPU time "
        "from the job logs, the price of the rest at that rate, whether the config's block is a campaign "
        "block (`canonical: true`, `campaign: true`: it plans the shards its ledger keeps), what the ledger "
        "keeps, and the shards left.",
        epilog=CAMPAIGN_EXAMPLES,
        formatter_class=raw,
    )
    c.add_argument("ranks", type=int, metavar="R", help="values in the deck, 1..6")
    add_rule_options(c)
    c.add_argument("--results", default=RESULTS, help="results tree (default: %(default)s)")
    c.add_argument(
        "--config", default="config.yaml", help="the config the campaign's block is in (default: %(default)s)"
    )
    c.add_argument(
        "--keep", action="store_true", help="record every finished shard under the results tree in the ledger"
    )
    r = c.add_argument_group("running the next shards (Snakemake, in this directory's workflow)")
    r.add_argument("--run", type=int, metavar="N", help="compute the next N shards left, then show the campaign")
    r.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="cores for Snakemake (default: all)")
    r.add_argument("--decks-per-shard", type=int, help="the shard grid of a campaign with no block and no ledger yet")
    r.add_argument("--nice", type=int, default=0, help="run Snakemake and its jobs at this niceness (default: 0)")
    r.add_argument("--snakemake", default="", metavar="ARGS", help="more Snakemake options")
    c.set_defaults(func=cmd_campaign)


def campaign_rules(args) -> Rules:
    from .cli import rules_from_args
    from .exact import MAX_EXACT_RANKS

    if not 1 <= args.ranks <= MAX_EXACT_RANKS:
        raise CardlabError(f"campaign: R must be 1..{MAX_EXACT_RANKS} (canonical ranks are 64-bit), got {args.ranks}")
    base = rules_from_args(args)
    return Rules(base.matching, base.gather, base.pile_four, args.ranks)


def campaign_block(config: Mapping[str, Any] | None, rules: Rules, where: str) -> dict | None:
    """The canonical block of ``narcotic.exhaustive`` that plans these rules (None: the config has none)."""
    from .exact import exhaustive_blocks

    section = (config or {}).get("narcotic") or {}
    for block in exhaustive_blocks(section):
        if block["canonical"] and rules.ranks in block["ranks"]:
            if any(r.variant == rules.variant for r in experiment_rules(block, rules.ranks)):
                return block
    return None


def campaign_state(rules: Rules, results: str = RESULTS) -> CampaignState:
    """The finished canonical shards of the rules under a results tree, each checked against its ranks."""
    import glob

    import pyarrow.parquet as pq

    from ..pipeline.jobs import read_timing
    from .canonical import canonical_count, orderings_per_deck
    from .exact import CANONICAL_EXPERIMENT

    folder = os.path.dirname(place_path(ShardPlace(GAME, TABLE, CANONICAL_EXPERIMENT, rules.variant, 0), results))
    shards = []
    for path in sorted(glob.glob(os.path.join(folder, "shard=*.parquet"))):
        n = int(os.path.basename(path).removeprefix("shard=").removesuffix(".parquet"))
        (row,) = pq.read_table(path).to_pylist()
        if row["sequences"] != (row["range_stop"] - row["range_start"]) * orderings_per_deck(rules.ranks):
            raise CardlabError(f"{path}: {row['sequences']:,} sequences is not r! times its canonical ranks")
        timing = read_timing(log_path(GAME, CANONICAL_EXPERIMENT, rules.variant, n, results)) or {}
        shards.append(
            Finished(n, row["range_start"], row["range_stop"], row["won"], row["sequences"], timing.get("cpu_s"))
        )
    return CampaignState(rules, canonical_count(rules.ranks), shards)


def grid_of(state: CampaignState, block: Mapping[str, Any] | None, given: int | None, kept: int | None) -> int:
    """The campaign's decks_per_shard: --decks-per-shard's, the block's or the ledger's, which must agree."""
    said = {
        "--decks-per-shard": given,
        "the config's block": block["per_shard"] if block else None,
        "the campaign's ledger": kept,
    }
    said = {k: int(v) for k, v in said.items() if v is not None}
    if not said:
        raise CardlabError("no shard grid yet (no block, no ledger): give --decks-per-shard")
    if len(set(said.values())) > 1:
        raise CardlabError(
            "the shard grids disagree (" + "; ".join(f"{k}: {v:,}" for k, v in said.items()) + "); a campaign keeps one"
        )
    return next(iter(said.values()))


def runs(numbers) -> str:
    """Shard numbers as runs: 0, 3..5."""
    out: list[list[int]] = []
    for n in sorted(numbers):
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(f"{a}" if a == b else f"{a}..{b}" for a, b in out)


def describe(state: CampaignState, block, ledger, per_shard: int | None, config_path: str, results: str) -> list[str]:
    from .exact import CANONICAL_EXPERIMENT

    rules = state.rules
    decks = state.decks
    lines = [
        f"narcotic r = {rules.ranks}, rules {rules.matching}/{rules.gather}/{rules.pile_four} ({rules.variant}), "
        f"canonical decks: {decks:,} of {state.total:,} played ({100 * decks / state.total:.2f} %), "
        f"{plural(len(state.shards), 'finished shard')}"
        + (f" ({runs(s.shard for s in state.shards)})" if state.shards else "")
    ]
    if state.shards:
        won = sum(s.won for s in state.shards)
        seqs = sum(s.sequences for s in state.shards)
        p = Fraction(won, seqs)
        share = "exact" if decks == state.total else "among the decks played so far (not the answer until complete)"
        lines.append(f"  won {won:,} of {seqs:,} sequences: {p.numerator}/{p.denominator} = {float(p):.6f} ({share})")
    rate = state.rate()
    if rate:
        cpu = sum(s.cpu_s or 0 for s in state.shards)
        left = state.total - decks
        lines.append(
            f"  CPU {cpu / 60:.1f} min, {rate:,.0f} decks a CPU-second; the {left:,} decks left: about "
            f"{left / rate / 3600:.2f} core-hours at that rate"
        )
    if block is None:
        lines.append(
            f"  {config_path} has no canonical block of these rules: add one with `canonical: true`, `campaign: true` "
            f"(`- ranks: [{rules.ranks}]`, the rules, its decks_per_shard) to plan the ledger's shards"
        )
    elif block.get("campaign"):
        lines.append(f"  {config_path}'s block {block['where']} is a campaign block: it plans the ledger's shards")
    else:
        lines.append(
            f"  {config_path}'s block {block['where']} is not a campaign block: it plans its whole grid or window"
        )
    path = ledger_path(GAME, CANONICAL_EXPERIMENT, rules.variant, results)
    if ledger is None:
        lines.append(f"  ledger {path}: keeps no shard yet")
    else:
        lines.append(
            f"  ledger {path}: keeps {plural(ledger.count, 'shard')} ({runs_text(ledger.runs)}) "
            f"of {ledger.per_shard:,} decks"
        )
        finished = {s.shard for s in state.shards}
        if unkept := sorted(n for n in finished if n not in ledger):
            lines.append(f"  finished but not in the ledger: shards {runs(unkept)} (--keep)")
        if (missing := ledger.without(finished)).count:
            lines.append(f"  in the ledger but not under {results}/: shards {runs_text(missing.runs)}")
    if per_shard:
        left = shards_left(state, per_shard)
        lines.append(
            f"  shards left on the grid of {per_shard:,} decks: {plural(len(left), 'shard')}"
            + (f" ({runs(left)})" if left else "")
        )
    return lines


def shards_left(state: CampaignState, per_shard: int) -> list[int]:
    done = {s.shard for s in state.shards}
    return [n for n in range(-(-state.total // per_shard)) if n not in done]


def window_of(n: int, per_shard: int, total: int) -> tuple[int, int]:
    return n * per_shard, min((n + 1) * per_shard, total)


def run_config(config: Mapping[str, Any], rules: Rules, shards: list[int], per_shard: int, total: int) -> dict:
    """The user's config with the exhaustive section planning exactly the run's shards of these rules: every
    canonical block of the rules' deck size that plans them dropped, a window block of them added."""
    from .exact import exhaustive_blocks

    out = deepcopy(dict(config))
    section = out.setdefault("narcotic", {})
    raw = section.get("exhaustive") or []
    blocks = [raw] if isinstance(raw, Mapping) else list(raw)
    parsed = exhaustive_blocks({"exhaustive": blocks})
    keep = []
    for original, block in zip(blocks, parsed):
        plans = block["canonical"] and rules.ranks in block["ranks"]
        if not (plans and any(r.variant == rules.variant for r in experiment_rules(block, rules.ranks))):
            keep.append(original)
    windows: list[list[int]] = []
    for n in sorted(shards):
        a, b = window_of(n, per_shard, total)
        if windows and windows[-1][1] == a:
            windows[-1][1] = b
        else:
            windows.append([a, b])
    keep.append(
        {
            "ranks": [rules.ranks],
            "matching": rules.matching,
            "gather": rules.gather,
            "pile_four": rules.pile_four,
            "canonical": True,
            "decks_per_shard": per_shard,
            "window": windows,
        }
    )
    section["exhaustive"] = keep
    return out


def cmd_campaign(args) -> int:
    from ..core.ledger import read_ledger, record_kept
    from ..pipeline.plan import load_config
    from .canonical import canonical_count
    from .exact import CANONICAL_EXPERIMENT, ledger_grid

    if args.run is not None and args.keep:
        raise CardlabError("--run keeps each shard it finishes in the ledger; give --run or --keep, not both")
    rules = campaign_rules(args)
    config = load_config([args.config]) if os.path.isfile(args.config) else None
    block = campaign_block(config, rules, args.config)
    place = (GAME, CANONICAL_EXPERIMENT, rules.variant)
    ledger = read_ledger(*place, ledger_grid(rules, canonical_count(rules.ranks)), root=args.results)
    state = campaign_state(rules, args.results)
    rc = 0
    if args.run is not None or args.keep:
        per_shard = grid_of(state, block, args.decks_per_shard, ledger.per_shard if ledger else None)
    else:
        try:
            per_shard = grid_of(state, block, args.decks_per_shard, ledger.per_shard if ledger else None)
        except CardlabError:
            per_shard = None
    if args.keep:
        if state.shards:
            kept = record_kept(
                *place,
                per_shard,
                [s.shard for s in state.shards],
                ledger_grid(rules, canonical_count(rules.ranks)),
                root=args.results,
            )
            print(f"{rules.variant}: {plural(kept.count, 'shard')} kept in the ledger")
        else:
            print(f"{rules.variant}: no finished shard under {args.results}/ to keep")
    if args.run is not None:
        rc = run_campaign(args, config or {}, rules, state, per_shard)
        state = campaign_state(rules, args.results)
    ledger = read_ledger(*place, ledger_grid(rules, canonical_count(rules.ranks)), root=args.results)
    print("\n".join(describe(state, block, ledger, per_shard, args.config, args.results)))
    return rc


def run_campaign(args, config: Mapping[str, Any], rules: Rules, state: CampaignState, per_shard: int) -> int:
    """`campaign R --run N`: Snakemake computes the next N shards left, each kept in the ledger as it finishes."""
    from ..core.ledger import record_kept
    from ..pipeline.jobs import read_timing
    from ..pipeline.shard_run import run_shards
    from .canonical import canonical_count
    from .exact import CANONICAL_EXPERIMENT, ledger_grid

    if args.run < 1:
        raise CardlabError(f"--run: the number of shards to run must be at least 1, got {args.run}")
    if os.path.normpath(args.results) != RESULTS:
        raise CardlabError(f"--run computes shards under {RESULTS}/ of this directory (the workflow's); drop --results")
    if not os.path.isfile("Snakefile"):
        raise CardlabError("--run needs the workflow: run it in the directory that holds the Snakefile")
    shards = shards_left(state, per_shard)[: args.run]
    if not shards:
        print(f"{rules.variant}: every shard is finished; nothing to run")
        return 0
    files = {str(n): [place_path(ShardPlace(GAME, TABLE, CANONICAL_EXPERIMENT, rules.variant, n))] for n in shards}
    logs = {str(n): log_path(GAME, CANONICAL_EXPERIMENT, rules.variant, n) for n in shards}
    work = {str(n): b - a for n in shards for a, b in [window_of(n, per_shard, state.total)]}
    log = f".snakemake/log/cardlab-narcotic-campaign-r{rules.ranks}-{time.strftime('%Y%m%dT%H%M%S')}.log"
    print(
        f"{rules.variant}: {plural(len(shards), 'shard')} ({runs(shards)}, {sum(work.values()):,} decks) on "
        f"{plural(args.cores, 'core')}; snakemake's output: {log}",
        flush=True,
    )

    def finished(name: str) -> str:
        a, b = window_of(int(name), per_shard, state.total)
        cpu = (read_timing(logs[name]) or {}).get("cpu_s")
        return f"shard {name} [{a:,}, {b:,}) done" + (f", {cpu / 60:.1f} CPU-min" if cpu else "")

    rc, _ = run_shards(
        files,
        run_config(config, rules, shards, per_shard, state.total),
        args.cores,
        log,
        shlex.split(args.snakemake),
        args.nice,
        finished=finished,
        logs=logs,
        work=work,
        command=shlex.join(["cardlab", *sys.argv[1:]]),
        kept=lambda name: record_kept(
            GAME,
            CANONICAL_EXPERIMENT,
            rules.variant,
            per_shard,
            [int(name)],
            ledger_grid(rules, canonical_count(rules.ranks)),
        ),
    )
    return rc
