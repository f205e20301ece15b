"""The RedBlack engine: exhaustive rank-range shards, seeded sample shards, then one basin job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ..core.errors import CardlabError
from ..core.rng import seed_derivation, shard_seed
from ..core.shards import split_range
from ..interface import Engine, ReportFile, Stage
from .audit import audit, list_digest, read_deal_list
from .basins import basin
from .exhaustive import SearchResult, search_range
from .rules import BASIN_MAX_STATES, K_MAX, canonical_deals
from .sample import owner_sample_range, sample_range

# The columns that name a search shard, first in each of its tables. ``method``: exhaustive or
# sample; ``algorithm``: how deals were played, brute (every game to its end) or owner (a deal
# stops when a smaller deal provably reaches the same state; finite counts, lengths and the
# longest game then cover only games played to the end).
SEARCH_SHARD_COLUMNS = [
    ("experiment", pa.string()),
    ("method", pa.string()),
    ("algorithm", pa.string()),
    ("k", pa.int32()),
    ("balanced", pa.bool_()),
    ("shard", pa.int32()),
]

TABLES: dict[str, pa.Schema] = {
    # one row per search shard (exhaustive rank range or sample index range)
    "redblack_counts": pa.schema(
        SEARCH_SHARD_COLUMNS
        + [
            ("range_start", pa.int64()),
            ("range_stop", pa.int64()),
            ("space", pa.int64()),  # canonical balanced deals of size k (exhaustive), else deals drawn
            ("deals", pa.int64()),
            ("finite", pa.int64()),
            ("infinite", pa.int64()),
            ("longest_rounds", pa.int32()),
            ("longest_p1", pa.string()),
            ("longest_p2", pa.string()),
            # owner rule: deals stopped because a smaller deal reaches the same state
            ("stopped", pa.int64()),
            ("rounds", pa.int64()),
        ]
    ),
    # histogram of rounds to finish (finite games only), per search shard
    "redblack_hist": pa.schema(
        SEARCH_SHARD_COLUMNS
        + [
            ("rounds", pa.int32()),
            ("deals", pa.int64()),
        ]
    ),
    # one row per infinite deal met by a search shard (canonical form)
    "redblack_found": pa.schema(
        SEARCH_SHARD_COLUMNS
        + [
            ("deal_index", pa.int64()),
            ("p1", pa.string()),
            ("p2", pa.string()),
            ("cycle_id", pa.string()),
            ("rounds_before_cycle", pa.int32()),
            ("period", pa.int32()),
        ]
    ),
    # one row per cycle whose basin a basin job enumerated
    "redblack_basins": pa.schema(
        [
            ("experiment", pa.string()),
            ("k", pa.int32()),
            ("cards", pa.int32()),
            ("cycle_id", pa.string()),
            ("period", pa.int32()),
            ("colour_symmetric", pa.bool_()),
            ("basin_states", pa.int64()),
            ("basin_complete", pa.bool_()),
            ("basin_depth", pa.int32()),
            ("balanced_deals", pa.int64()),  # canonical balanced deals in the basin
        ]
    ),
    # every canonical balanced deal in the basins, with its cycle
    "redblack_basin_deals": pa.schema(
        [
            ("experiment", pa.string()),
            ("k", pa.int32()),
            ("p1", pa.string()),
            ("p2", pa.string()),
            ("cycle_id", pa.string()),
            ("rounds_before_cycle", pa.int32()),
        ]
    ),
    # one row per deal of an audited list (as listed), then one per infinite deal the list misses
    # in the basins of the cycles its deals reach (canonical form)
    "redblack_audit": pa.schema(
        [
            ("experiment", pa.string()),
            ("k", pa.int32()),
            ("p1", pa.string()),
            ("p2", pa.string()),
            ("status", pa.string()),  # listed-infinite, listed-finite, missing
            ("cycle_id", pa.string()),
            ("period", pa.int32()),
            ("rounds", pa.int32()),  # before the cycle, or to the end of a finite game
        ]
    ),
}
# the views of engines/redblack/views.sql take the plain names (redblack_cycles, redblack_lengths, ...)
SEARCH_TABLES = ("redblack_counts", "redblack_hist", "redblack_found")
BASIN_TABLES = ("redblack_basins", "redblack_basin_deals")
AUDIT_TABLES = ("redblack_audit",)


SEARCH_METHODS = ("brute", "owner")
DEFAULT_DEALS_PER_SHARD = 20_000_000
# Search shards carry this explicit result version instead of a source hash, so a finished
# campaign survives edits that do not change results (a refactor, a report).  Changing what a
# search shard computes must bump it: tests/redblack/test_result_version.py pins the results.
SEARCH_RESULT_VERSION = "redblack-search-2"


def exhaustive_blocks(section: Mapping[str, Any]) -> list[dict]:
    """The ``exhaustive`` setting as a list of blocks: sizes, method, shard size, threads, rank window.

    ``exhaustive`` is one block (a mapping) or a list of them.  Each block gives sizes as
    ``k`` (a list) or ``k_min..k_max``; ``ranks: [start, stop]`` (one size only) searches a
    window of ranks, on the same shard grid as the whole size, so windows run at different
    times add up to the whole."""
    raw = section.get("exhaustive") or []
    blocks = [raw] if isinstance(raw, Mapping) else list(raw)
    out = []
    for i, block in enumerate(blocks):
        where = "redblack.exhaustive" + (f"[{i}]" if not isinstance(raw, Mapping) else "")
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
                "ranks": ranks,
            }
        )
    return out


def exhaustive_sizes(section: Mapping[str, Any]) -> list[int]:
    """Every size k some exhaustive block searches."""
    return sorted({k for b in exhaustive_blocks(section) for k in b["ks"]})


def shard_grid(k: int, per_shard: int, ranks: Sequence[int] | None, where: str) -> list[tuple[int, int, int]]:
    """(shard, start, stop) of the shards of size k that lie in the rank window (all ranks by default).

    Shard i covers ranks [i * per_shard, (i + 1) * per_shard) whatever the window, so a
    shard's number, range and file are the same in every campaign that contains it."""
    total = canonical_deals(k)
    start, stop = (0, total) if ranks is None else (int(ranks[0]), int(ranks[1]))
    if not 0 <= start < stop <= total:
        raise CardlabError(f"{where}.ranks: [{start}, {stop}) is not a non-empty window inside [0, {total}) for k={k}")
    if start % per_shard or (stop % per_shard and stop != total):
        raise CardlabError(
            f"{where}.ranks: [{start}, {stop}) must start on a shard boundary (a multiple of deals_per_shard = "
            f"{per_shard:,}) and end on one or at {total:,} (all ranks of k={k})"
        )
    first, last = start // per_shard, -(-stop // per_shard)
    if last - 1 > MAX_SHARD_NUMBER:
        raise CardlabError(
            f"{where}: k={k} needs shard numbers up to {last - 1:,} with deals_per_shard = {per_shard:,}; "
            f"at most {MAX_SHARD_NUMBER:,}: raise deals_per_shard"
        )
    if last - first > MAX_PLANNED_SHARDS:
        raise CardlabError(
            f"{where}: k={k} would plan {last - first:,} shards; at most {MAX_PLANNED_SHARDS:,} at a time (Snakemake "
            "plans about 500 jobs a second): raise deals_per_shard or search a window of ranks (ranks: [start, stop])"
        )
    return [(i, i * per_shard, min((i + 1) * per_shard, total)) for i in range(first, last)]


MAX_SHARD_NUMBER = 10**6 - 1  # shard=NNNNNN: shard numbers beyond this are refused (raise deals_per_shard)
MAX_PLANNED_SHARDS = 20_000  # one config plans at most this many exhaustive shards (Snakemake: ~2 ms a job)


# brute-force shards keep the path they always had; owner shards sit beside them
EXHAUSTIVE_VARIANT = {"brute": "canonical", "owner": "owner"}


def exhaustive_experiment(k: int) -> str:
    return f"exhaustive_k{k:02d}"


BASIN_EXPERIMENT, BASIN_VARIANT = "basins", "all"


def search_tables(
    spec: dict, res: SearchResult, method: str, balanced: bool, space: int, start: int, stop: int
) -> dict[str, dict]:
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


def audit_tables(spec: Mapping[str, Any], progress=None) -> dict[str, dict]:
    rows = audit(read_deal_list(spec["file"]), int(spec["max_states"]), progress)
    names = TABLES["redblack_audit"].names
    records = [{"experiment": spec["experiment"], **asdict(r)} for r in rows]
    return {"redblack_audit": {c: [rec[c] for rec in records] for c in names}}


def read_cycle_ids(inputs: Sequence[str]) -> list[str]:
    """Distinct cycle ids in search shard files (their redblack_found tables)."""
    from ..core.store import read_meta, read_table

    ids: set[str] = set()
    for path in inputs:
        if read_meta(path).get("table") != "redblack_found":
            continue
        ids.update(read_table(path).column("cycle_id").to_pylist())
    return sorted(ids)


def basin_tables(spec: dict, inputs: Sequence[str], progress=None) -> dict[str, dict]:
    cycles = {c: [] for c in TABLES["redblack_basins"].names}
    deals = {c: [] for c in TABLES["redblack_basin_deals"].names}
    ids = read_cycle_ids(inputs)
    if progress is not None:  # the cycles are only known now, from the search shards
        progress.total, progress.unit = max(1, len(ids)), "cycles"
    for cid in ids:
        bas = basin(cid, int(spec["max_states"]))
        row = {
            "experiment": spec["experiment"],
            "k": bas.cards // 2,
            "cards": bas.cards,
            "cycle_id": bas.cycle_id,
            "period": bas.period,
            "colour_symmetric": bas.symmetric,
            "basin_states": bas.states,
            "basin_complete": bas.complete,
            "basin_depth": bas.depth,
            "balanced_deals": len(bas.deals),
        }
        for c, v in row.items():
            cycles[c].append(v)
        for p1, p2, d in bas.deals:
            for c, v in (
                ("experiment", spec["experiment"]),
                ("k", bas.cards // 2),
                ("p1", p1),
                ("p2", p2),
                ("cycle_id", bas.cycle_id),
                ("rounds_before_cycle", d),
            ):
                deals[c].append(v)
        if progress is not None:
            progress.update(1)
    return {"redblack_basins": cycles, "redblack_basin_deals": deals}


class RedBlackEngine(Engine):
    name = "redblack"
    title = "RedBlack"
    question = "Which deals never end, and does one exist for a full deck?"
    work_unit = "deals"
    tables = TABLES
    sharded_field = "deals"
    report_files = (
        ReportFile("infinite_games.md"),
        ReportFile("infinite_games.csv", "infinite_games"),
        ReportFile("redblack_cycles.csv", "redblack_cycles"),
        ReportFile("redblack_infinite_share.png", "redblack_infinite_share"),
        ReportFile("redblack_lengths.png", "redblack_lengths"),
    )
    figure_basis = {
        "redblack_infinite_share": (
            "SELECT coalesce(sum(deals) FILTER (WHERE method = 'exhaustive'), 0), "
            "coalesce(sum(deals) FILTER (WHERE method = 'sample'), 0) FROM redblack_summary",
            "{0:,} deals searched exhaustively and {1:,} sampled",
        ),
        "redblack_lengths": ("SELECT coalesce(sum(deals), 0) FROM redblack_lengths", "{0:,} finite deals"),
    }

    def stages(self) -> dict[str, Stage]:
        return {
            "shard": Stage(SEARCH_TABLES, runtime_min=120),
            "basin": Stage(BASIN_TABLES, mem_mb=4000),
            "audit": Stage(AUDIT_TABLES, mem_mb=4000),
        }

    def stage_of(self, spec: Mapping[str, Any]) -> str:
        return spec["kind"] if spec.get("kind") in ("basin", "audit") else "shard"

    def expected_rows(self, spec: Mapping[str, Any], table: str) -> int | None:
        """A search shard writes one counts row; other tables' sizes depend on what it finds."""
        return 1 if table == "redblack_counts" else None

    def shard_threads(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> int:
        """exhaustive.threads for exhaustive shards, else 1."""
        if spec.get("kind") == "exhaustive":
            for block in exhaustive_blocks(section or {}):
                if spec["k"] in block["ks"] and block["method"] == spec["method"]:
                    return block["threads"]
        return 1

    def result_version(self, spec: Mapping[str, Any]) -> str:
        """Search shards: the explicit SEARCH_RESULT_VERSION (a kept campaign outlives refactors);
        the basin job, cheap to redo: the source hash."""
        return SEARCH_RESULT_VERSION if spec.get("kind") in ("exhaustive", "sample") else self.source_version()

    def shard_inputs(self, spec: Mapping[str, Any], plan: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict]]:
        """The basin job reads the infinite deals of every search shard."""
        if spec.get("kind") != "basin":
            return []
        return [("redblack_found", dict(s)) for s in plan if s["kind"] in ("exhaustive", "sample")]

    def plan(self, section: Mapping[str, Any]) -> list[dict]:
        """Shard specs: exhaustive rank ranges, seeded samples, then the basin job (second stage)."""
        section = section or {}
        specs: list[dict] = []
        seen: dict[tuple[int, str], str] = {}
        for block in exhaustive_blocks(section):
            per_shard, method = block["deals_per_shard"], block["method"]
            for k in block["ks"]:
                if (k, method) in seen:
                    raise CardlabError(
                        f"{block['where']}: k={k} with method {method!r} is already planned by {seen[k, method]}; "
                        "give each size and method one block (rank windows of one size go in one block)"
                    )
                seen[k, method] = block["where"]
                grid = shard_grid(k, per_shard, block["ranks"], block["where"])
                for shard, r0, r1 in grid:
                    specs.append(
                        {
                            "experiment": exhaustive_experiment(k),
                            "variant": EXHAUSTIVE_VARIANT[method],
                            "shard": shard,
                            "kind": "exhaustive",
                            "k": k,
                            "method": method,
                            "range": [r0, r1],
                            "work": r1 - r0,
                        }
                    )
        for i, exp in enumerate(section.get("experiments") or []):
            name, k, balanced = exp["name"], int(exp["k"]), bool(exp.get("balanced", True))
            if name.startswith("exhaustive_") or name == BASIN_EXPERIMENT:
                raise CardlabError(
                    f"redblack.experiments[{i}].name: {name!r} is reserved "
                    "(exhaustive_* and basins name the other jobs); choose another name"
                )
            owner = exp.get("method", "brute") == "owner"
            if owner and not balanced:
                raise CardlabError(
                    f"redblack.experiments[{i}]: method 'owner' needs balanced deals (the owner rule compares ranks "
                    "of balanced deals); set balanced: true or method: brute"
                )
            variant = "owner" if owner else "balanced" if balanced else "any_split"
            root = int(exp["seed"])
            for shard, (d0, d1) in enumerate(split_range(int(exp["deals"]), int(exp.get("shards", 1)))):
                specs.append(
                    {
                        "experiment": name,
                        "variant": variant,
                        "shard": shard,
                        "kind": "sample",
                        "k": k,
                        "balanced": balanced,
                        **({"method": "owner"} if owner else {}),
                        "root_seed": root,
                        "seed": shard_seed(root, self.name, name, variant, shard),
                        "seed_derivation": seed_derivation(root, self.name, name, variant, shard),
                        "range": [d0, d1],
                        "work": d1 - d0,
                    }
                )
        for i, entry in enumerate(section.get("audit") or []):
            try:
                deals = read_deal_list(entry["file"])
            except CardlabError as exc:
                raise CardlabError(f"redblack.audit[{i}].file: {exc}") from None
            specs.append(
                {
                    "experiment": f"audit_{entry['name']}",
                    "variant": "list",
                    "shard": 0,
                    "kind": "audit",
                    "file": entry["file"],
                    "sha256": list_digest(entry["file"]),
                    "max_states": int(section.get("basin_max_states", BASIN_MAX_STATES)),
                    "range": [0, len(deals)],
                    "work": len(deals),
                }
            )
        if section.get("basins", True) and any(s["kind"] in ("exhaustive", "sample") for s in specs):
            # One job for the cycles of every experiment: a cycle met by several shards or
            # experiments is enumerated once, and a job costs seconds of start-up on its own.
            specs.append(
                {
                    "experiment": BASIN_EXPERIMENT,
                    "variant": BASIN_VARIANT,
                    "shard": 0,
                    "kind": "basin",
                    "max_states": int(section.get("basin_max_states", BASIN_MAX_STATES)),
                    "range": [0, 1],
                    "work": 1,
                }
            )
        return specs

    def run_shard(self, spec: Mapping[str, Any], progress, inputs: Sequence[str]) -> dict[str, dict]:
        kind = spec.get("kind")
        if kind == "exhaustive":
            r0, r1 = spec["range"]
            res = search_range(int(spec["k"]), int(r0), int(r1), progress, method=spec["method"])
            return search_tables(spec, res, "exhaustive", True, canonical_deals(int(spec["k"])), r0, r1)
        if kind == "sample":
            # each sample shard draws deals 0..n-1 of its own seeded stream; its range in the
            # spec places it in the experiment, the table's range_start/stop in that stream
            d0, d1 = spec["range"]
            n = int(d1) - int(d0)
            if spec.get("method", "brute") == "owner":
                res = owner_sample_range(int(spec["k"]), int(spec["seed"]), 0, n, progress)
            else:
                res = sample_range(int(spec["k"]), int(spec["seed"]), 0, n, bool(spec["balanced"]), progress)
            return search_tables(spec, res, "sample", bool(spec["balanced"]), n, 0, n)
        if kind == "basin":
            return basin_tables(spec, inputs, progress)
        if kind == "audit":
            return audit_tables(spec, progress)
        raise CardlabError(f"redblack: unknown shard kind {kind!r}")

    def reference_checks(self, n: int):
        """Kernel against the plain-Python reference on seeded random deals of every size up to 8 cards a player."""
        from ..core.rng import bounded_py, stream_start_py
        from .kernel import play
        from .reference import play_reference

        state = stream_start_py(2026, 0)
        for i in range(n):
            state, k = bounded_py(state, 8)
            cards = []
            for _ in range(2 * (k + 1)):
                state, c = bounded_py(state, 2)
                cards.append(str(c))
            p1, p2 = "".join(cards[: k + 1]), "".join(cards[k + 1 :])
            yield f"{p1} {p2}", play(p1, p2), play_reference(p1, p2)

    def tiny_config(self) -> dict:
        published = Path(__file__).resolve().parents[2] / "workflow" / "data" / "redblack" / "published_infinite.txt"
        return {
            "exhaustive": [
                {"k_min": 1, "k_max": 6, "method": "brute", "deals_per_shard": 100},
                {"k": [8], "method": "owner", "deals_per_shard": 1000},
            ],
            "audit": [{"name": "published", "file": str(published)}],
            "basins": True,
            "experiments": [{"name": "sample26", "k": 26, "deals": 50, "shards": 2, "seed": 3}],
        }
