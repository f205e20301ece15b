"""RedBlack's follow-up shard kinds: the basins of every cycle the searches found, and audits of deal lists.

Both are cheap to redo, so they carry the engine's source hash as their result version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ...core.errors import CardlabError
from ...core.store import read_meta, read_table
from ...kinds import Resources, Schedule, ShardKind
from ..audit import audit, list_digest, read_deal_list
from ..basins import basin
from ..rules import BASIN_MAX_STATES
from ..tables import AUDIT_TABLES, BASIN_TABLES, columns
from .search import BASIN_EXPERIMENT, ExhaustiveSearch, SampleSearch
from .windows import CostWindows

BASIN_VARIANT = "all"
SEARCH_KINDS = (ExhaustiveSearch.name, SampleSearch.name, CostWindows.name)  # what a basin job reads
FOLLOW_UP_RESOURCES = Resources(mem_mb=4000)


def max_states(section: Mapping[str, Any]) -> int:
    return int(section.get("basin_max_states", BASIN_MAX_STATES))


def read_cycle_ids(inputs: Sequence[str]) -> list[str]:
    """Distinct cycle ids in search shard files (their redblack_found tables)."""
    ids: set[str] = set()
    for path in inputs:
        if read_meta(path).get("table") != "redblack_found":
            continue
        ids.update(read_table(path).column("cycle_id").to_pylist())
    return sorted(ids)


def basin_rows(experiment: str, cycle_id: str, limit: int) -> tuple[dict, list[dict]]:
    """One cycle's redblack_basins row and its redblack_basin_deals rows."""
    bas = basin(cycle_id, limit)
    k = bas.cards // 2
    row = {
        "experiment": experiment,
        "k": k,
        "cards": bas.cards,
        "cycle_id": bas.cycle_id,
        "period": bas.period,
        "colour_symmetric": bas.symmetric,
        "basin_states": bas.states,
        "basin_complete": bas.complete,
        "basin_depth": bas.depth,
        "balanced_deals": len(bas.deals),
    }
    deals = [
        {"experiment": experiment, "k": k, "p1": p1, "p2": p2, "cycle_id": bas.cycle_id, "rounds_before_cycle": d}
        for p1, p2, d in bas.deals
    ]
    return row, deals


class Basin(ShardKind):
    """One job after the searches: the whole basin of every cycle they found, by running rounds backwards."""

    name = "basin"
    stage = "basin"
    work_unit = "basin jobs"  # one job; how many cycles it walks is known only when it runs
    tables = BASIN_TABLES
    resources = FOLLOW_UP_RESOURCES

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        # One job for the cycles of every experiment: a cycle met by several shards or
        # experiments is enumerated once, and a job costs seconds of start-up on its own.
        if not section.get("basins", True) or not any(s["kind"] in SEARCH_KINDS for s in planned):
            return []
        return [
            {
                "experiment": BASIN_EXPERIMENT,
                "variant": BASIN_VARIANT,
                "shard": 0,
                "kind": self.name,
                "max_states": max_states(section),
                "range": [0, 1],
                "work": 1,
            }
        ]

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """Its kernels' compilation priced."""
        return Schedule(price="redblack/basin")

    def inputs(self, spec: Mapping[str, Any], plan: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict]]:
        """The infinite deals of every search shard."""
        return [("redblack_found", dict(s)) for s in plan if s["kind"] in SEARCH_KINDS]

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        ids = read_cycle_ids(inputs)
        if progress is not None:  # the cycles are only known now, from the search shards
            progress.total, progress.unit = max(1, len(ids)), "cycles"
        cycles, deals = [], []
        for cid in ids:
            row, rows = basin_rows(spec["experiment"], cid, int(spec["max_states"]))
            cycles.append(row)
            deals += rows
            if progress is not None:
                progress.update(1)
        return {
            "redblack_basins": columns("redblack_basins", cycles),
            "redblack_basin_deals": columns("redblack_basin_deals", deals),
        }


class Audit(ShardKind):
    """One job per listed file of claimed infinite deals: each replayed, the basins of their cycles walked."""

    name = "audit"
    stage = "audit"
    work_unit = "listed deals"  # each replayed and its cycle's basin walked: not a search's deal
    tables = AUDIT_TABLES
    resources = FOLLOW_UP_RESOURCES

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        specs = []
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
                    "kind": self.name,
                    "file": entry["file"],
                    "sha256": list_digest(entry["file"]),
                    "max_states": max_states(section),
                    "range": [0, len(deals)],
                    "work": len(deals),
                }
            )
        return specs

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        rows = audit(read_deal_list(spec["file"]), int(spec["max_states"]), progress)
        return {
            "redblack_audit": columns("redblack_audit", [{"experiment": spec["experiment"], **asdict(r)} for r in rows])
        }
