"""The result warehouse: every shard file checked, loaded into one DuckDB catalog.

Shard tables are materialised (not views over Parquet paths) so the catalog
answers from any working directory and a damaged file is caught here, at
build time, with its name.  Each game's ``engines/<game>/views.sql`` then adds
views (summaries) over its tables.  The catalog is written to a temporary
file and renamed into place, so a reader never sees a half-built warehouse.
The storage version is pinned so the registry's ``duckdb`` shell can open it.
"""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pyarrow as pa

from ...core.bookkeeping import left_out
from ...core.errors import CardlabError, squeeze
from ...core.layout import (
    WAREHOUSE,
    ShardPlace,
    parse_shard_path,
    remove_temp_files,
    temp_path,
    timing_of_shard_file,
)
from ...core.store import HASH_KEY, open_shard, read_meta, verified_table, write_text
from ...interface import result_version, views_sql
from ...registry import GAMES, engine
from ..bookkeeping.records import read_timing
from ..planning.plan import Plan
from .check_records import CAMPAIGN_CHECKS_VIEW, check_records_table, kept_campaigns_table, kept_now
from .measurements import measurements_table

STORAGE_VERSION = "v1.5.0"
DEFAULT_PATH = WAREHOUSE
FIX = "delete it and rerun `snakemake --cores all` to recompute that shard"


class FileProblem(CardlabError):
    """A shard file the warehouse refuses; ``kind`` is the `cardlab verify` line it gives
    (damaged, stale, misplaced, rows, missing, unexpected)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def place_of(path: str) -> ShardPlace | None:
    """(game, table, experiment, variant, shard) a path names, if it is laid out as a shard path of a game."""
    parsed = parse_shard_path(path)
    if parsed is None or parsed[1].game not in GAMES:
        return None
    return parsed[1]


_VERSIONS: dict[tuple[int, str, str], str] = {}
_REWRITTEN: dict[tuple[int, str, float], bool] = {}


def rewritten_by_run(plan: Plan, path: str, when: float) -> bool:
    """Whether a run writes a file there again: another version of its engine or another spec wrote it (an
    unreadable one Snakemake does not open: kept).  Read once per plan, file and modification time."""
    key = (id(plan), path, when)
    if key not in _REWRITTEN and plan.files.get(path) is not None:
        if len(_REWRITTEN) > 100_000:
            _REWRITTEN.clear()
        game, _table, spec = plan.files[path]
        shard = plan.shard(game, spec["experiment"], spec["variant"], spec["shard"])
        kind = (id(plan), game, shard.kind.name)
        if kind not in _VERSIONS:  # an engine's source hash: once per plan and kind, not per file
            _VERSIONS[kind] = shard.version
        version = _VERSIONS[kind]
        try:
            meta = read_meta(path)
        except CardlabError:
            meta = None
        _REWRITTEN[key] = meta is not None and (
            meta.get("engine_version") != version or bool(same_spec(meta.get("spec") or {}, dict(spec)))
        )
    return _REWRITTEN.get(key, False)


def same_spec(a: dict, b: dict) -> list[str]:
    """Keys whose values differ between a file's recorded spec and the planned one."""

    def norm(v):
        return json.loads(json.dumps(v, sort_keys=True))

    return sorted(k for k in set(a) | set(b) if norm(a.get(k)) != norm(b.get(k)))


def check_file(path: str, planned: tuple[str, str, dict] | None = None) -> dict:
    """Provenance of one shard file, after every check of :func:`load_file`."""
    return load_file(path, planned)[0]


def load_file(path: str, planned: tuple[str, str, dict] | None = None) -> tuple[dict, pa.Table]:
    """Provenance and rows of one shard file, checked to be what its path (and ``planned``:
    (game, table, spec) of the config's plan) says: complete, undamaged (content hash and page
    checksums), current, of the right schema, the shard its path names, the planned spec and rows.
    Raises :class:`FileProblem` naming the file."""
    try:  # every byte first: nothing a damaged footer says (version, table, statistics) is believed
        raw, meta = open_shard(path)
    except CardlabError as exc:  # pyarrow's reasons can span lines: keep the message one line
        raise FileProblem("damaged", squeeze(str(exc))) from None
    game, table = meta.get("game"), meta.get("table")
    try:
        eng = engine(game)
    except CardlabError:
        raise FileProblem("damaged", f"{path}: written by unknown engine {game!r}; remove it from results/") from None
    if table not in eng.tables:
        raise FileProblem(
            "damaged",
            f"{path}: table {table!r} is not one the {game} engine writes ({', '.join(eng.tables)}); remove the file",
        )
    current = result_version(eng, meta.get("spec") or {})
    if meta.get("engine_version") != current:
        raise FileProblem(
            "stale",
            f"{path}: stale shard, written by {game} engine {meta.get('engine_version')} but the "
            f"engine is now {current}. Rerun `snakemake --cores all` to recompute it.",
        )
    try:
        meta, data = verified_table(path, raw)
    except CardlabError as exc:
        raise FileProblem("damaged", squeeze(str(exc))) from None
    schema = data.schema.remove_metadata()
    expected = eng.tables[table].remove_metadata()
    if not schema.equals(expected):
        raise FileProblem(
            "damaged",
            f"{path}: wrong schema for {table}; expected {expected.names}, "
            f"found {schema.names}. Delete it and rerun the workflow.",
        )
    if data.num_rows != meta.get("rows"):
        raise FileProblem(
            "damaged",
            f"{path}: holds {data.num_rows} rows but its provenance says {meta.get('rows')}; "
            "delete it and rerun the workflow",
        )
    where = (game, table, meta.get("experiment"), meta.get("variant"), meta.get("shard"))
    spec = meta.get("spec") or {}
    if (spec.get("experiment"), spec.get("variant"), spec.get("shard")) != where[2:]:
        raise FileProblem("damaged", f"{path}: provenance contradicts itself (its spec names another shard); {FIX}")
    if planned is not None:
        p_game, p_table, p_spec = planned
        named = (p_game, p_table, p_spec["experiment"], p_spec["variant"], int(p_spec["shard"]))
    else:
        named = place_of(path)
    if named is not None and where != named:
        raise FileProblem(
            "misplaced",
            f"{path}: provenance says {'/'.join(map(str, where))} but its path names "
            f"{'/'.join(map(str, named))} (a copied or moved file); {FIX}",
        )
    if planned is not None:
        differ = same_spec(spec, p_spec)
        if differ:
            raise FileProblem("stale", f"{path}: computed for another config ({', '.join(differ)} differ); {FIX}")
        want = eng.kind_of(p_spec).expected_rows(p_spec, p_table)
        if want is not None and meta.get("rows") != want:
            raise FileProblem("rows", f"{path}: {meta.get('rows')} rows, planned {want}; {FIX}")
    return meta, data


def build(
    files: Iterable[str],
    out: str | os.PathLike = DEFAULT_PATH,
    log=sys.stderr,
    plan: dict[str, tuple[str, str, dict]] | None = None,
    manifest: str | os.PathLike | None = None,
) -> Path:
    """Check every file, then build the catalog into a temporary file and swap it in.

    ``plan`` (path -> (game, table, spec), as :func:`engines.pipeline.planning.plan.planned` gives) is
    the config's plan: then every file must be planned, every planned file given, and each
    must hold its planned shard.  Rows are loaded from the very bytes that were checked.
    A failure leaves the previous catalog in place.  ``manifest``, if given, is written
    after the swap: the files loaded, their content hashes, and the catalog's size and time."""
    files = sorted(set(map(str, files)))
    planned_of = files_match_plan(files, plan)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(out, os.getpid())
    remove_temp_files(out)
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{tmp}' AS wh (STORAGE_VERSION '{STORAGE_VERSION}')")
        con.execute("USE wh")
        create_shard_tables(con)
        metas = load_files(con, files, planned_of, log)
        load_arrow(con, "provenance", provenance_table(metas))
        load_arrow(con, "shard_timings", timing_table(metas))
        load_arrow(con, "recompute_checks", check_records_table(out.parent, kept_now(metas)))
        load_arrow(con, "measurements", measurements_table(out.parent))
        say_left_out(out.parent, log)
        load_arrow(con, "kept_campaigns", kept_campaigns_table(metas))
        con.execute(CAMPAIGN_CHECKS_VIEW)
        add_game_tables_and_views(con)
        con.execute("USE memory")
        con.execute("DETACH wh")
    except BaseException:
        con.close()
        remove_temp_files(out)
        raise
    con.close()
    os.replace(tmp, out)
    if manifest is not None:
        write_manifest(manifest, out, metas)
    print(f"warehouse: wrote {out} from {len(files)} file(s)", file=log)
    return out


def say_left_out(results: Path, log) -> None:
    """The bookkeeping files the tables leave out (a bad timing, check record line or measurement never
    stops the build: it describes results, it is none); `cardlab verify` names each with its fix."""
    if bad := left_out(results):
        first = f"{bad[0].where} ({bad[0].problem})"
        print(
            f"warehouse: left out {len(bad)} bad bookkeeping file(s), e.g. {first}; `cardlab verify` names each with its fix",
            file=log,
        )


def files_match_plan(files: list[str], plan: dict[str, tuple[str, str, dict]] | None):
    """The planned (game, table, spec) of a file, after checking the files are exactly the plan's
    (without a plan, every file is checked against its path alone: None)."""
    if plan is None:
        return lambda f: None
    planned_paths = {os.path.normpath(p): p for p in plan}
    for f in files:
        if os.path.normpath(f) not in planned_paths:
            raise FileProblem("unexpected", f"{f}: not a planned shard of this config; move it out of results/")
    given = {os.path.normpath(f) for f in files}
    for p in sorted(plan):
        if os.path.normpath(p) not in given:
            raise FileProblem("missing", f"{p}: planned shard missing from the build; rerun `snakemake --cores all`")
    return lambda f: plan[planned_paths[os.path.normpath(f)]]


def create_shard_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Every game's shard tables, empty, with the schemas the engines declare."""
    for game in GAMES:
        for table, schema in engine(game).tables.items():
            load_arrow(con, table, schema.empty_table())


def load_files(con: duckdb.DuckDBPyConnection, files: list[str], planned_of, log) -> dict[str, dict]:
    """Check and append every file's rows; returns each file's provenance.  Rows are appended a million
    at a time: an INSERT has a fixed cost of milliseconds, which one per shard would pay for each of
    hundreds of small shards."""
    metas: dict[str, dict] = {}
    counts: dict[str, int] = defaultdict(int)
    pending: dict[str, list[pa.Table]] = defaultdict(list)
    for f in files:
        meta, data = load_file(f, planned_of(f))
        metas[f] = meta
        table = meta["table"]
        pending[table].append(data)
        counts[table] += 1
        if sum(part.num_rows for part in pending[table]) >= APPEND_ROWS:
            append_rows(con, table, pending.pop(table))
    for table, parts in pending.items():
        append_rows(con, table, parts)
    for game in GAMES:
        for table in engine(game).tables:
            print(f"warehouse: {table}: {counts[table]} file(s)", file=log)
    return metas


PROVENANCE_SCHEMA = pa.schema(
    [
        (name, pa.int64() if name in ("shard", "rows", "root_seed") else pa.string())
        for name in (
            "path game table_name experiment variant shard rows engine_version data_sha256 root_seed seed "
            "seed_derivation work_range packages spec"
        ).split()
    ]
)


def provenance_table(metas: dict[str, dict]) -> pa.Table:
    """One row per loaded file: where it came from and how it was computed."""
    rows = []
    for path, m in sorted(metas.items()):
        spec = m.get("spec", {})
        rows.append(
            {
                **{k: m.get(k) for k in ("game", "experiment", "variant", "shard", "rows", "engine_version")},
                "path": path,
                "table_name": m["table"],
                "data_sha256": m.get(HASH_KEY),
                "root_seed": spec.get("root_seed"),
                "seed": str(spec["seed"]) if "seed" in spec else None,
                "seed_derivation": spec.get("seed_derivation"),
                "work_range": json.dumps(spec.get("range")),
                "packages": json.dumps(m.get("packages", {}), sort_keys=True),
                "spec": json.dumps(spec, sort_keys=True),
            }
        )
    return pa.Table.from_pylist(rows, schema=PROVENANCE_SCHEMA)


def add_game_tables_and_views(con: duckdb.DuckDBPyConnection) -> None:
    """Each game's extra tables, then its views (engines/<game>/views.sql)."""
    for game in GAMES:
        for name, extra in engine(game).warehouse_tables().items():
            load_arrow(con, name, extra)
        for stmt in views_sql(engine(game)):
            try:
                con.execute(stmt)
            except duckdb.Error as exc:
                raise CardlabError(f"engines/{game}/views.sql: {exc}") from None


def catalog_stamp(catalog: str | os.PathLike) -> list[int]:
    st = os.stat(catalog)
    return [st.st_size, st.st_mtime_ns]


def write_manifest(manifest: str | os.PathLike, catalog: Path, metas: dict[str, dict]) -> None:
    record = {
        "catalog": str(catalog),
        "catalog_stamp": catalog_stamp(catalog),
        "files": {f: m.get(HASH_KEY) for f, m in sorted(metas.items())},
    }
    write_text(manifest, json.dumps(record, indent=1, sort_keys=True) + "\n")


def loaded_files(manifest: str | os.PathLike) -> set[str]:
    """The shard files the catalog the manifest describes was built from (none when it is unreadable)."""
    try:
        return set(json.loads(Path(manifest).read_text())["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def manifest_current(manifest: str | os.PathLike) -> bool:
    """The manifest describes the catalog now in place (the same size and modification time)."""
    try:
        record = json.loads(Path(manifest).read_text())
        return catalog_stamp(record["catalog"]) == record["catalog_stamp"]
    except (OSError, ValueError, KeyError, TypeError):
        return False


TIMING_SCHEMA = pa.schema(
    [
        *((c, pa.string()) for c in ("game", "experiment", "variant")),
        *((c, pa.int64()) for c in ("shard", "work")),
        ("unit", pa.string()),
        ("wall_s", pa.float64()),
        ("cpu_s", pa.float64()),
        ("threads", pa.int64()),
        ("machine", pa.string()),  # the kind of CPU (engines/core/machine.py), or the device that computed
        ("cpu", pa.string()),  # the kind of CPU the job ran on (beside a device too); NULL in older records
        ("device", pa.string()),  # the device that computed (a GPU), NULL for the CPU
        ("device_id", pa.string()),  # that device as CUDA numbered it for the job (CUDA_VISIBLE_DEVICES)
        ("peak_mb", pa.float64()),  # the job's peak resident memory; NULL in records from before it
    ]
)
SHARD_KEY = ("game", "experiment", "variant", "shard")


def timing_table(metas: dict[str, dict]) -> pa.Table:
    """One row per shard whose job's timing record (results/timings/<game>/...) holds a finished timing:
    measured rates.  A shard copied in without its record has no row; a field not recorded is NULL."""
    rows = {}
    for path, m in metas.items():
        key = tuple(m.get(k) for k in SHARD_KEY)
        if key not in rows and (rec := read_timing(timing_of_shard_file(path))) is not None:
            rows[key] = {**rec, **dict(zip(SHARD_KEY, key, strict=True))}
    return pa.Table.from_pylist([rows[k] for k in sorted(rows)], schema=TIMING_SCHEMA)


def load_arrow(con: duckdb.DuckDBPyConnection, name: str, table: pa.Table) -> None:
    """A new table ``name`` holding ``table``'s rows."""
    with registered(con, table) as view:
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM {view}")


APPEND_ROWS = 1 << 20


def append_rows(con: duckdb.DuckDBPyConnection, table: str, parts: list[pa.Table]) -> None:
    """Append checked shards' rows to their table."""
    with registered(con, pa.concat_tables(parts)) as view:
        con.execute(f"INSERT INTO {table} SELECT * FROM {view}")


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, table: pa.Table):
    """An Arrow table as a view of the connection while the block runs."""
    con.register("arrow_in", table)
    try:
        yield "arrow_in"
    finally:
        con.unregister("arrow_in")


def connect(path: str | os.PathLike = DEFAULT_PATH) -> duckdb.DuckDBPyConnection:
    """Open the warehouse read-only, without access to any other file (many readers may query
    while nothing writes; no query can read, write or attach files or load extensions)."""
    path = Path(path)
    if not path.exists():
        raise CardlabError(
            f"{path}: no warehouse yet (looked for it in {Path.cwd()}); run `snakemake --cores all` in the "
            "project directory first, or name another warehouse with --db PATH or CARDLAB_DB=PATH"
        )
    if not path.is_file():
        raise CardlabError(f"{path}: cannot open the warehouse (not a file); rebuild it with `snakemake --cores all`")
    try:
        con = duckdb.connect(str(path), read_only=True, config={"enable_external_access": False})
        con.execute("SET lock_configuration = true")
        return con
    except duckdb.Error as exc:
        raise CardlabError(
            f"{path}: cannot open the warehouse ({squeeze(str(exc))}); "
            "rebuild it with `snakemake --cores all --forcerun warehouse`"
        ) from None
