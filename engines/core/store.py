"""Parquet writing and reading with provenance: one way for every engine.

A shard's file appears under its final name only when it is complete (written
to a temporary file in the same directory, flushed, fsynced, then renamed),
so a killed job never leaves a file that looks finished.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import CardlabError
from .provenance import canonical_json

META_KEY = b"cardlab"


def temp_files(path: str | os.PathLike) -> list[Path]:
    """Temporaries of an atomic write of ``path`` (the names :func:`atomic_write` gives them)."""
    path = Path(path)
    return sorted(path.parent.glob(f".{path.name}.*.tmp")) if path.parent.is_dir() else []


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb"):
    """Open a temporary file beside ``path``; on success it is fsynced and renamed to ``path``.

    The one way cardlab writes a file: a reader (or a resumed run) sees the old
    file or the whole new one, never part of one, and a failure leaves nothing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> Path:
    with atomic_write(path, "w") as fh:
        fh.write(text)
    return Path(path)


def to_table(columns: Mapping[str, object] | pa.Table, schema: pa.Schema | None = None) -> pa.Table:
    if isinstance(columns, pa.Table):
        return columns.cast(schema) if schema is not None else columns
    return pa.table(dict(columns), schema=schema)


def write_parquet(
    path: str | os.PathLike,
    columns: Mapping[str, object] | pa.Table,
    meta: Mapping,
    schema: pa.Schema | None = None,
) -> Path:
    """Write one table atomically, with ``meta`` as JSON under the ``cardlab`` key."""
    path = Path(path)
    table = to_table(columns, schema)
    md = dict(table.schema.metadata or {})
    md[META_KEY] = canonical_json(dict(meta)).encode()
    table = table.replace_schema_metadata(md)
    with atomic_write(path) as fh:
        # Fixed writer settings: same data -> same bytes on every run.
        pq.write_table(table, fh, compression="zstd", write_statistics=True)
    return path


def read_meta(path: str | os.PathLike) -> dict:
    """The provenance record of a cardlab Parquet file; a clear error if it is not one."""
    path = Path(path)
    if not path.exists():
        raise CardlabError(f"{path}: file is missing")
    try:
        md = pq.read_schema(path).metadata or {}
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise CardlabError(
            f"{path}: not a readable Parquet file ({exc.__class__.__name__}: {exc}). "
            "Delete it and rerun `snakemake --cores all` to recompute that shard."
        ) from None
    if META_KEY not in md:
        raise CardlabError(
            f"{path}: Parquet file without cardlab provenance (foreign file?). "
            "Move it out of results/ or delete it and rerun the workflow."
        )
    try:
        meta = json.loads(md[META_KEY])
    except (ValueError, UnicodeDecodeError):
        meta = None
    if not isinstance(meta, dict):
        raise CardlabError(
            f"{path}: damaged cardlab provenance (not JSON); delete the file and rerun "
            "`snakemake --cores all` to recompute that shard"
        )
    return meta


def read_table(path: str | os.PathLike) -> pa.Table:
    path = Path(path)
    read_meta(path)
    return pq.read_table(path)
