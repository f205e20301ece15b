"""Engine version hashes and the provenance record every Parquet file carries."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # engines/

# Every engine's version covers the shared core too: a change in seeding,
# shard planning or Parquet writing can change any game's results.
CORE_FILES = ("core/rng.py", "core/shards.py", "core/store.py", "core/provenance.py")

_PACKAGES = ("numpy", "numba", "pyarrow", "duckdb", "polars", "snakemake")


def files_version(files: tuple[str, ...] | list[str]) -> str:
    """Short sha256 over the named files under engines/ (names and bytes, in order)."""
    h = hashlib.sha256()
    for name in files:
        h.update(name.encode())
        h.update(b"\0")
        h.update((PACKAGE_DIR / name).read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def package_versions() -> dict[str, str]:
    out = {}
    for name in _PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def provenance(game: str, version: str, **fields) -> dict:
    """The key-value record stored in a shard's Parquet metadata.

    Deliberately carries no timestamp or host name: the same config and seeds
    must give byte-identical files on any machine and any number of cores.
    """
    record = {"game": game, "engine_version": version}
    record.update(fields)
    record["packages"] = package_versions()
    return record


def canonical_json(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))
