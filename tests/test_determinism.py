"""Determinism: the same config and seeds give the same Parquet bytes with 1 or 2 cores
(and 1 or 2 numba threads); files carry no timestamps; the number of shards never
changes exact results."""

from __future__ import annotations

import json
import time
from collections import Counter

import pyarrow.parquet as pq
from wfhelp import job_logs, reference, reference_dir

from engines.core.progress import Progress
from engines.core.store import FILE_HASH_KEY, META_KEY, write_parquet
from engines.redblack import canonical_deals
from engines.registry import engine


def test_one_core_and_two_cores_give_identical_bytes():
    one, two = reference(cores=1), reference(cores=2)
    assert len(one) >= 20
    assert one == two, sorted(k for k in one if one.get(k) != two.get(k))[:5]
    # numba followed each job's threads: the exhaustive shards asked for 2 threads
    # and got 1 under --cores 1 (Snakemake caps threads at the cores) and 2 under --cores 2
    for cores in (1, 2):
        logs = [log for log in job_logs(reference_dir(cores), "redblack") if "exhaustive_k" in log]
        threads = {line.rsplit(" ", 1)[1] for log in logs for line in log.splitlines() if "numba threads" in line}
        assert logs and threads == {str(cores)}, (cores, threads)


def test_parquet_files_carry_no_timestamp(tmp_path):
    """Writing the same table twice, a second apart, gives the same bytes; the only
    key-value metadata are the Arrow schema, cardlab's provenance and the whole-file hash."""
    cols, meta = {"x": [1, 2, 3], "y": ["a", "b", "c"]}, {"game": "narcotic", "rows": 3}
    a = write_parquet(tmp_path / "a.parquet", cols, meta)
    time.sleep(1.1)
    b = write_parquet(tmp_path / "b.parquet", cols, meta)
    assert a.read_bytes() == b.read_bytes()
    md = pq.ParquetFile(a).metadata
    assert set(md.metadata) == {b"ARROW:schema", META_KEY, FILE_HASH_KEY}
    assert not any(ch.isdigit() for ch in md.created_by.split("version")[0])  # "parquet-cpp-arrow version X"
    record = json.loads(md.metadata[META_KEY])
    assert not {k for k in record if "time" in k or "date" in k or "host" in k}


def shards_of(plan: list[dict], kind: str) -> list[dict]:
    return [s for s in plan if s.get("kind") == kind]


def redblack_exact(deals_per_shard: int) -> tuple[int, Counter, Counter, list]:
    """Totals, length histogram and infinite deals of an exhaustive search of k = 7, 8."""
    plan = engine("redblack").plan({"exhaustive": {"k": [7, 8], "deals_per_shard": deals_per_shard}, "basins": False})
    deals, hist, found = 0, Counter(), []
    for spec in shards_of(plan, "exhaustive"):
        t = engine("redblack").kind_of(spec).compute(spec, Progress(1, "deals", enabled=False), [])
        deals += sum(t["redblack_counts"]["deals"])
        hist.update(
            {
                (k, r): int(n)
                for k, r, n in zip(t["redblack_hist"]["k"], t["redblack_hist"]["rounds"], t["redblack_hist"]["deals"])
            }
        )
        found += list(zip(t["redblack_found"]["p1"], t["redblack_found"]["p2"], t["redblack_found"]["cycle_id"]))
    return len(shards_of(plan, "exhaustive")), deals, hist, sorted(found)


def test_shard_count_never_changes_exact_results():
    few, many = redblack_exact(100_000), redblack_exact(1_000)
    assert few[0] == 2 and many[0] > few[0]
    assert few[1:] == many[1:]
    assert few[1] == canonical_deals(7) + canonical_deals(8)


def test_blackjack_exact_table_independent_of_simulation_shards():
    def exact(shards: int) -> dict:
        section = {
            "exact": {"decks": [1, 2]},
            "experiments": [{"name": "s", "decks": 2, "hands_per_upcard": 100, "shards": shards, "seed": 1}],
        }
        spec = next(s for s in engine("blackjack").plan(section) if s["kind"] == "exact")
        return engine("blackjack").kind_of(spec).compute(spec, Progress(1, "hands", enabled=False), [])

    assert exact(1) == exact(4)
