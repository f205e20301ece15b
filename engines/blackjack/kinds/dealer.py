"""The dealer's tables: exact tables (the configured variants in one shard, each simulated variant
outside them in one of its own) and seeded simulation shards of counts per upcard and outcome.

Both kinds run under one Snakemake stage and write both tables (the interface gives
every shard of a stage the same outputs); the table that does not apply is empty.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import product
from typing import Any

import pyarrow as pa

from ...core.errors import CardlabError
from ...core.rng import seed_derivation, shard_seed
from ...core.shards import split_range
from ...kinds import Schedule, ShardKind
from ..exact import exact_table
from ..rules import DECKS, OUTCOMES, PEEK, SHOES, SOFT17, UPCARD_VALUE, UPCARDS, parse_choice, parse_decks
from ..simulation import BLOCK_CONTINUOUS, simulate

SHARD_TABLES = {
    "blackjack_exact_probs": pa.schema(
        [
            ("decks", pa.string()),
            ("soft17", pa.string()),
            ("peek", pa.string()),
            ("upcard", pa.string()),
            ("upcard_order", pa.int32()),
            ("outcome", pa.string()),
            ("outcome_order", pa.int32()),
            ("probability", pa.float64()),
            ("exact", pa.string()),
        ]
    ),
    "blackjack_sim_counts": pa.schema(
        [
            ("experiment", pa.string()),
            ("shard", pa.int32()),
            ("shoe", pa.string()),
            ("decks", pa.string()),
            ("soft17", pa.string()),
            ("peek", pa.string()),
            ("penetration", pa.float64()),
            ("upcard", pa.string()),
            ("upcard_order", pa.int32()),
            ("outcome", pa.string()),
            ("outcome_order", pa.int32()),
            ("hands", pa.int64()),
            ("count", pa.int64()),
        ]
    ),
}

EXACT_EXPERIMENT = "exact"


def exact_variants(section: dict) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(decks, soft17, peek) of every exact variant to compute: all combinations of the
    configured values (absent: all 36), and apart, each simulation's own variant outside them,
    so that every simulated table has an exact one to be compared with."""
    spec = section.get("exact") or {}
    decks = [parse_decks(d) for d in spec.get("decks", DECKS)]
    soft17 = [parse_choice("soft17", s, SOFT17) for s in spec.get("soft17", SOFT17)]
    peek = [parse_choice("peek", p, PEEK) for p in spec.get("peek", PEEK)]
    grid = set(product(decks, soft17, peek))
    simulated = set()
    for exp in section.get("experiments", []) or []:
        simulated.add(
            (
                parse_decks(exp["decks"]),
                parse_choice("soft17", exp.get("soft17", "stand"), SOFT17),
                parse_choice("peek", exp.get("peek", "no"), PEEK),
            )
        )
    order = lambda v: (DECKS.index(v[0]), SOFT17.index(v[1]), PEEK.index(v[2]))  # noqa: E731
    return sorted(grid, key=order), sorted(simulated - grid, key=order)


def sim_variant(decks: str, soft17: str, peek: str) -> str:
    return f"decks={decks}+soft17={soft17}+peek={peek}"


def _exact_columns(variants: Iterable[Sequence[str]], progress) -> dict[str, list]:
    cols: dict[str, list] = {name: [] for name in SHARD_TABLES["blackjack_exact_probs"].names}
    for decks, soft17, peek in variants:
        table = exact_table(decks, soft17, peek)
        for ui, upcard in enumerate(UPCARDS):
            for oi, (outcome, p) in enumerate(zip(OUTCOMES, table[upcard])):
                for k, v in (
                    ("decks", decks),
                    ("soft17", soft17),
                    ("peek", peek),
                    ("upcard", upcard),
                    ("upcard_order", ui),
                    ("outcome", outcome),
                    ("outcome_order", oi),
                    ("probability", float(p)),
                    ("exact", f"{p.numerator}/{p.denominator}"),
                ):
                    cols[k].append(v)
            progress.update(1)
    return cols


def _sim_columns(spec: dict, progress) -> dict[str, list]:
    cols: dict[str, list] = {name: [] for name in SHARD_TABLES["blackjack_sim_counts"].names}
    start, stop = spec["range"]
    for ui, upcard in enumerate(UPCARDS):
        counts = simulate(
            int(spec["seed"]),
            UPCARD_VALUE[upcard],
            spec["decks"],
            spec["soft17"],
            spec["shoe"],
            stop - start,
            first=start,
            penetration=spec["penetration"],
        )
        for oi, outcome in enumerate(OUTCOMES):
            for k, v in (
                ("experiment", spec["experiment"]),
                ("shard", int(spec["shard"])),
                ("shoe", spec["shoe"]),
                ("decks", spec["decks"]),
                ("soft17", spec["soft17"]),
                ("peek", spec["peek"]),
                ("penetration", float(spec["penetration"])),
                ("upcard", upcard),
                ("upcard_order", ui),
                ("outcome", outcome),
                ("outcome_order", oi),
                ("hands", stop - start),
                ("count", int(counts[oi])),
            ):
                cols[k].append(v)
        progress.update(stop - start)
    return cols


def empty_tables() -> dict[str, dict]:
    """Every table with no rows: each shard writes both tables (one stage), the one that does not apply empty."""
    return {table: {name: [] for name in schema.names} for table, schema in SHARD_TABLES.items()}


ROWS_PER_TABLE = len(UPCARDS) * len(OUTCOMES)  # one row per upcard and outcome


class ExactTables(ShardKind):
    """One shard for every configured exact variant together (well under a second), and one for each
    simulated variant outside them: an edit of a simulation's rules adds or drops its own exact shard,
    and leaves the configured tables' shard (and, undone, every file) as it was."""

    name = "exact"
    tables = tuple(SHARD_TABLES)

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        grid, simulated = exact_variants(section)
        shards = [("all", grid)] if grid else []
        return [
            {
                "experiment": EXACT_EXPERIMENT,
                "variant": variant,
                "shard": 0,
                "kind": self.name,
                "variants": [list(v) for v in variants],
                "range": [0, len(variants)],
                "work": len(variants) * len(UPCARDS),
                "work_unit": "upcard tables",
            }
            for variant, variants in shards + [(sim_variant(*v), [v]) for v in simulated]
        ]

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """Each exact shard a batch group of its own: a simulated variant's shard, coming and going with
        its simulation's rules, never shares (and so changes) the configured tables' job."""
        return Schedule(price="blackjack/exact", batch_group=f"exact_{spec['variant']}")

    def expected_rows(self, spec: Mapping[str, Any], table: str) -> int:
        """One row per upcard, outcome and exact variant; no simulated counts."""
        return ROWS_PER_TABLE * len(spec.get("variants", [])) if table == "blackjack_exact_probs" else 0

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        return {**empty_tables(), "blackjack_exact_probs": _exact_columns(spec["variants"], progress)}


class Simulation(ShardKind):
    """Each simulation experiment cut into ``shards`` ranges of hands per upcard."""

    name = "sim"
    tables = tuple(SHARD_TABLES)

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        specs: list[dict] = []
        for i, exp in enumerate(section.get("experiments", []) or []):
            specs += self.experiment_specs(exp, f"blackjack.experiments[{i}]")  # paths as the config checks write them
        return specs

    def experiment_specs(self, exp: Mapping[str, Any], where: str) -> list[dict]:
        name = exp["name"]
        decks = parse_decks(exp["decks"])
        soft17 = parse_choice(f"{where}.soft17", exp.get("soft17", "stand"), SOFT17)
        peek = parse_choice(f"{where}.peek", exp.get("peek", "no"), PEEK)
        shoe = parse_choice(f"{where}.shoe", exp.get("shoe", "fresh"), SHOES)
        if shoe == "continuous" and decks == "inf":
            raise CardlabError(f"{where}: shoe 'continuous' needs decks 1..8, not inf")
        if name == EXACT_EXPERIMENT:
            raise CardlabError(f"{where}.name: the name {name!r} is reserved for the exact tables")
        hands, shards = int(exp["hands_per_upcard"]), int(exp.get("shards", 1))
        variant = sim_variant(decks, soft17, peek)
        root = int(exp["seed"])
        # Continuous shards start on block boundaries: a block is a run of shoes dealt in
        # sequence, so it must not be cut in two by a shard boundary.
        unit = BLOCK_CONTINUOUS if shoe == "continuous" else 1
        specs = []
        for shard, (b0, b1) in enumerate(split_range(-(-hands // unit), shards)):
            start, stop = b0 * unit, min(b1 * unit, hands)
            specs.append(
                {
                    "experiment": name,
                    "variant": variant,
                    "shard": shard,
                    "kind": self.name,
                    "shoe": shoe,
                    "decks": decks,
                    "soft17": soft17,
                    "peek": peek,
                    "penetration": float(exp.get("penetration", 0.75)),
                    "range": [start, max(start, stop)],
                    "work": max(0, stop - start) * len(UPCARDS),
                    "root_seed": root,
                    "seed": shard_seed(root, self.game, name, variant, shard),
                    "seed_derivation": seed_derivation(root, self.game, name, variant, shard),
                }
            )
        return specs

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """Each shoe its own kernels and prices."""
        shoe = "continuous" if spec["shoe"] == "continuous" else "fresh"
        return Schedule(price=f"blackjack/sim/{shoe}", units=int(spec["work"]), kernels=str(spec["shoe"]))

    def expected_rows(self, spec: Mapping[str, Any], table: str) -> int:
        """One row per upcard and outcome; no exact tables."""
        return ROWS_PER_TABLE if table == "blackjack_sim_counts" else 0

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        return {**empty_tables(), "blackjack_sim_counts": _sim_columns(spec, progress)}
