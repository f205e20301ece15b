"""Shard files damaged in every way the robustness tests name (tests/test_robustness_files.py through the
warehouse build and `cardlab verify`, tests/test_robustness_rebuild.py through the workflow)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from engines.core import layout
from engines.core.store import META_KEY, read_meta, write_parquet
from engines.pipeline.compute import jobs
from engines.registry import engine


def narcotic_shards(root: Path, n: int, games: int = 400) -> list[str]:
    """``n`` genuine narcotic shard files written by the current engine."""
    plan = engine("narcotic").plan(
        {"experiments": [{"name": "t", "rules": "seed", "games": games, "shards": n, "seed": 9}]}
    )
    paths = []
    for spec in plan:
        path = layout.shard_path("narcotic", "narcotic_games", spec, root=str(root))
        jobs.run_shard("narcotic", spec, {"narcotic_games": path}, log=str(root / "log.txt"))
        paths.append(path)
    return paths


def damaged_copy(src: str, dest: Path, how: str) -> Path:
    """A copy of a shard file damaged in one way."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if how == "truncated":
        data = Path(src).read_bytes()
        dest.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        dest.write_bytes(b"")
    elif how == "foreign":  # a Parquet file from elsewhere: no cardlab provenance
        pq.write_table(pa.table({"a": [1, 2]}), dest)
    elif how in ("stale", "wrong_schema", "row_count", "bad_json"):
        table = pq.read_table(src)
        meta = read_meta(src)
        if how == "stale":
            meta["engine_version"] = "0123456789abcdef"
        if how == "row_count":
            meta["rows"] += 1
        if how == "wrong_schema":
            table = table.drop_columns(["won"])
        if how == "bad_json":
            pq.write_table(table.replace_schema_metadata({META_KEY: b"{not json"}), dest)
        else:  # written as cardlab writes: the damage is in what the provenance says, not in the bytes
            write_parquet(dest, table.replace_schema_metadata(None), meta)
    elif how == "corrupt_page":  # footer intact, data pages overwritten
        data = bytearray(Path(src).read_bytes())
        footer = int.from_bytes(data[-8:-4], "little") + 8
        for i in range(4, len(data) - footer - 4):
            data[i] = 0xFF
        dest.write_bytes(bytes(data))
    elif how == "misplaced":  # a sound shard under another shard's path
        shutil.copy(src, dest)
    elif how == "flipped_bit":  # still reads, with other values
        shutil.copy(src, dest)
        flip_silently(dest)
    elif how == "directory":
        dest.mkdir()
    else:
        raise ValueError(how)
    return dest


def flip_silently(path: Path) -> None:
    """Flip one bit in a data page so that a plain read still succeeds, with other values."""
    data = Path(path).read_bytes()
    table = pq.read_table(path)
    end = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    for i in range(4, end):
        bad = bytearray(data)
        bad[i] ^= 1
        try:
            if not pq.read_table(pa.BufferReader(bytes(bad))).equals(table):
                Path(path).write_bytes(bytes(bad))
                return
        except Exception:
            continue
    raise AssertionError("no silent bit flip found")


# each kind of damage, and what the error naming the file says of it
FIXES = {
    "truncated": "not a readable Parquet file",
    "empty": "not a readable Parquet file",
    "foreign": "without cardlab provenance",
    "stale": "stale shard",
    "wrong_schema": "wrong schema",
    "row_count": "rows but its provenance says",
    "bad_json": "damaged cardlab provenance",
    "corrupt_page": "damaged Parquet data",
    "flipped_bit": "damaged Parquet data (whole-file sha256 is",
    "misplaced": "provenance says narcotic/narcotic_games/t/deal.top-right.keep/0 but its path names",
    "directory": "not a readable Parquet file (a directory or special file is in its place)",
}
