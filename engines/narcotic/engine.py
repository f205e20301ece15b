"""The Narcotic engine: config -> seeded shards of games, tallies of kept campaigns and exact counts of
small decks; its shard kinds live in ``kinds/`` (``sim.py``, ``tally.py``, ``exhaustive.py``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..interface import Engine, ReportFile
from .kernel import play, shuffled_decks
from .kinds.exhaustive import EXACT_TABLES, CanonicalDecks, ExhaustiveDecks
from .kinds.sim import GAMES_TABLES, GameSimulation
from .kinds.tally import TALLY_TABLES, CampaignTally
from .reference import play_reference
from .rules import PRESETS, VALUES, all_rules


class NarcoticEngine(Engine):
    name = "narcotic"
    title = "Narcotic solitaire"
    question = "How often can a shuffled deck be finished, and how long does it take?"
    work_unit = "games"
    tables = {**GAMES_TABLES, **TALLY_TABLES, **EXACT_TABLES}
    kinds = (GameSimulation(), CampaignTally(), ExhaustiveDecks(), CanonicalDecks())
    sharded_field = "games"
    tooling_modules = ("options.py",)  # the commands' rule options (cli, campaign book): never run by a shard
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
