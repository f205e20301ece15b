"""Every byte of a shard file is covered: a flip anywhere is refused before anything in it is believed.

The footer holds the schema, the column statistics DuckDB uses to skip row groups and the
provenance; in a small shard (every kept campaign shard) it is most of the file.  So the
check is exhaustive here: each offset of a real search shard, flipped, must be refused.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from engines.core.errors import CardlabError
from engines.core.store import (
    FILE_HASH_KEY,
    data_part,
    file_digest_problem,
    read_verified,
    write_parquet,
)

ROOT = Path(__file__).resolve().parents[1]
KEPT = ROOT / "results" / "redblack"


def kept_files() -> list[Path]:
    return sorted(KEPT.rglob("shard=*.parquet"))


def small_shard(tmp_path: Path) -> Path:
    """A search shard with rows in every column kind (strings, ints), statistics and provenance."""
    path = tmp_path / "shard=0000.parquet"
    cols = {"p1": ["0101", "0011", "0110"], "p2": ["1010", "1100", "1001"], "period": [13, 13, 221]}
    write_parquet(path, cols, {"game": "redblack", "table": "redblack_found", "rows": 3})
    return path


def flipped(data: bytes, at: int) -> bytes:
    out = bytearray(data)
    out[at] ^= 0x10
    return bytes(out)


def test_a_flip_at_every_offset_is_refused(tmp_path):
    path = small_shard(tmp_path)
    data = path.read_bytes()
    footer = len(data) - len(data_part(data))
    assert footer > len(data) // 2  # the footer is most of a small file: the part the old checks missed
    passed = []
    for at in range(len(data)):
        path.write_bytes(flipped(data, at))
        try:
            read_verified(path)
        except CardlabError as exc:
            assert "damaged" in str(exc) or "not a readable Parquet file" in str(exc), str(exc)
        else:
            passed.append(at)
    assert passed == [], f"flips at offsets {passed[:20]} were read as sound"


def test_every_kept_campaign_file_is_sealed_and_sound():
    files = kept_files()
    assert len(files) >= 140  # k = 16..20, three tables a shard
    for path in files:
        data = path.read_bytes()
        assert file_digest_problem(data) is None, path
        read_verified(path)


@pytest.mark.parametrize("at_fraction", [0.1, 0.33, 0.5, 0.9, 0.99])
def test_a_flip_in_a_kept_file_is_named(tmp_path, at_fraction):
    src = next(p for p in kept_files() if "redblack_found" in str(p) and "k16" in str(p))
    path = tmp_path / src.name
    data = src.read_bytes()
    path.write_bytes(flipped(data, int(at_fraction * len(data))))
    with pytest.raises(CardlabError, match=str(path)):
        read_verified(path)


def test_a_file_without_the_whole_file_hash_is_refused_as_damaged(tmp_path):
    """A file written before whole-file hashes (the same table and provenance, no hash entry) is refused
    with the fix, never read on the word of its footer."""
    path = small_shard(tmp_path)
    _, table = read_verified(path)
    old = tmp_path / "old.parquet"
    md = {k: v for k, v in pq.read_metadata(path).metadata.items() if k != FILE_HASH_KEY}
    pq.write_table(table.replace_schema_metadata(md), old, compression="zstd", write_page_checksum=True)
    with pytest.raises(CardlabError, match=r"damaged.*written before whole-file hashes.*delete it and rerun"):
        read_verified(old)
    shutil.rmtree(tmp_path)


# ---------------------------------------------------------------- verify, the build and recompute


def found_shard(wd: Path) -> Path:
    """The smallest RedBlack search shard with infinite deals in a run (a kept campaign file's shape)."""
    files = sorted((wd / "results" / "redblack" / "redblack_found").rglob("shard=*.parquet"))
    return min((p for p in files if pq.read_metadata(p).num_rows), key=lambda p: p.stat().st_size)


def test_flips_spread_over_a_shard_are_refused_by_verify_and_the_build(finished, tmp_path):
    from engines.pipeline.catalog.warehouse import FileProblem, build, check_file

    victim = found_shard(finished)
    data = victim.read_bytes()
    others = [str(p) for p in (finished / "results" / "redblack").rglob("shard=*.parquet") if p != victim]
    offsets = sorted(set(range(0, len(data), max(1, len(data) // 300))) | {len(data) - 1})
    try:
        for at in offsets:
            victim.write_bytes(flipped(data, at))
            with pytest.raises(FileProblem) as err:
                check_file(str(victim))
            assert err.value.kind == "damaged" and str(victim) in str(err.value), (at, str(err.value))
        for at in offsets[:: max(1, len(offsets) // 8)]:  # the build refuses them too, and writes no catalog
            victim.write_bytes(flipped(data, at))
            out = tmp_path / f"wh{at}.duckdb"
            with pytest.raises(CardlabError, match=str(victim)):
                build([*others, str(victim)], out, log=open(os.devnull, "w"))
            assert not out.exists()
    finally:
        victim.write_bytes(data)


def test_verify_names_a_damaged_shard_and_recompute_gives_the_original_bytes(finished_run):
    from wfhelp import cardlab, cardlab_here

    victim = found_shard(finished_run)
    original = victim.read_bytes()
    victim.write_bytes(flipped(original, len(original) // 3))  # in the footer of a small shard
    res = cardlab_here(finished_run, "verify")
    assert res.returncode == 1
    rel = str(victim.relative_to(finished_run))
    line = next(ln for ln in res.stdout.splitlines() if rel in ln)
    assert line.startswith("damaged:") and f"cardlab recompute {rel}" in line and "of CPU" in line, line
    res = cardlab(finished_run, "recompute", rel, "--cores", "1")
    assert res.returncode == 0, res.stdout + res.stderr
    assert victim.read_bytes() == original
    moved = list((finished_run / "results" / "damaged").rglob("*"))
    assert any(p.is_file() for p in moved), "the damaged file was not kept aside"
    assert cardlab_here(finished_run, "verify").returncode == 0


@pytest.mark.parametrize(
    ("cpu_s", "said"), [(0.0, "under a second"), (0.4, "under a second"), (125.0, "about 2 min 05 s")]
)
def test_a_measured_cost_is_named_however_short(tmp_path, cpu_s, said):
    """A small shard's timing can say 0.0 CPU-s: measured, not missing."""
    from engines.core.layout import log_path, timing_of
    from engines.pipeline.bookkeeping.records import write_record
    from engines.pipeline.compute.jobs import timing
    from engines.pipeline.trust.repair import recompute_cost

    shard = tmp_path / "results/redblack/redblack_found/exhaustive_k06/owner/shard=0000.parquet"
    record = timing_of(log_path("redblack", "exhaustive_k06", "owner", 0, str(tmp_path / "results")))
    assert recompute_cost(shard) == ""  # no record: unmeasured
    write_record(record, {"state": "done", **timing({"work": 462}, "deals", cpu_s, cpu_s, 1)})
    assert recompute_cost(shard) == f"{said} of CPU (measured: {record})"
