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

from ..campaign.book import runs_words
from ..core.errors import CardlabError
from ..core.fmt import plural
from ..core.layout import RESULTS, ShardPlace, log_path, place_path
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
    def per_shard(self) -> int | None:
        """The grid the finished shards follow (None while they do not tell)."""
        for s in self.shards:
            if s.shard > 0:
                return s.start // s.shard
            if s.stop < self.total:
                return s.stop
        return None

    @property
    def decks(self) -> int:
        return sum(s.stop - s.start for s in self.shards)

    def rate(self) -> float | None:
        """Decks a CPU-second over the finished shards whose job logs have a timing line."""
        timed = [s for s in self.shards if s.cpu_s]
        cpu = sum(s.cpu_s for s in timed)
        return sum(s.stop - s.start for s in timed) / cpu if cpu else None


def campaign_block(config: Mapping[str, Any] | None, rules: Rules, where: str) -> dict | None:
    """The canonical block of ``narcotic.exhaustive`` that plans these rules (None: the config has none)."""
    from .exact import exhaustive_blocks

    section = (config or {}).get("narcotic") or {}
    for block in exhaustive_blocks(section):
        if block["canonical"] and rules.ranks in block["ranks"]:
            if any(r.variant == rules.variant for r in experiment_rules(block, rules.ranks)):
                return block
    return None


def campaign_state(rules: Rules, results: str = RESULTS, timing=None) -> CampaignState:
    """The finished canonical shards of the rules under a results tree, each checked against its ranks
    (``timing``: the pipeline's reader of a job's timing, which this layer cannot import)."""
    import glob

    import pyarrow.parquet as pq

    from .canonical import canonical_count, orderings_per_deck
    from .exact import CANONICAL_EXPERIMENT

    folder = os.path.dirname(place_path(ShardPlace(GAME, TABLE, CANONICAL_EXPERIMENT, rules.variant, 0), results))
    shards = []
    for path in sorted(glob.glob(os.path.join(folder, "shard=*.parquet"))):
        n = int(os.path.basename(path).removeprefix("shard=").removesuffix(".parquet"))
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
    decks = state.decks
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
        lines.append(
            f"  CPU {cpu / 60:.1f} min, {rate:,.0f} decks a CPU-second; the {left:,} decks left: about "
            f"{left / rate / 3600:.2f} core-hours at that rate"
        )
    lines += book_lines
    per_shard = state.per_shard
    if per_shard and (left := state.total - decks):
        lines.append(f"  left: {left:,} decks ({100 * left / state.total:.2f} %)")
    return lines


def run_config(config: Mapping[str, Any], rules: Rules, windows: list[tuple[int, int]], per_shard: int) -> dict:
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
