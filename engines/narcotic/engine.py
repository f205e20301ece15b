"""The Narcotic engine: config -> seeded shards of games -> one Parquet table of games."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from ..core.rng import seed_derivation, shard_seed
from ..core.shards import split_range
from ..interface import Engine, ReportFile
from ..kinds import Schedule, ShardKind
from .exact import EXACT_TABLES, CanonicalDecks, ExhaustiveDecks
from .kernel import GAMES_PER_CALL, play, shuffled_decks
from .reference import play_reference
from .rules import PRESETS, VALUES, Rules, all_rules, experiment_rules
from .tally import RULE_COLUMNS, TALLY_TABLES, CampaignTally, rules_spec

TABLES = {
    "narcotic_games": pa.schema(
        [
            *RULE_COLUMNS,
            ("game", pa.int64()),
            ("won", pa.bool_()),
            ("passes", pa.int32()),
            ("time_s", pa.int64()),
            ("cycle_start", pa.int32()),
            ("cycle_length", pa.int32()),
        ]
    ),
}


CHUNK = GAMES_PER_CALL


class GameSimulation(ShardKind):
    """A shard of seeded games under one rule combination: game i's deck comes from stream (seed, i)."""

    name = "sim"
    tables = tuple(TABLES)

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        """For each experiment, each rule combination, ``shards`` seeded shards of games."""
        specs = []
        for exp in section.get("experiments", []):
            root = int(exp["seed"])
            for rules in experiment_rules(exp):
                for shard, (start, stop) in enumerate(split_range(int(exp["games"]), int(exp["shards"]))):
                    specs.append(
                        {
                            **rules_spec(exp["name"], rules, self.name, shard, start, stop),
                            "root_seed": root,
                            "seed": shard_seed(root, self.game, exp["name"], rules.variant, shard),
                            "seed_derivation": seed_derivation(root, self.game, exp["name"], rules.variant, shard),
                        }
                    )
        return specs

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """Seconds-long shards share a job."""
        return Schedule(price="narcotic/sim", units=int(spec["work"]))

    def expected_rows(self, spec: Mapping[str, Any], table: str) -> int:
        """One row per game of the shard."""
        start, stop = spec["range"]
        return int(stop) - int(start)

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        """Play games [start, stop) of one shard; game i's deck comes from stream (seed, i)."""
        rules = Rules.of_spec(spec)
        start, stop = spec["range"]
        parts = []
        for a in range(start, stop, CHUNK):
            b = min(a + CHUNK, stop)
            res = play(shuffled_decks(np.uint64(spec["seed"]), a, b, rules.ranks), rules, games=stop - start)
            res["game"] = np.arange(a, b, dtype=np.int64)
            parts.append(res)
            progress.update(b - a)
        cols = {
            k: (np.concatenate([p[k] for p in parts]) if parts else np.empty(0))
            for k in ("game", "won", "passes", "time_s", "cycle_start", "cycle_length")
        }
        n = stop - start
        return {
            "narcotic_games": {
                "experiment": [spec["experiment"]] * n,
                "variant": [rules.variant] * n,
                "matching": [rules.matching] * n,
                "gather": [rules.gather] * n,
                "pile_four": [rules.pile_four] * n,
                "shard": np.full(n, int(spec["shard"]), dtype=np.int32),
                **cols,
            }
        }


class NarcoticEngine(Engine):
    name = "narcotic"
    title = "Narcotic solitaire"
    question = "How often can a shuffled deck be finished, and how long does it take?"
    work_unit = "games"
    tables = {**TABLES, **TALLY_TABLES, **EXACT_TABLES}
    kinds = (GameSimulation(), CampaignTally(), ExhaustiveDecks(), CanonicalDecks())
    sharded_field = "games"
    report_files = (
        ReportFile("narcotic.md"),
        ReportFile("narcotic.csv", "narcotic_table"),
        ReportFile("narcotic_passes.png", "narcotic_passes"),
        ReportFile("narcotic_rules.png", "narcotic_rules"),
        ReportFile("narcotic_decks.png", "narcotic_decks"),
    )
    figure_basis = {
        "narcotic_passes": (
            "SELECT coalesce(sum(wins), 0), coalesce(sum(games), 0) FROM narcotic_summary WHERE preset IS NOT NULL",
            "{0:,} won games out of {1:,} played (seed and classic rules)",
        ),
        "narcotic_rules": (
            "SELECT coalesce(sum(games), 0), coalesce(min(games), 0) FROM narcotic_rule_combinations",
            "{0:,} games, {1:,} per rule combination",
        ),
        "narcotic_decks": (
            "SELECT coalesce(sum(sequences), 0), coalesce(sum(games), 0) FROM narcotic_decks d "
            "JOIN narcotic_presets p USING (matching, gather, pile_four) WHERE p.preset = 'seed'",
            "{0:,} sequences played exactly, {1:,} games simulated (seed rules, every deck size)",
        ),
    }

    def warehouse_tables(self) -> dict[str, pa.Table]:
        """``narcotic_presets``: the named rule combinations (``seed``, ``classic``, full-deck rules) for
        the views; ``narcotic_variants``: every variant name with its rules and deck size (a game's
        row names its deck only through its variant)."""
        names = list(PRESETS)
        variants = [rules for r in range(1, VALUES + 1) for rules in all_rules(r)]
        return {
            "narcotic_presets": pa.table(
                {
                    "preset": names,
                    "matching": [PRESETS[n][0] for n in names],
                    "gather": [PRESETS[n][1] for n in names],
                    "pile_four": [PRESETS[n][2] for n in names],
                    "ranks": pa.array([VALUES] * len(names), pa.int32()),
                }
            ),
            "narcotic_variants": pa.table(
                {
                    "variant": [v.variant for v in variants],
                    "matching": [v.matching for v in variants],
                    "gather": [v.gather for v in variants],
                    "pile_four": [v.pile_four for v in variants],
                    "ranks": pa.array([v.ranks for v in variants], pa.int32()),
                }
            ),
        }

    def reference_checks(self, n: int):
        """Kernel against the plain-Python reference on seeded decks, every rule combination."""
        decks = shuffled_decks(np.uint64(20260101), 0, n)
        for rules in all_rules():
            got = play(decks, rules)
            for i, deck in enumerate(decks):
                ref = play_reference([int(c) for c in deck], rules)
                kern = (
                    bool(got["won"][i]),
                    int(got["passes"][i]),
                    int(got["time_s"][i]),
                    int(got["cycle_start"][i]),
                    int(got["cycle_length"][i]),
                )
                yield (
                    f"{rules.variant} deck {i}",
                    kern,
                    (ref.won, ref.passes, ref.time_s, ref.cycle_start, ref.cycle_length),
                )

    def tiny_config(self) -> dict:
        return {
            "experiments": [
                {"name": "tiny", "rules": "seed", "games": 300, "shards": 3, "seed": 7},
                {"name": "combos", "rules": "all", "games": 20, "shards": 1, "seed": 8},
            ],
            "campaigns": [{"name": "kept", "rules": "seed", "games": 500, "games_per_shard": 200, "seed": 9}],
            "exhaustive": [
                {"ranks": [2, 3], "rules": "seed", "sequences_per_shard": 20000},
                {"ranks": [3], "rules": "seed", "canonical": True, "decks_per_shard": 200},
            ],
        }
