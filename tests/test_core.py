"""The shared core: seed derivation, the counter-based generator and its Python twin, shard planning."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.core import rng
from engines.core.layout import shard_name
from engines.core.shards import split_range


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**40), st.integers(1, 60))
def test_numba_shuffle_equals_python_twin(seed, index, n):
    a = np.arange(n, dtype=np.int64)
    rng.shuffle_inplace(np.uint64(rng.stream_start(np.uint64(seed), np.int64(index))), a)
    assert list(a) == rng.shuffle_py(seed, index, list(range(n)))


@given(st.integers(0, 2**64 - 1), st.integers(1, 2**32 - 1))
def test_bounded_equals_python_twin_and_stays_in_range(state, n):
    s1, v1 = rng.bounded(np.uint64(state), np.int64(n))
    s2, v2 = rng.bounded_py(state, n)
    assert (int(s1), int(v1)) == (s2, v2)
    assert 0 <= v1 < n


def test_bounded_is_uniform_enough():
    state, counts = 1, np.zeros(6, dtype=np.int64)
    for _ in range(60_000):
        state, v = rng.bounded(np.uint64(state), 6)  # numba hands the state back as a Python int
        counts[v] += 1
    expected = 10_000
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 25  # 5 degrees of freedom: p < 1e-4 for a fair generator


def test_shard_seed_is_explicit_and_distinct():
    a = rng.shard_seed(7, "narcotic", "seed", "deal.top-right.keep", 3)
    assert a == rng.shard_seed(7, "narcotic", "seed", "deal.top-right.keep", 3)
    others = {rng.shard_seed(7, "narcotic", "seed", "deal.top-right.keep", s) for s in range(100)}
    others |= {
        rng.shard_seed(8, "narcotic", "seed", "deal.top-right.keep", 3),
        rng.shard_seed(7, "redblack", "seed", "deal.top-right.keep", 3),
        rng.shard_seed(7, "narcotic", "other", "deal.top-right.keep", 3),
    }
    assert len(others) == 103
    assert "spawn_key" in rng.seed_derivation(7, "narcotic", "seed", "v", 3)


@given(st.integers(0, 10**6), st.integers(1, 500))
def test_split_range_covers_in_order_with_near_equal_sizes(total, shards):
    parts = split_range(total, shards)
    assert len(parts) == shards and parts[0][0] == 0 and parts[-1][1] == total
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    sizes = [b - a for a, b in parts]
    assert max(sizes) - min(sizes) <= 1


def test_split_range_rejects_nonsense():
    with pytest.raises(ValueError):
        split_range(10, 0)
    with pytest.raises(ValueError):
        split_range(-1, 2)


def test_shard_names_sort_in_shard_order():
    names = [shard_name(i) for i in (0, 9, 10, 123)]
    assert names == sorted(names) and names[0] == "shard=0000"


def test_malformed_provenance_is_a_clear_error(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from engines.core.errors import CardlabError
    from engines.core.store import META_KEY, read_meta, write_parquet

    good = write_parquet(tmp_path / "good.parquet", {"x": [1, 2]}, {"game": "narcotic"})
    meta = read_meta(good)
    assert meta.pop("data_sha256") and meta == {"game": "narcotic"}  # the content hash is added
    table = pa.table({"x": [1]}).replace_schema_metadata({META_KEY: b"{not json"})
    pq.write_table(table, tmp_path / "bad.parquet")
    with pytest.raises(CardlabError, match=r"bad.parquet: damaged cardlab provenance \(not JSON\)"):
        read_meta(tmp_path / "bad.parquet")


def test_timing_records_name_the_kind_of_cpu(tmp_path):
    """A shard's timing record names the kind of CPU it ran on and its peak memory; the warehouse's
    shard_timings reads it, and reads a record without the kind as an unknown machine (NULL), never as
    this one; a record still running (no attempt finished) gives no row."""
    from engines.core.layout import log_path, shard_path, timing_of
    from engines.core.machine import machine
    from engines.pipeline.bookkeeping.records import JobRecorder, write_record
    from engines.pipeline.catalog.warehouse import timing_table
    from engines.pipeline.compute.jobs import timing

    assert machine() and "(" in machine()
    measured = timing({"work": 10}, "deals", 1.5, 1.25, 1)
    assert {k: measured[k] for k in ("work", "unit", "wall_s", "cpu_s", "threads", "machine", "cpu", "device")} == {
        "work": 10, "unit": "deals", "wall_s": 1.5, "cpu_s": 1.25, "threads": 1, "machine": machine(),
        "cpu": machine(), "device": None,
    }  # fmt: skip
    assert measured["peak_mb"] is None or measured["peak_mb"] > 1
    metas = {}
    for shard, record in enumerate(({"state": "done", **measured}, {"state": "done", "cpu_s": 2.0}, None)):
        spec = {"experiment": "e", "variant": "v", "shard": shard}
        path = timing_of(log_path("redblack", "e", "v", shard, str(tmp_path)))
        if record is None:
            JobRecorder(path, 1, 0.0)
        else:
            write_record(path, record)
        metas[shard_path("redblack", "redblack_counts", spec, str(tmp_path))] = {"game": "redblack", **spec}
    table = timing_table(metas).to_pydict()
    assert table["shard"] == [0, 1] and table["machine"] == [machine(), None]
    assert table["cpu_s"] == [1.25, 2.0] and table["cpu"] == [machine(), None]


def test_every_kept_timing_record_of_a_device_s_job_names_the_device():
    """A job a GPU computed records that GPU as its ``device`` (shard_timings: NULL is the CPU), the kept
    campaign records written before the field included, and the CPU's CPU seconds never price it."""
    import json
    import subprocess
    from pathlib import Path

    from engines.kinds import on_gpu
    from engines.pipeline.bookkeeping.records import cpu_priced

    root = Path(__file__).resolve().parent.parent
    listed = subprocess.run(["git", "ls-files", "results/timings"], cwd=root, capture_output=True, text=True)
    records = [json.loads((root / f).read_text()) for f in listed.stdout.split()]
    on_device = [r for r in records if r.get("state") == "done" and on_gpu(r.get("machine"))]
    assert len(records) > 100 and on_device  # the kept k = 23 GPU shards
    assert all(r.get("device") == r["machine"] and cpu_priced(r) is None for r in on_device)
    assert not any(r.get("device") for r in records if not on_gpu(r.get("machine")))


def test_an_eta_drops_the_seconds_of_a_long_forecast():
    from engines.core.fmt import MISSING, eta

    assert [eta(s) for s in (12, 91, 599.4, 600, 5857, 3599.9, None)] == [
        "12 s",
        "1 min 31 s",
        "9 min 59 s",
        "10 min",
        "1 h 38 min",
        "1 h 00 min",
        MISSING,
    ]


def test_shard_order_gives_the_first_shard_the_highest_priority():
    from engines.pipeline.planning.plan import shard_priority

    shards = range(10)
    first = {o: max(shards, key=lambda n: shard_priority(o, n, 9)) for o in ("ascending", "descending")}
    assert first == {"ascending": 0, "descending": 9}
    assert all(shard_priority(o, n, 9) > 0 for o in first for n in shards)  # the ILP scheduler sums them
    assert {shard_priority(None, n, 9) for n in shards} == {0}  # Snakemake's own order
