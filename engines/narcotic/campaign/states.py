"""Narcotic's canonical enumeration campaigns (r = 5, ...) as the campaign layer reads them.

A canonical block with ``campaign: true`` (engines/narcotic/exact.py) plans exactly the shards its
ledger keeps (``results/ledger/narcotic/canonical/<variant>.json``); ``cardlab campaign narcotic R``
(engines/campaign/command.py, and its wrapper ``cardlab narcotic campaign R``) says where one
stands, runs its next shards and keeps them.  What is Narcotic's own is here: the finished shards
(each count checked against its ranks), the config block of the rules, the run config that plans
the next windows, and the lines on the decks won so far and the rest's price at the measured rate.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from copy import deepcopy
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...campaign.book import grid_of, runs_words
from ...core.errors import CardlabError
from ...core.fmt import plural
from ...core.layout import RESULTS, ShardPlace, log_path, place_path, shards_present
from ..rules import Rules, experiment_rules

GAME = "narcotic"
TABLE = "narcotic_exhaustive"

CAMPAIGN_EXAMPLES = """examples:
  cardlab narcotic campaign 5                  r = 5, seed rules: decks covered, CPU, the rest's price, the ledger
  cardlab narcotic campaign 5 --run 1 --cores 1 --nice 19
                                               the next shard left, kept in the ledger as it finishes
  cardlab narcotic campaign 5 --gather bottom-right --run 6 --decks-per-shard 500000000
                                               a new campaign of other rules (its block: canonical, campaign)
  cardlab narcotic campaign 5 --keep           keep in the ledger the finished shards copied into results/
  cardlab narcotic campaign full_deck          a tally campaign of the config (10^9 seeded games): its shards
  cardlab narcotic campaign NAME --run 2       its next 2 shards (its entry: `campaign: true`, games, seed)"""


@dataclass(frozen=True)
class Finished:
    """A finished shard under a results tree: its number, items (canonical ranks, or games), the games it
    stands for (a canonical deck's r! sequences, a tally's games) and those won, and its CPU."""

    shard: int
    start: int
    stop: int
    won: int
    sequences: int
    cpu_s: float | None


@dataclass(frozen=True)
class CampaignState:
    rules: Rules
    total: int  # canonical decks of the size, or a tally campaign's games
    shards: list[Finished]

    @property
    def per_shard(self) -> int | None:
        """The grid the finished shards follow (None while they do not tell)."""
        return grid_of(self.shards, self.total)

    @property
    def played(self) -> int:
        """Items of the finished shards (decks, games)."""
        return sum(s.stop - s.start for s in self.shards)

    def rate(self) -> float | None:
        """Items a CPU-second over the finished shards whose jobs' records have a timing."""
        timed = [s for s in self.shards if s.cpu_s]
        cpu = sum(s.cpu_s for s in timed)
        return sum(s.stop - s.start for s in timed) / cpu if cpu else None


def campaign_block(config: Mapping[str, Any] | None, rules: Rules, where: str) -> dict | None:
    """The canonical block of ``narcotic.exhaustive`` that plans these rules (None: the config has none)."""
    from ..exact import exhaustive_blocks

    section = (config or {}).get("narcotic") or {}
    for block in exhaustive_blocks(section):
        if block["canonical"] and rules.ranks in block["ranks"]:
            if any(r.variant == rules.variant for r in experiment_rules(block, rules.ranks)):
                return block
    return None


def campaign_state(rules: Rules, results: str = RESULTS, timing=None) -> CampaignState:
    """The finished canonical shards of the rules under a results tree, each checked against its ranks
    (``timing``: the pipeline's reader of a job's timing, which this layer cannot import)."""
    import pyarrow.parquet as pq

    from ..canonical import canonical_count, orderings_per_deck
    from ..exact import CANONICAL_EXPERIMENT

    shards = []
    for n in shards_present(GAME, TABLE, CANONICAL_EXPERIMENT, rules.variant, results):
        path = place_path(ShardPlace(GAME, TABLE, CANONICAL_EXPERIMENT, rules.variant, n), results)
        (row,) = pq.read_table(path).to_pylist()
        if row["sequences"] != (row["range_stop"] - row["range_start"]) * orderings_per_deck(rules.ranks):
            raise CardlabError(f"{path}: {row['sequences']:,} sequences is not r! times its canonical ranks")
        record = (timing(log_path(GAME, CANONICAL_EXPERIMENT, rules.variant, n, results)) if timing else None) or {}
        shards.append(
            Finished(n, row["range_start"], row["range_stop"], row["won"], row["sequences"], record.get("cpu_s"))
        )
    return CampaignState(rules, canonical_count(rules.ranks), shards)


def describe(state: CampaignState, book_lines: list[str]) -> list[str]:
    """What the campaign command prints: the decks played and won so far, the CPU and the rest's price,
    then ``book_lines`` (the campaign layer's lines on the config block and the ledger)."""
    rules = state.rules
    decks = state.played
    done = f" ({runs_words(s.shard for s in state.shards)})" if state.shards else ""
    lines = [
        f"narcotic r = {rules.ranks}, rules {rules.matching}/{rules.gather}/{rules.pile_four} ({rules.variant}), "
        f"canonical decks: {decks:,} of {state.total:,} played ({100 * decks / state.total:.2f} %), "
        f"{plural(len(state.shards), 'finished shard')}{done}"
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
        price = f"; the {left:,} decks left: about {left / rate / 3600:.2f} core-hours at that rate" if left else ""
        lines.append(f"  CPU {cpu / 60:.1f} min, {rate:,.0f} decks a CPU-second{price}")
    lines += book_lines
    per_shard = state.per_shard
    if per_shard and (left := state.total - decks):
        lines.append(f"  left: {left:,} decks ({100 * left / state.total:.2f} %)")
    return lines


def run_config(config: Mapping[str, Any], rules: Rules, windows: list[tuple[int, int]], per_shard: int) -> dict:
    """The user's config with the exhaustive section planning exactly the run's shards of these rules: every
    canonical block of the rules' deck size that plans them dropped, a window block of them added."""
    from ..exact import exhaustive_blocks

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
    keep.append(
        {
            "ranks": [rules.ranks],
            "matching": rules.matching,
            "gather": rules.gather,
            "pile_four": rules.pile_four,
            "canonical": True,
            "decks_per_shard": per_shard,
            "window": [[a, b] for a, b in windows],
        }
    )
    section["exhaustive"] = keep
    return out


# --- tally campaigns: a `campaigns:` entry of seeded games kept as sums (engines/narcotic/tally.py) ---


def tally_block(config: Mapping[str, Any] | None, name: str, where: str) -> dict | None:
    """The ``narcotic.campaigns`` entry named ``name``, checked (None: the config has none)."""
    from ..tally import campaign_blocks

    section = (config or {}).get("narcotic") or {}
    return next((b for b in campaign_blocks(section) if b["name"] == name), None)


def tally_rules(block: Mapping[str, Any], variant: str | None, where: str) -> Rules:
    """The rule combination of a tally campaign a command names (``variant``: needed when it plays several)."""
    choices = experiment_rules(block)
    if variant is None and len(choices) == 1:
        return choices[0]
    names = ", ".join(r.variant for r in choices)
    if variant is None:
        raise CardlabError(f"{where}: campaign {block['name']!r} plays {len(choices)} rule combinations; "
                           f"name one with --variant ({names})")  # fmt: skip
    for rules in choices:
        if rules.variant == variant:
            return rules
    raise CardlabError(f"{where}: campaign {block['name']!r} does not play --variant {variant}; it plays {names}")


def tally_state(name: str, rules: Rules, total: int, results: str = RESULTS, timing=None) -> CampaignState:
    """The finished shards of a tally campaign's rule combination under a results tree: each has both
    tables (a shard missing one is not finished) and sums that add up (else an error naming the file)."""
    import pyarrow.parquet as pq

    from ..tally import TALLY_TABLES

    first, second = TALLY_TABLES

    def place(table: str, n: int) -> str:
        return place_path(ShardPlace(GAME, table, name, rules.variant, n), results)

    shards = []
    for n in shards_present(GAME, first, name, rules.variant, results):
        if not os.path.isfile(place(second, n)):
            continue
        path = place(first, n)
        (row,) = pq.read_table(path).to_pylist()
        games = row["range_stop"] - row["range_start"]
        if row["games"] != games or row["wins"] + row["loops"] != games:
            raise CardlabError(
                f"{path}: {row['games']:,} games, {row['wins']:,} won and {row['loops']:,} looped do not add up "
                f"to its range [{row['range_start']:,}, {row['range_stop']:,})"
            )
        record = (timing(log_path(GAME, name, rules.variant, n, results)) if timing else None) or {}
        shards.append(Finished(n, row["range_start"], row["range_stop"], row["wins"], games, record.get("cpu_s")))
    return CampaignState(rules, total, shards)


def describe_tally(name: str, state: CampaignState, book_lines: list[str]) -> list[str]:
    """What the campaign command prints for a tally campaign: the games played and won so far (with the
    win rate's 95 % interval), the CPU and the rest's price, then the layer's lines."""
    from ...core.stats import wilson

    rules, played, total = state.rules, state.played, state.total
    done = f" ({runs_words(s.shard for s in state.shards)})" if state.shards else ""
    lines = [
        f"narcotic campaign {name}, rules {rules.matching}/{rules.gather}/{rules.pile_four} ({rules.variant}): "
        f"{played:,} of {total:,} games played ({100 * played / total:.2f} %), "
        f"{plural(len(state.shards), 'finished shard')}{done}"
    ]
    if played:
        won = sum(s.won for s in state.shards)
        lo, hi = wilson(won, played)
        lines.append(
            f"  won {won:,} of {played:,} games: {100 * won / played:.4f} % (95 % interval "
            f"{100 * lo:.4f} – {100 * hi:.4f} %)"
        )
    rate = state.rate()
    if rate:
        cpu = sum(s.cpu_s or 0 for s in state.shards)
        left = max(total - played, 0)
        price = f"; the {left:,} games left: about {left / rate / 3600:.2f} core-hours at that rate" if left else ""
        lines.append(f"  CPU {cpu / 60:.1f} min, {rate:,.0f} games a CPU-second{price}")
    lines += book_lines
    if state.per_shard and (left := total - played) > 0:
        lines.append(f"  left: {left:,} games ({100 * left / total:.2f} %)")
    return lines


def tally_run_config(config: Mapping[str, Any], name: str, rules: Rules, shards: list[int], per_shard: int) -> dict:
    """The user's config with campaign ``name`` planning exactly these shards of one rule combination: its
    entry narrowed to the rules and ``only_shards`` (the seeds follow the name, variant and shard alone)."""
    out = deepcopy(dict(config))
    section = out.setdefault("narcotic", {})
    entries = []
    for entry in section.get("campaigns") or []:
        if entry.get("name") == name:
            entry = {k: v for k, v in entry.items() if k not in ("rules", "campaign", "only_shards", "ranks")}
            entry.update(
                matching=rules.matching, gather=rules.gather, pile_four=rules.pile_four, ranks=rules.ranks,
                games_per_shard=per_shard, only_shards=sorted(shards),
            )  # fmt: skip
        entries.append(entry)
    section["campaigns"] = entries
    return out
