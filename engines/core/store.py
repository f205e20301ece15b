"""Parquet writing and reading with provenance: one way for every engine.

A shard's file appears under its final name only when it is complete (written
to a temporary file in the same directory, flushed, fsynced, then renamed),
so a killed job never leaves a file that looks finished.

Silent damage is caught three ways, and together they cover every byte.
Every data page carries a CRC32 page checksum (Parquet's own); the provenance
records ``data_sha256``, the sha256 of the file's bytes before its footer
(every row group: page headers and data), which also names a shard's results
independently of its footer; and the footer's last key-value entry,
``cardlab.file_sha256``, is the sha256 of the whole file with that entry's
64 hex digits read as zeros.  The footer holds the schema, the column
statistics a query uses to skip row groups and the provenance, so a flipped
byte there is as harmful as one in the data: the whole-file hash is checked
before anything in the footer is believed.  :func:`read_verified` checks all
three on one read of the bytes it then parses, so what is checked is exactly
what is loaded.  A file without the whole-file hash (written before it) is
refused like a damaged one: every kept campaign file carries it.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import io
import json
import os
import sys
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
# Footer key-value entry (outside the provenance JSON, which pyarrow also copies into the
# ARROW:schema entry): sha256 of the whole file with the digest's own bytes zeroed.
FILE_HASH_KEY = b"cardlab.file_sha256"
_DIGEST_PLACEHOLDER = b"0" * 64
# Fixed writer settings: same data -> same bytes on every run; a CRC32 on every page.
WRITE_OPTIONS = {"compression": "zstd", "write_statistics": True, "write_page_checksum": True}


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb"):
    """Open a temporary file beside ``path``; on success it is fsynced and renamed to ``path``.

    The one way cardlab writes a file: a reader (or a resumed run) sees the old
    file or the whole new one, never part of one, and a failure leaves nothing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path), suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp's 0600 would hide results from the team
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


class _NoPandas(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"{name} is hidden from shard jobs (engines.core.store.without_pandas)")
        return None


def without_pandas() -> None:
    """Hide pandas from this process (a shard job, which never uses it).

    Where pandas is installed (the SLURM plugins need it), pyarrow imports it on the first
    array it builds, only to ask whether a column is a pandas object: 0.5 CPU-s, a third of
    a shard job's start-up, about 50 CPU-s of a cold default run."""
    if "pandas" not in sys.modules and not any(isinstance(f, _NoPandas) for f in sys.meta_path):
        sys.meta_path.insert(0, _NoPandas())


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

    record = {k: v for k, v in dict(meta).items() if k != HASH_KEY}
    digest = data_sha256(encode_parquet(table, record))
    data = encode_parquet(table, {**record, HASH_KEY: digest})
    if data_sha256(data) != digest:  # cannot happen unless the writer puts metadata in data pages
        raise CardlabError(f"{path}: Parquet data part changed with its footer; not written")
    with atomic_write(path) as fh:
        fh.write(data)
    return path


def encode_parquet(table: pa.Table, record: Mapping) -> bytes:
    """The bytes of a cardlab file: ``table`` with ``record`` as provenance, sealed by its whole-file hash."""
    md = dict(table.schema.metadata or {})
    md[META_KEY] = canonical_json(dict(record)).encode()
    buf = io.BytesIO()
    with pq.ParquetWriter(buf, table.schema.with_metadata(md), **WRITE_OPTIONS) as writer:
        writer.write_table(table.replace_schema_metadata(md))
        writer.add_key_value_metadata({FILE_HASH_KEY: _DIGEST_PLACEHOLDER})
    return _sealed(buf.getvalue())


def _sealed(data: bytes) -> bytes:
    """``data`` (written with the zero placeholder as its file hash) with the real digest in place."""
    at = _digest_offset(data)
    if at is None or data[at : at + 64] != _DIGEST_PLACEHOLDER:
        raise CardlabError("internal error: the Parquet writer did not write the file-hash entry as expected")
    digest = hashlib.sha256(data).hexdigest().encode()
    return data[:at] + digest + data[at + 64 :]


def _digest_offset(data: bytes) -> int | None:
    """Offset of the 64 hex digits of the whole-file hash: the last occurrence of its key in the footer,
    followed by the thrift string header of a 64-byte value (None if the file has no such entry)."""
    try:
        start = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    except (IndexError, ValueError):
        return None
    key = data.rfind(FILE_HASH_KEY, max(start, 0))
    # the key is followed by the value's field header (0x18: binary, field delta 1) and its length, 64 (0x40)
    if key < 0 or data[key + len(FILE_HASH_KEY) : key + len(FILE_HASH_KEY) + 2] != b"\x18\x40":
        return None
    at = key + len(FILE_HASH_KEY) + 2
    return at if at + 64 <= len(data) - 8 else None


def file_digest_problem(data: bytes) -> str | None:
    """Why ``data`` fails its whole-file hash, or None when every byte is as written."""
    at = _digest_offset(data)
    if at is None:
        return f"no {FILE_HASH_KEY.decode()} entry in its footer (written before whole-file hashes)"
    recorded = data[at : at + 64]
    actual = hashlib.sha256(data[:at] + _DIGEST_PLACEHOLDER + data[at + 64 :]).hexdigest().encode()
    if actual != recorded:
        return f"whole-file sha256 is {actual[:16].decode()}..., its footer says {recorded[:16].decode(errors='replace')}..."
    return None


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


def _read_bytes(path: Path) -> bytes:
    """The bytes of a cardlab file; a file that is not one (missing, foreign, unreadable) gets its own message,
    but only when it carries no whole-file hash: a damaged sealed file is named as damaged."""
    _check_is_file(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CardlabError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if _digest_offset(data) is None:
        read_meta(path)
    return data


def open_shard(path: str | os.PathLike) -> tuple[bytes, dict]:
    """The bytes and provenance of a cardlab file, its whole-file hash checked when it has one, so that
    nothing in a damaged footer is believed; :func:`verified_table` then checks the rest of those bytes."""
    path = Path(path)
    data = _read_bytes(path)
    if _digest_offset(data) is not None and (problem := file_digest_problem(data)) is not None:
        raise _damaged_data(path, problem)
    return data, _provenance(path, data)


def _provenance(path: Path, data: bytes) -> dict:
    try:
        meta = read_meta_bytes(pq.read_schema(pa.BufferReader(data)).metadata)
    except Exception as exc:  # pyarrow raises several types for damaged footers
        raise _damaged_data(path, f"{exc.__class__.__name__}: {' '.join(str(exc).split())}") from None
    if meta is None:
        raise _damaged_data(path, "its provenance is not a JSON record")
    return meta


def read_verified(path: str | os.PathLike) -> tuple[dict, pa.Table]:
    """Provenance and table of a cardlab file, read from one read of its bytes and checked: every byte
    against the whole-file hash, the data part against ``data_sha256``, every page against its checksum."""
    path = Path(path)
    return verified_table(path, _read_bytes(path))


def verified_table(path: str | os.PathLike, data: bytes) -> tuple[dict, pa.Table]:
    """Provenance and table of the bytes ``data`` of the file ``path``, after every check of :func:`read_verified`."""
    return _checked(Path(path), data)


def _checked(path: Path, data: bytes) -> tuple[dict, pa.Table]:
    if (problem := file_digest_problem(data)) is not None:
        raise _damaged_data(path, problem)
    meta = _provenance(path, data)
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
        # One thread: pq.read_table's dataset reader starts Arrow's thread pools, and a process
        # that used them aborts at exit now and then ("terminate called without an active
        # exception", apache/arrow#34314), failing a shard job whose files were already written.
        reader = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True)
        table = reader.read(use_threads=False)
    except Exception as exc:  # pyarrow raises several types for damaged pages
        raise _damaged_data(path, f"{exc.__class__.__name__}: {' '.join(str(exc).split())}") from None
    if read_meta_bytes(table.schema.metadata) != meta:  # cannot happen: both come from the same bytes
        raise _damaged_data(path, "its provenance reads differently twice")
    return meta, table


def read_meta_bytes(md) -> dict | None:
    """The provenance record in a schema's key-value metadata (None if absent or not a JSON object)."""
    try:
        meta = json.loads((md or {})[META_KEY])
    except (KeyError, ValueError, UnicodeDecodeError):
        return None
    return meta if isinstance(meta, dict) else None


def _check_is_file(path: Path) -> None:
    if not path.exists():
        what = "dangling symbolic link" if path.is_symlink() else "file is missing"
        raise CardlabError(f"{path}: {what}")
    if not path.is_file():
        raise CardlabError(
            f"{path}: not a readable Parquet file (a directory or special file is in its place). "
            "Remove it and rerun `snakemake --cores all` to recompute that shard."
        )


def read_meta(path: str | os.PathLike) -> dict:
    """The provenance record of a cardlab Parquet file; a clear error if it is not one.

    Cheap (it reads the footer only), so not checked: :func:`read_verified` checks every byte."""
    path = Path(path)
    _check_is_file(path)
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
