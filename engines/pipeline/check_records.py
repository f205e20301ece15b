"""The record of independent recomputations in the warehouse: which kept campaign shards were computed
twice and matched (``cardlab verify --recompute``, engines/pipeline/recompute.py).

Table ``recompute_checks`` holds every check of ``results/checks/<game>/<experiment>/<variant>.jsonl``;
table ``kept_campaigns`` the kept campaigns among the loaded shards (a kind with a pinned result
version); view ``campaign_checks`` joins them: per campaign, shards kept and checked, mismatches,
when and on which CPUs.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pyarrow as pa

from ..core.errors import CardlabError
from ..core.layout import check_record_files
from ..registry import engine

CHECK_SCHEMA = {
    "game": pa.string(),
    "experiment": pa.string(),
    "variant": pa.string(),
    "shard": pa.int32(),
    "matched": pa.bool_(),
    "date": pa.string(),
    "machine": pa.string(),
    "cpu_s": pa.float64(),
    "engine_version": pa.string(),
}


def check_records_table(results: str | os.PathLike) -> pa.Table:
    """Every independent recomputation of a kept shard under a results tree, one row each."""
    rows: dict[str, list] = {c: [] for c in CHECK_SCHEMA}
    for f in check_record_files(results):
        game, experiment, variant = Path(f).parent.parent.name, Path(f).parent.name, Path(f).stem
        for n, line in enumerate(Path(f).read_text().splitlines(), 1):
            try:
                rec = json.loads(line)
                values = [int(rec["shard"]), bool(rec["matched"]), str(rec["date"]), str(rec["machine"])]
                values += [float(rec["cpu_s"]), str(rec["engine_version"])]
            except (ValueError, KeyError, TypeError) as exc:
                raise CardlabError(f"{f}, line {n}: not a check record ({exc}); restore the file from git") from None
            for c, v in zip(CHECK_SCHEMA, [game, experiment, variant, *values]):
                rows[c].append(v)
    return pa.table(rows, schema=pa.schema(CHECK_SCHEMA))


def kept_campaigns_table(metas: dict[str, dict]) -> pa.Table:
    """The kept campaigns among the loaded shards (a kind with a pinned result version) and their sizes."""
    shards: dict[tuple[str, str, str], set[int]] = defaultdict(set)
    for m in metas.values():
        spec = m.get("spec") or {}
        if engine(m["game"]).kind_of(spec).result_version is not None:
            shards[m["game"], m["experiment"], m["variant"]].add(int(m["shard"]))
    keys = sorted(shards)
    return pa.table(
        {
            "game": [k[0] for k in keys],
            "experiment": [k[1] for k in keys],
            "variant": [k[2] for k in keys],
            "shards_kept": pa.array([len(shards[k]) for k in keys], pa.int32()),
        },
        schema=pa.schema(
            {"game": pa.string(), "experiment": pa.string(), "variant": pa.string(), "shards_kept": pa.int32()}
        ),
    )


# Each kept campaign with how much of it was recomputed independently, when, on what, and whether
# every recomputation matched (a campaign never checked shows 0 shards checked).
CAMPAIGN_CHECKS_VIEW = """
CREATE VIEW campaign_checks AS
SELECT k.game, k.experiment, k.variant, k.shards_kept,
       count(DISTINCT c.shard)::INTEGER AS shards_checked,
       count(c.shard)::INTEGER AS checks,
       coalesce(sum(CASE WHEN NOT c.matched THEN 1 ELSE 0 END), 0)::INTEGER AS mismatches,
       min(c.date) AS first_checked, max(c.date) AS last_checked,
       string_agg(DISTINCT c.machine, '; ' ORDER BY c.machine) AS machines,
       coalesce(sum(c.cpu_s), 0) AS check_cpu_s
FROM kept_campaigns k
LEFT JOIN recompute_checks c USING (game, experiment, variant)
GROUP BY ALL
ORDER BY k.game, k.experiment, k.variant
"""
