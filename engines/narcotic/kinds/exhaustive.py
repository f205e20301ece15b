"""Exhaustive Narcotic shards: every distinct value sequence of a small deck, played exactly
(:mod:`engines.narcotic.exact` ranks and counts them), each shard kept as one row of exact counts.

Ranks are 64-bit: decks up to :data:`MAX_EXACT_RANKS` values (r = 6: 3.2e15 sequences).
Exhaustive shards carry the explicit ``EXACT_RESULT_VERSION``: a kept result (r = 4) outlives
refactors and speed-ups of the kernel that do not change a game's outcome.

A block with ``canonical: true`` plans :class:`CanonicalDecks` shards instead (kind and
experiment ``canonical``, ``CANONICAL_RESULT_VERSION``): each plays one deck for every r!
sequences that differ only by a renaming of values (:mod:`engines.narcotic.canonical`), on a grid of
canonical ranks, and weights every count by r!, so the row is the plain enumeration's row of
the same sequences and ``narcotic_exact`` reads both alike.  Such a block may be a campaign
(``campaign: true``): it plans exactly the shards its ledger keeps
(``results/ledger/narcotic/canonical/<variant>.json``, `cardlab narcotic campaign`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pyarrow as pa

from ...core.errors import CardlabError
from ...core.grid import GridNames, grid_shards, setting_blocks
from ...core.ledger import LedgerGrid, kept_shards
from ...kinds import Resources, Schedule, ShardKind
from ..canonical import canonical_count
from ..exact import canonical_counts, exact_counts, sequence_count
from ..rules import Rules, experiment_rules
from .tally import RULE_COLUMNS, rule_cells, rules_spec

# Changing what an exhaustive shard computes (the order of the sequences, the rules, the time
# model, the columns) must bump it: tests/narcotic/test_exact.py pins the results of small shards.
EXACT_RESULT_VERSION = "narcotic-exact-1"
# The same for canonical shards (the order of the canonical decks, the r! weight, the rules, ...):
# tests/narcotic/test_canonical.py pins the results of small shards.
CANONICAL_RESULT_VERSION = "narcotic-canonical-1"
EXACT_RESOURCES = Resources(runtime_min=120)
EXHAUSTIVE_EXPERIMENT = "exhaustive"  # reserved: names the exhaustive shards' paths and logs
CANONICAL_EXPERIMENT = "canonical"  # reserved: names the canonical shards' paths, logs and ledgers
MAX_EXACT_RANKS = 6  # the largest deck whose sequence count fits a 64-bit rank
DEFAULT_SEQUENCES_PER_SHARD = 100_000_000
# canonical decks of one shard by default: r = 5 at about 1.9 million decks a CPU-second (seed rules,
# measured here) is about 4.5 CPU-minutes a shard, 6 shards in all; r = 6 (1.25 million) 9,019 of 7
DEFAULT_DECKS_PER_SHARD = 500_000_000

EXACT_TABLES = {
    # one row a shard: exact counts over the sequences of ranks [range_start, range_stop) of a deck
    "narcotic_exhaustive": pa.schema(
        [
            *RULE_COLUMNS,
            ("ranks", pa.int32()),  # values in the deck (4 * ranks cards)
            ("range_start", pa.int64()),
            ("range_stop", pa.int64()),
            ("space", pa.int64()),  # distinct sequences of the deck: (4 ranks)! / (4!)^ranks
            ("sequences", pa.int64()),
            ("won", pa.int64()),
            ("looped", pa.int64()),
            ("won_time_s", pa.int64()),  # sum of time_s over won games
            ("won_time_s2", pa.int64()),  # sum of time_s squared over won games (the exact spread of a won game's time)
            ("time_s", pa.int64()),  # sum of time_s over all games (the seed's time model)
            ("passes", pa.int64()),  # sum of passes over all games
            ("won_passes", pa.int64()),  # sum of passes over won games
        ]
    ),
}


def ledger_grid(rules: Rules, items: int) -> LedgerGrid:
    """The grid a campaign ledger of these rules is checked against, and the command that rebuilds it."""
    words = f"cardlab narcotic campaign {rules.ranks} --matching {rules.matching} --gather {rules.gather}"
    return LedgerGrid(f"r = {rules.ranks}", items, f"{words} --pile-four {rules.pile_four} --keep", "decks")


# ----------------------------------------------------------------------------- planning


def exhaustive_blocks(section: Mapping[str, Any]) -> list[dict]:
    """The ``exhaustive`` setting as a list of blocks (one mapping or a list): deck sizes, rules,
    shard size, threads, an optional window of ranks (one deck size only), and whether the block
    enumerates canonical decks (``canonical``) as a campaign (``campaign``)."""
    out = []
    for where, block in setting_blocks(section, "exhaustive", "narcotic.exhaustive"):
        ranks = sorted({int(r) for r in block["ranks"]})
        window = block.get("window")
        canonical = bool(block.get("canonical", False))
        campaign = bool(block.get("campaign", False))
        if window is not None and len(ranks) != 1:
            raise CardlabError(f"{where}.window: a window of ranks needs exactly one deck size, got ranks {ranks}")
        if canonical and "sequences_per_shard" in block:
            raise CardlabError(
                f"{where}: a canonical block's shards are sized in decks: decks_per_shard, not sequences_per_shard"
            )
        if not canonical and ("decks_per_shard" in block or campaign):
            key = "decks_per_shard" if "decks_per_shard" in block else "campaign"
            raise CardlabError(f"{where}.{key}: only a canonical block (canonical: true) takes it")
        if canonical and max(ranks) > MAX_EXACT_RANKS:
            raise CardlabError(
                f"{where}: canonical decks have 64-bit ranks up to r = {MAX_EXACT_RANKS}, got {max(ranks)}"
            )
        per_shard = (
            block.get("decks_per_shard", DEFAULT_DECKS_PER_SHARD)
            if canonical
            else block.get("sequences_per_shard", DEFAULT_SEQUENCES_PER_SHARD)
        )
        out.append(
            {
                **block,
                "where": where,
                "ranks": ranks,
                "canonical": canonical,
                "campaign": campaign,
                "per_shard": int(per_shard),
                "sequences_per_shard": int(block.get("sequences_per_shard", DEFAULT_SEQUENCES_PER_SHARD)),
                "threads": int(block.get("threads", 1)),
                "window": window,
            }
        )
    return out


def check_reserved_name(section: Mapping[str, Any]) -> None:
    """An experiment or campaign named like the exhaustive (or canonical) shards would share their logs."""
    for key in ("experiments", "campaigns"):
        for i, entry in enumerate(section.get(key) or []):
            if entry.get("name") in (EXHAUSTIVE_EXPERIMENT, CANONICAL_EXPERIMENT):
                raise CardlabError(
                    f"narcotic.{key}[{i}].name: {entry['name']!r} is reserved (it names the exhaustive "
                    "shards); choose another name"
                )


class ExhaustiveDecks(ShardKind):
    """Every distinct value sequence of ranks [start, stop) of a small deck under one rule combination,
    played exactly and kept as counts; shard i covers ranks [i * n, (i + 1) * n)."""

    name = "exhaustive"
    stage = "exhaustive"
    tables = tuple(EXACT_TABLES)
    resources = EXACT_RESOURCES
    result_version = EXACT_RESULT_VERSION
    work_unit = "sequences"
    canonical = False  # which blocks this kind plans
    experiment = EXHAUSTIVE_EXPERIMENT

    def blocks(self, section: Mapping[str, Any]) -> list[dict]:
        """The exhaustive blocks this kind plans (canonical ones or the others)."""
        return [b for b in exhaustive_blocks(section) if b["canonical"] == self.canonical]

    def space(self, ranks: int) -> int:
        """The ranks of a deck size's grid."""
        return sequence_count(ranks)

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        """For each block, deck size and rule combination, the shards of its grid inside the block's window."""
        blocks = self.blocks(section)
        if exhaustive_blocks(section):
            check_reserved_name(section)
        specs: list[dict] = []
        seen: dict[str, str] = {}
        items = "decks" if self.canonical else "sequences"
        for block in blocks:
            for r in block["ranks"]:
                per = "decks_per_shard" if self.canonical else "sequences_per_shard"
                names = GridNames(size=f"r={r}", window="window", per_shard=per, items=items)
                grid = grid_shards(self.space(r), block["per_shard"], block["window"], block["where"], names)
                for rules in experiment_rules(block, r):
                    if rules.variant in seen:
                        raise CardlabError(
                            f"{block['where']}: rules {rules.variant} are already enumerated by {seen[rules.variant]}; "
                            "give each deck size and rule combination one block"
                        )
                    seen[rules.variant] = block["where"]
                    mine = grid
                    if block["campaign"]:
                        kept = kept_shards(
                            self.game,
                            self.experiment,
                            rules.variant,
                            block["per_shard"],
                            block["where"],
                            ledger_grid(rules, self.space(r)),
                        )
                        mine = [g for g in grid if g[0] in kept]
                    specs += [self.spec(rules, shard, r0, r1) for shard, r0, r1 in mine]
        return specs

    def spec(self, rules: Rules, shard: int, start: int, stop: int) -> dict:
        return rules_spec(self.experiment, rules, self.name, shard, start, stop)

    def expected_rows(self, spec: Mapping[str, Any], table: str) -> int:
        """One row of counts a shard."""
        return 1

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """The block's ``threads``."""
        for block in self.blocks(section):
            if int(spec["ranks"]) in block["ranks"]:
                if any(r.variant == spec["variant"] for r in experiment_rules(block, int(spec["ranks"]))):
                    return Schedule(threads=block["threads"])
        return Schedule()

    def counts(self, rules: Rules, start: int, stop: int, progress) -> dict[str, int]:
        return exact_counts(rules, start, stop, progress)

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        """Play every sequence of ranks [start, stop) and count the outcomes exactly."""
        rules = Rules.of_spec(spec)
        start, stop = (int(x) for x in spec["range"])
        sums = self.counts(rules, start, stop, progress)
        row = {
            **rule_cells(spec, rules),
            "ranks": rules.ranks,
            "range_start": start,
            "range_stop": stop,
            "space": sequence_count(rules.ranks),
            **sums,
        }
        return {"narcotic_exhaustive": {c: [v] for c, v in row.items()}}


class CanonicalDecks(ExhaustiveDecks):
    """Every canonical deck of ranks [start, stop) of a small deck (:mod:`.canonical`: one deck for each
    r! sequences that differ by a renaming of values) under one rule combination, played exactly; the
    row counts the sequences they stand for (every count times r!): the plain enumeration's row of the
    same sequences, with range_start/stop canonical ranks.  Shard i covers ranks [i * n, (i + 1) * n)."""

    name = "canonical"
    result_version = CANONICAL_RESULT_VERSION
    work_unit = "decks"
    canonical = True
    experiment = CANONICAL_EXPERIMENT

    def space(self, ranks: int) -> int:
        return canonical_count(ranks)

    def counts(self, rules: Rules, start: int, stop: int, progress) -> dict[str, int]:
        return canonical_counts(rules, start, stop, progress)

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """The block's ``threads``; the kernels' compilation."""
        return replace(super().schedule(section, spec), price="narcotic/canonical", units=int(spec.get("work", 0)))
