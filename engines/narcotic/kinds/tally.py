"""Narcotic campaigns: billions of seeded games kept as counts, not as one row per game.

A ``campaigns:`` entry of the config plays the same games an experiment would (game i
of shard s is dealt from the stream (seed of s, i), the seed derived from the campaign's
name, rule variant and shard exactly as for a ``sim`` shard), but each shard stores one
row of sums (``narcotic_tallies``) and a histogram of passes by outcome
(``narcotic_tally_passes``): a 10^9-game campaign is a few kilobytes that git can keep.

Shards lie on a fixed grid: shard i covers games [i * games_per_shard, (i + 1) *
games_per_shard), so raising ``games`` adds shards and leaves the finished ones as they
are.  Tally shards carry the explicit ``TALLY_RESULT_VERSION``: a kept campaign outlives
refactors and speed-ups of the kernel that do not change what a game's outcome is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from ...core.errors import CardlabError
from ...core.layout import MAX_SHARD
from ...core.ledger import LedgerGrid, kept_shards
from ...core.rng import seed_derivation, shard_seed
from ...kinds import Resources, Schedule, ShardKind
from ..kernel import GAMES_PER_CALL, play, shuffled_decks
from ..rules import Rules, experiment_rules

# Tally shards carry this explicit result version instead of a source hash, so a kept campaign
# survives edits that do not change a game's outcome (a faster kernel, a refactor, a report).
# Changing what a tally shard computes (the deal, the rules, the time model, the columns) must
# bump it: tests/narcotic/test_tally_version.py pins the results of a small campaign.
TALLY_RESULT_VERSION = "narcotic-tally-1"
# a 2.5e8-game shard takes about 10 minutes of one quiet core (450,000 games/s); room for a busy one
TALLY_RESOURCES = Resources(runtime_min=120)
DEFAULT_GAMES_PER_SHARD = 250_000_000

# the columns every Narcotic shard table starts with (narcotic_games too)
RULE_COLUMNS = (
    ("experiment", pa.string()),
    ("variant", pa.string()),
    ("matching", pa.string()),
    ("gather", pa.string()),
    ("pile_four", pa.string()),
    ("shard", pa.int32()),
)

TALLY_TABLES = {
    # one row a shard: sums over its games, from which every campaign figure follows
    "narcotic_tallies": pa.schema(
        [
            *RULE_COLUMNS,
            ("range_start", pa.int64()),
            ("range_stop", pa.int64()),
            ("games", pa.int64()),
            ("wins", pa.int64()),
            ("loops", pa.int64()),
            ("won_time_s", pa.int64()),  # sum of time_s over won games: also the seed's total (loops count 0)
            ("won_time_s2", pa.int64()),  # sum of time_s squared over won games (the mean time's interval)
            ("won_passes", pa.int64()),  # sum of passes over won games
            ("loop_cycle_length", pa.int64()),  # sum of cycle_length over looping games
        ]
    ),
    # games by outcome and passes through the deck
    "narcotic_tally_passes": pa.schema(
        [*RULE_COLUMNS, ("won", pa.bool_()), ("passes", pa.int32()), ("games", pa.int64())]
    ),
}

SUMS = ("games", "wins", "loops", "won_time_s", "won_time_s2", "won_passes", "loop_cycle_length")


def rules_spec(experiment: str, rules: Rules, kind: str, shard: int, start: int, stop: int) -> dict:
    """The spec fields every Narcotic shard starts with: its place, kind, rules and range."""
    return {
        "experiment": experiment,
        "variant": rules.variant,
        "shard": shard,
        "kind": kind,
        **rules.spec_fields(),
        "range": [start, stop],
        "work": stop - start,
    }


def rule_cells(spec: Mapping[str, Any], rules: Rules) -> dict:
    """The values of a shard's RULE_COLUMNS."""
    return {
        "experiment": spec["experiment"],
        "variant": rules.variant,
        "matching": rules.matching,
        "gather": rules.gather,
        "pile_four": rules.pile_four,
        "shard": int(spec["shard"]),
    }


class Tally:
    """Running sums and pass histograms over played games (``play``'s result arrays)."""

    def __init__(self) -> None:
        self.sums = dict.fromkeys(SUMS, 0)
        self.passes = {True: np.zeros(0, np.int64), False: np.zeros(0, np.int64)}

    def add(self, res: Mapping[str, np.ndarray]) -> None:
        won = res["won"].astype(bool)
        time_s = res["time_s"].astype(np.int64)[won]
        self.sums["games"] += len(won)
        self.sums["wins"] += int(won.sum())
        self.sums["loops"] += int((~won).sum())
        self.sums["won_time_s"] += int(time_s.sum())
        self.sums["won_time_s2"] += int((time_s * time_s).sum())
        self.sums["won_passes"] += int(res["passes"][won].astype(np.int64).sum())
        self.sums["loop_cycle_length"] += int(res["cycle_length"][~won].astype(np.int64).sum())
        for outcome in (True, False):
            counts = np.bincount(res["passes"][won == outcome].astype(np.int64))
            self.passes[outcome] = add_padded(self.passes[outcome], counts)

    def histogram(self) -> list[tuple[bool, int, int]]:
        """(won, passes, games) for every outcome and pass count that occurred, won first."""
        return [(o, int(p), int(self.passes[o][p])) for o in (True, False) for p in np.flatnonzero(self.passes[o])]


def add_padded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise sum of two count arrays of different lengths."""
    out = np.zeros(max(len(a), len(b)), np.int64)
    out[: len(a)] += a
    out[: len(b)] += b
    return out


def tally_grid(name: str, rules: Rules, games: int) -> LedgerGrid:
    """The grid a tally campaign's ledger is checked against, and the command that rebuilds it."""
    return LedgerGrid(name, games, f"{tally_command(name, rules)} --keep", "games")


def tally_command(name: str, rules: Rules) -> str:
    """The campaign command that names one rule combination of a tally campaign."""
    return f"cardlab campaign narcotic {name} --variant {rules.variant}"


def campaign_blocks(section: Mapping[str, Any]) -> list[dict]:
    """The ``campaigns`` entries, checked against each other and the experiments (names name paths and logs)."""
    taken = {exp["name"]: f"narcotic.experiments[{i}]" for i, exp in enumerate(section.get("experiments") or [])}
    out = []
    for i, block in enumerate(section.get("campaigns") or []):
        where = f"narcotic.campaigns[{i}]"
        if block["name"] in taken:
            raise CardlabError(f"{where}.name: {block['name']!r} is already used by {taken[block['name']]}")
        taken[block["name"]] = where
        per_shard = int(block.get("games_per_shard", DEFAULT_GAMES_PER_SHARD))
        shards = -(-int(block["games"]) // per_shard)
        if shards - 1 > MAX_SHARD:
            raise CardlabError(
                f"{where}: {shards:,} shards of {per_shard:,} games; at most {MAX_SHARD + 1:,}: raise games_per_shard"
            )
        listed = block.get("only_shards")
        if listed and block.get("campaign"):
            raise CardlabError(
                f"{where}: a campaign block (campaign: true) plans the shards its ledger keeps; "
                "give campaign or only_shards, not both"
            )
        outside = sorted(i for i in (listed or []) if i >= shards)
        if outside:
            raise CardlabError(
                f"{where}.only_shards: {outside} are not on the grid of {block['games']:,} games in shards of "
                f"{per_shard:,} (shards 0..{shards - 1})"
            )
        planned = sorted(listed) if listed else list(range(shards))
        out.append(
            {
                **block,
                "where": where,
                "games_per_shard": per_shard,
                "threads": int(block.get("threads", 1)),
                "campaign": bool(block.get("campaign", False)),
                "grid_shards": planned,
            }
        )
    return out


class CampaignTally(ShardKind):
    """A shard of a campaign: the games a ``sim`` shard with its seed and range plays, kept as sums."""

    name = "tally"
    stage = "tally"
    tables = tuple(TALLY_TABLES)
    resources = TALLY_RESOURCES
    result_version = TALLY_RESULT_VERSION

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        """For each campaign and rule combination, the shards of its fixed grid up to ``games`` (or those of ``only_shards``)."""
        specs = []
        for block in campaign_blocks(section):
            total, per_shard = int(block["games"]), block["games_per_shard"]
            for rules in experiment_rules(block):
                shards = block["grid_shards"]
                if block["campaign"]:
                    grid = tally_grid(block["name"], rules, total)
                    kept = kept_shards(self.game, block["name"], rules.variant, per_shard, block["where"], grid)
                    shards = [s for s in shards if s in kept]
                for shard in shards:
                    start = shard * per_shard
                    specs.append(self.spec(block, rules, shard, start, min(start + per_shard, total)))
        return specs

    def spec(self, block: Mapping[str, Any], rules: Rules, shard: int, start: int, stop: int) -> dict:
        name, root = block["name"], int(block["seed"])
        return {
            **rules_spec(name, rules, self.name, shard, start, stop),
            "root_seed": root,
            "seed": shard_seed(root, self.game, name, rules.variant, shard),
            "seed_derivation": seed_derivation(root, self.game, name, rules.variant, shard),
        }

    def expected_rows(self, spec: Mapping[str, Any], table: str) -> int | None:
        """One tally row a shard; the histogram's size depends on the games."""
        return 1 if table == "narcotic_tallies" else None

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """The campaign's ``threads``."""
        for block in campaign_blocks(section):
            if block["name"] == spec["experiment"]:
                return Schedule(threads=block["threads"], price="narcotic/tally", units=int(spec.get("work", 0)))
        return Schedule(price="narcotic/tally", units=int(spec.get("work", 0)))

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        """Play games [start, stop) of the shard (game i from stream (seed, i)) and sum their outcomes."""
        rules = Rules.of_spec(spec)
        start, stop = (int(x) for x in spec["range"])
        tally = Tally()
        for a in range(start, stop, GAMES_PER_CALL):
            b = min(a + GAMES_PER_CALL, stop)
            tally.add(play(shuffled_decks(np.uint64(spec["seed"]), a, b, rules.ranks), rules, games=stop - start))
            progress.update(b - a)
        cells = rule_cells(spec, rules)
        hist = tally.histogram()
        return {
            "narcotic_tallies": {
                **{c: [v] for c, v in cells.items()},
                "range_start": [start],
                "range_stop": [stop],
                **{c: [v] for c, v in tally.sums.items()},
            },
            "narcotic_tally_passes": {
                **{c: [v] * len(hist) for c, v in cells.items()},
                "won": [h[0] for h in hist],
                "passes": [h[1] for h in hist],
                "games": [h[2] for h in hist],
            },
        }
