"""Narcotic's simulation shards: seeded games under one rule combination, one row per game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from ...core.rng import seed_derivation, shard_seed
from ...core.shards import split_range
from ...kinds import Schedule, ShardKind
from ..kernel import GAMES_PER_CALL, play, shuffled_decks
from ..rules import Rules, experiment_rules
from .tally import RULE_COLUMNS, rules_spec

GAMES_TABLES = {
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
    tables = tuple(GAMES_TABLES)

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
