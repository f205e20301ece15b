"""Parquet writing and reading with provenance: one way for every engine.

A shard's file appears under its final name only when it is complete (written
to a temporary file in the same directory, flushed, fsynced, then renamed),
so a killed job never leaves a file that looks finished.

Silent damage is caught two ways.  Every data page carries a CRC32 page
checksum (Parquet's own, verified by :func:`read_verified` and by any reader
that asks for it), and the provenance records ``data_sha256``: the sha256 of
the file's bytes before its footer (every row group: page headers and data).
The footer holds the provenance itself, so the hash covers everything except
the record that states it; :func:`read_verified` recomputes it from the bytes
it then parses, so what is checked is exactly what is loaded.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import CardlabError
from .layout import TEMP_SUFFIX, temp_prefix
from .provenance import canonical_json

META_KEY = b"cardlab"
HASH_KEY = "data_sha256"  # provenance field: sha256 of the file's bytes before the footer
# Fixed writer settings: same data -> same bytes on every run; a CRC32 on every page.
WRITE_OPTIONS = {"compression": "zstd", "write_statistics": True, "write_page_checksum": True}


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb"):
    """Open a temporary file beside ``path``; on success it is fsynced and renamed to ``path``.

    The one way cardlab writes a file: a reader (or a resumed run) sees the old
    file or the whole new one, never part of one, and a failure leaves nothing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path), suffix=TEMP_SUFFIX, dir=path.parent)
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
    """Write one table atomically, with ``meta`` (plus ``data_sha256``) as JSON under the ``cardlab`` key.

    The data part of a Parquet file does not depend on the footer's key-value
    metadata, so the table is written once to memory to hash that part, then
    written with the hash in its provenance (and checked to have the same data part)."""
    path = Path(path)
    table = to_table(columns, schema)

    def encode(record: Mapping) -> bytes:
        md = dict(table.schema.metadata or {})
        md[META_KEY] = canonical_json(dict(record)).encode()
        buf = io.BytesIO()
        pq.write_table(table.replace_schema_metadata(md), buf, **WRITE_OPTIONS)
        return buf.getvalue()

    record = {k: v for k, v in dict(meta).items() if k != HASH_KEY}
    digest = data_sha256(encode(record))
    data = encode({**record, HASH_KEY: digest})
    if data_sha256(data) != digest:  # cannot happen unless the writer puts metadata in data pages
        raise CardlabError(f"{path}: Parquet data part changed with its footer; not written")
    with atomic_write(path) as fh:
        fh.write(data)
    return path


def data_part(data: bytes) -> bytes:
    """The bytes of a Parquet file before its footer (magic, then every row group)."""
    if len(data) < 12 or data[:4] != b"PAR1" or data[-4:] != b"PAR1":
        raise ValueError("no Parquet magic bytes at both ends")
    footer = int.from_bytes(data[-8:-4], "little")
    if footer + 12 > len(data):
        raise ValueError("footer length beyond the file")
    return data[: len(data) - 8 - footer]


def data_sha256(data: bytes) -> str:
    """sha256 of a Parquet file's data part (see :func:`data_part`)."""
    return hashlib.sha256(data_part(data)).hexdigest()


def _damaged_data(path: Path, reason: str) -> CardlabError:
    return CardlabError(
        f"{path}: damaged Parquet data ({reason}); delete it and rerun `snakemake --cores all` to recompute that shard"
    )


def read_verified(path: str | os.PathLike) -> tuple[dict, pa.Table]:
    """Provenance and table of a cardlab file, read from one read of its bytes and checked:
    the data part's sha256 must be the one its provenance records, and every page checksum must hold."""
    path = Path(path)
    meta = read_meta(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CardlabError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if HASH_KEY not in meta:
        raise _damaged_data(path, f"its provenance records no {HASH_KEY}: not written by this cardlab")
    try:
        digest = data_sha256(data)
    except ValueError as exc:
        raise _damaged_data(path, str(exc)) from None
    if digest != meta[HASH_KEY]:
        raise _damaged_data(
            path, f"{HASH_KEY} of its data is {digest[:16]}..., provenance says {str(meta[HASH_KEY])[:16]}..."
        )
    try:
        table = pq.read_table(pa.BufferReader(data), page_checksum_verification=True)
    except Exception as exc:  # pyarrow raises several types for damaged pages
        raise _damaged_data(path, f"{exc.__class__.__name__}: {' '.join(str(exc).split())}") from None
    if read_meta_bytes(table.schema.metadata) != meta:  # the file changed between the two reads
        raise _damaged_data(path, "the file changed while it was read")
    return meta, table


def read_meta_bytes(md) -> dict | None:
    """The provenance record in a schema's key-value metadata (None if absent or not a JSON object)."""
    try:
        meta = json.loads((md or {})[META_KEY])
    except (KeyError, ValueError, UnicodeDecodeError):
        return None
    return meta if isinstance(meta, dict) else None


def read_meta(path: str | os.PathLike) -> dict:
    """The provenance record of a cardlab Parquet file; a clear error if it is not one."""
    path = Path(path)
    if not path.exists():
        what = "dangling symbolic link" if path.is_symlink() else "file is missing"
        raise CardlabError(f"{path}: {what}")
    if not path.is_file():
        raise CardlabError(
            f"{path}: not a readable Parquet file (a directory or special file is in its place). "
            "Remove it and rerun `snakemake --cores all` to recompute that shard."
        )
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
    meta = read_meta_bytes(md)
    if meta is None:
        raise CardlabError(
            f"{path}: damaged cardlab provenance (not JSON); delete the file and rerun "
            "`snakemake --cores all` to recompute that shard"
        )
    return meta


def read_table(path: str | os.PathLike) -> pa.Table:
    """A cardlab file's table, after checking its content hash and page checksums."""
    return read_verified(path)[1]
