"""RedBlack's search shard kinds: exhaustive rank ranges and seeded samples, and the tables they write.

Both write the same three tables (``SEARCH_TABLES``) under one Snakemake stage, and
carry the explicit ``SEARCH_RESULT_VERSION``: a finished campaign is a fact that
outlives edits which do not change what a search computes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...core.errors import CardlabError
from ...core.grid import GridNames, grid_shards, setting_blocks
from ...core.layout import RESULTS
from ...core.ledger import LedgerGrid, current_root, kept_shards
from ...core.rng import seed_derivation, shard_seed
from ...core.shards import split_range
from ...kinds import DEFAULT_BACKEND, Resources, Schedule, ShardKind, check_backend
from ..exhaustive import SearchResult, search_range
from ..gpu import device_name as gpu_device_name
from ..gpu import search_range_gpu
from ..rules import K_MAX, canonical_deals
from ..sample import owner_sample_range, sample_range
from ..tables import SEARCH_TABLES

# Search shards carry this explicit result version instead of a source hash, so a finished
# campaign survives edits that do not change results (a refactor, a report).  Changing what a
# search shard computes must bump it: tests/redblack/test_result_version.py pins the results.
# A backend never changes results, so it is not part of it.
SEARCH_RESULT_VERSION = "redblack-search-2"
SEARCH_RESOURCES = Resources(runtime_min=120)

DEFAULT_DEALS_PER_SHARD = 20_000_000

# brute-force shards keep the path they always had; owner shards sit beside them
EXHAUSTIVE_VARIANT = {"brute": "canonical", "owner": "owner"}
# names of the other kinds' experiments, refused for a sample experiment
RESERVED_PREFIX, BASIN_EXPERIMENT = "exhaustive_", "basins"


def exhaustive_experiment(k: int) -> str:
    return f"{RESERVED_PREFIX}k{k:02d}"


def ledger_grid(k: int, method: str = "owner", results: str | None = None) -> LedgerGrid:
    """The grid a size's campaign ledger is checked against (its canonical deals, ceil(deals / per_shard)
    shards) and the command that rebuilds the ledger from the shard files under the results tree."""
    results = current_root() if results is None else str(results)
    words = [f"cardlab redblack campaign {k}"]
    words += [f"--method {method}"] if method != "owner" else []
    words += [f"--results {results}"] if os.path.normpath(results) != RESULTS else []
    return LedgerGrid(f"k = {k}", canonical_deals(k), " ".join([*words, "--keep"]), "deals")


def block_sizes(block: Mapping[str, Any], where: str) -> list[int]:
    """The sizes k of one exhaustive block: ``k`` (a list) or ``k_min..k_max``."""
    if "k" in block:
        ks = sorted({int(k) for k in block["k"]})
    elif "k_max" in block:
        lo, hi = int(block.get("k_min", 1)), int(block["k_max"])
        if lo > hi:
            raise CardlabError(f"{where}: k_min ({lo}) is larger than k_max ({hi})")
        ks = list(range(lo, hi + 1))
    else:
        ks = []
    bad = [k for k in ks if not 1 <= k <= K_MAX]
    if bad:
        raise CardlabError(f"{where}: k must be between 1 and {K_MAX}, got {bad}")
    return ks


def exhaustive_blocks(section: Mapping[str, Any]) -> list[dict]:
    """The ``exhaustive`` setting as a list of blocks: sizes, method, shard size, threads, backend, rank window.

    ``exhaustive`` is one block (a mapping) or a list of them.  Each block gives sizes as
    ``k`` (a list) or ``k_min..k_max``; ``ranks: [start, stop]`` (one size only) searches a
    window of ranks, on the same shard grid as the whole size, so windows run at different
    times add up to the whole."""
    out = []
    for where, block in setting_blocks(section, "exhaustive", "redblack.exhaustive"):
        ks = block_sizes(block, where)
        ranks = block.get("ranks")
        if ranks is not None and len(ks) != 1:
            raise CardlabError(f"{where}.ranks: a rank window needs exactly one size k, got {ks or 'none'}")
        out.append(
            {
                "where": where,
                "ks": ks,
                "method": block.get("method", "owner"),
                "deals_per_shard": int(block.get("deals_per_shard", DEFAULT_DEALS_PER_SHARD)),
                "threads": int(block.get("threads", 1)),
                "backend": block.get("backend", DEFAULT_BACKEND),
                "ranks": ranks,
                "campaign": bool(block.get("campaign", False)),
            }
        )
    return out


def shard_grid(k: int, per_shard: int, ranks: Sequence[int] | None, where: str) -> list[tuple[int, int, int]]:
    """(shard, start, stop) of the shards of size k that lie in the rank window (all ranks by default);
    the grid of :func:`engines.core.grid.grid_shards`."""
    names = GridNames(size=f"k={k}", window="ranks", per_shard="deals_per_shard", items="ranks")
    return grid_shards(canonical_deals(k), per_shard, ranks, where, names)


def search_tables(
    spec: Mapping[str, Any], res: SearchResult, method: str, balanced: bool, space: int, start: int, stop: int
) -> dict[str, dict]:
    """The three search tables of one shard's result (``method``: exhaustive or sample)."""
    common = {
        "experiment": spec["experiment"],
        "method": method,
        "algorithm": res.method,
        "k": int(spec["k"]),
        "balanced": balanced,
        "shard": int(spec["shard"]),
    }
    rounds = np.flatnonzero(res.lengths)
    infinite = sorted(res.infinite, key=lambda r: (r["p1"], r["p2"], r["deal_index"]))
    return {
        "redblack_counts": {
            **{c: [v] for c, v in common.items()},
            "range_start": [int(start)],
            "range_stop": [int(stop)],
            "space": [int(space)],
            "deals": [res.deals],
            "finite": [res.finite],
            "infinite": [res.infinite_count],
            "longest_rounds": [res.longest_rounds],
            "longest_p1": [res.longest_deal[0]],
            "longest_p2": [res.longest_deal[1]],
            "stopped": [res.stopped],
            "rounds": [res.rounds],
        },
        "redblack_hist": {
            **{c: [v] * len(rounds) for c, v in common.items()},
            "rounds": rounds.astype(np.int32),
            "deals": res.lengths[rounds],
        },
        "redblack_found": {
            **{c: [v] * len(infinite) for c, v in common.items()},
            **{
                c: [r[c] for r in infinite]
                for c in ("deal_index", "p1", "p2", "cycle_id", "rounds_before_cycle", "period")
            },
        },
    }


class SearchKind(ShardKind):
    """What both search kinds share: tables, stage, resources, result version, one counts row a shard."""

    tables = SEARCH_TABLES
    resources = SEARCH_RESOURCES
    result_version = SEARCH_RESULT_VERSION

    def expected_rows(self, spec: Mapping[str, Any], table: str) -> int | None:
        """One counts row; the other tables' sizes depend on what the shard finds."""
        return 1 if table == "redblack_counts" else None


class ExhaustiveSearch(SearchKind):
    """Every canonical balanced deal of a size k, by rank: shard i covers ranks [i * n, (i + 1) * n).

    Backends: ``scalar``, the numba batch search of :func:`engines.redblack.exhaustive.search_range`;
    ``gpu``, the same search on an NVIDIA GPU (:func:`engines.redblack.gpu.search_range_gpu`, numba-cuda)."""

    name = "exhaustive"
    backends = {DEFAULT_BACKEND: search_range, "gpu": search_range_gpu}

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        specs: list[dict] = []
        seen: dict[tuple[int, str], str] = {}
        for block in exhaustive_blocks(section):
            check_backend(self, block["backend"], f"{block['where']}.backend")
            method = block["method"]
            for k in block["ks"]:
                if (k, method) in seen:
                    raise CardlabError(
                        f"{block['where']}: k={k} with method {method!r} is already planned by {seen[k, method]}; "
                        "give each size and method one block (rank windows of one size go in one block)"
                    )
                seen[k, method] = block["where"]
                grid = shard_grid(k, block["deals_per_shard"], block["ranks"], block["where"])
                if block["campaign"]:
                    grid = self.kept(grid, k, method, block)
                specs += [self.spec(k, method, shard, r0, r1) for shard, r0, r1 in grid]
        return specs

    def kept(self, grid: list[tuple[int, int, int]], k: int, method: str, block: Mapping[str, Any]) -> list:
        """A campaign block plans only the shards of its grid that the campaign's ledger keeps
        (engines/core/ledger.py): the rest is computed when asked (`cardlab redblack campaign K --run N`)."""
        experiment, variant = exhaustive_experiment(k), EXHAUSTIVE_VARIANT[method]
        grid_of = ledger_grid(k, method)
        kept = kept_shards(self.game, experiment, variant, block["deals_per_shard"], block["where"], grid_of)
        return [g for g in grid if g[0] in kept]

    def spec(self, k: int, method: str, shard: int, start: int, stop: int) -> dict:
        return {
            "experiment": exhaustive_experiment(k),
            "variant": EXHAUSTIVE_VARIANT[method],
            "shard": shard,
            "kind": self.name,
            "k": k,
            "method": method,
            "range": [start, stop],
            "work": stop - start,
        }

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        k, (r0, r1) = int(spec["k"]), spec["range"]
        res = self.backends[backend](k, int(r0), int(r1), progress, method=spec["method"])
        return search_tables(spec, res, "exhaustive", True, canonical_deals(k), r0, r1)

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """The block's ``threads`` and ``backend``.  Small searches share a job, the small sizes of one
        method together (each size is an experiment of one shard or a few); the owner rule's estimate
        is its slowest (the full deck's), so every kept campaign shard (5·10^7 deals and more) stays far
        above the limit.  Each method has its own kernels and prices (engines/prices.yaml).  A
        low rank's deal plays many more rounds before it stops: the cost follows the shard.  A campaign
        block's shard is planned because its ledger keeps it, not because the config names it."""
        block = self.block_of(section, spec)
        campaign = block and block["campaign"] and spec.get("kind") == ExhaustiveSearch.name  # not a cost window
        return Schedule(
            threads=block["threads"] if block else 1,
            backend=block["backend"] if block else None,
            price=f"redblack/exhaustive/{spec['method']}",
            units=int(spec["work"]),
            batch_group=f"exhaustive_{spec['method']}",
            kernels=str(spec["method"]),
            cost_follows_shard=True,
            ledger=ledger_grid(int(spec["k"]), spec["method"]) if campaign else None,
        )

    def device(self, backend: str) -> str | None:
        """The GPU's name under the gpu backend (engines/redblack/gpu.py)."""
        return gpu_device_name() if backend == "gpu" else None

    def block_of(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> dict | None:
        """The config block that plans a shard (its size and method)."""
        for block in exhaustive_blocks(section):
            if spec["k"] in block["ks"] and block["method"] == spec["method"]:
                return block
        return None


class SampleSearch(SearchKind):
    """Seeded random deals of a size k, where exhaustive search is out of reach."""

    name = "sample"

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        specs: list[dict] = []
        for i, exp in enumerate(section.get("experiments") or []):
            specs += self.experiment_specs(exp, f"redblack.experiments[{i}]")
        return specs

    def experiment_specs(self, exp: Mapping[str, Any], where: str) -> list[dict]:
        name, k, balanced = exp["name"], int(exp["k"]), bool(exp.get("balanced", True))
        if name.startswith(RESERVED_PREFIX) or name == BASIN_EXPERIMENT:
            raise CardlabError(
                f"{where}.name: {name!r} is reserved (exhaustive_* and basins name the other jobs); choose another name"
            )
        owner = exp.get("method", "brute") == "owner"
        if owner and not balanced:
            raise CardlabError(
                f"{where}: method 'owner' needs balanced deals (the owner rule compares ranks "
                "of balanced deals); set balanced: true or method: brute"
            )
        variant = "owner" if owner else "balanced" if balanced else "any_split"
        root = int(exp["seed"])
        return [
            {
                "experiment": name,
                "variant": variant,
                "shard": shard,
                "kind": self.name,
                "k": k,
                "balanced": balanced,
                **({"method": "owner"} if owner else {}),
                "root_seed": root,
                "seed": shard_seed(root, self.game, name, variant, shard),
                "seed_derivation": seed_derivation(root, self.game, name, variant, shard),
                "range": [d0, d1],
                "work": d1 - d0,
            }
            for shard, (d0, d1) in enumerate(split_range(int(exp["deals"]), int(exp.get("shards", 1))))
        ]

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """Small samples share a job."""
        return Schedule(price="redblack/sample", units=int(spec["work"]))

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        # each sample shard draws deals 0..n-1 of its own seeded stream; its range in the
        # spec places it in the experiment, the table's range_start/stop in that stream
        d0, d1 = spec["range"]
        n, k, balanced = int(d1) - int(d0), int(spec["k"]), bool(spec["balanced"])
        if spec.get("method", "brute") == "owner":
            res = owner_sample_range(k, int(spec["seed"]), 0, n, progress)
        else:
            res = sample_range(k, int(spec["seed"]), 0, n, balanced, progress)
        return search_tables(spec, res, "sample", balanced, n, 0, n)
