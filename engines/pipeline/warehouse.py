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
from pathlib import Path

import duckdb
import pyarrow.parquet as pq

from ..core.errors import CardlabError, squeeze
from ..core.shards import shard_name
from ..core.store import read_meta
from ..registry import GAMES, engine

STORAGE_VERSION = "v1.5.0"
DEFAULT_PATH = "results/warehouse.duckdb"


def check_file(path: str) -> dict:
    """Provenance of one shard file, after checking it is complete, current and of the right schema."""
    try:
        meta = read_meta(path)
    except CardlabError as exc:  # pyarrow's reasons can span lines: keep the message one line
        raise CardlabError(squeeze(str(exc))) from None
    game, table = meta.get("game"), meta.get("table")
    try:
        eng = engine(game)
    except CardlabError:
        raise CardlabError(f"{path}: written by unknown engine {game!r}; remove it from results/") from None
    if table not in eng.tables:
        raise CardlabError(
            f"{path}: table {table!r} is not one the {game} engine writes ({', '.join(eng.tables)}); remove the file"
        )
    current = eng.result_version(meta.get("spec") or {})
    if meta.get("engine_version") != current:
        raise CardlabError(
            f"{path}: stale shard, written by {game} engine {meta.get('engine_version')} but the "
            f"engine is now {current}. Rerun `snakemake --cores all` to recompute it."
        )
    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow.remove_metadata()
        rows = pf.metadata.num_rows
    except Exception as exc:
        raise CardlabError(
            f"{path}: damaged Parquet file ({squeeze(str(exc))}); delete it and rerun the workflow"
        ) from None
    expected = eng.tables[table].remove_metadata()
    if not schema.equals(expected):
        raise CardlabError(
            f"{path}: wrong schema for {table}; expected {expected.names}, "
            f"found {schema.names}. Delete it and rerun the workflow."
        )
    if rows != meta.get("rows"):
        raise CardlabError(
            f"{path}: holds {rows} rows but its provenance says {meta.get('rows')}; delete it and rerun the workflow"
        )
    return meta


def provenance_rows(metas: dict[str, dict]) -> dict[str, list]:
    cols = defaultdict(list)
    for path, m in sorted(metas.items()):
        spec = m.get("spec", {})
        cols["path"].append(path)
        cols["game"].append(m["game"])
        cols["table_name"].append(m["table"])
        cols["experiment"].append(m.get("experiment"))
        cols["variant"].append(m.get("variant"))
        cols["shard"].append(m.get("shard"))
        cols["rows"].append(m.get("rows"))
        cols["engine_version"].append(m["engine_version"])
        cols["root_seed"].append(spec.get("root_seed"))
        cols["seed"].append(str(spec["seed"]) if "seed" in spec else None)
        cols["seed_derivation"].append(spec.get("seed_derivation"))
        cols["work_range"].append(json.dumps(spec.get("range")))
        cols["packages"].append(json.dumps(m.get("packages", {}), sort_keys=True))
        cols["spec"].append(json.dumps(spec, sort_keys=True))
    return dict(cols)


def build(files: Iterable[str], out: str | os.PathLike = DEFAULT_PATH, log=sys.stderr) -> Path:
    """Check every file, then build the catalog into a temporary file and swap it in."""
    import pyarrow as pa

    files = sorted(set(map(str, files)))
    metas = {f: check_file(f) for f in files}
    by_table: dict[str, list[str]] = defaultdict(list)
    for f, m in metas.items():
        by_table[m["table"]].append(f)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    remove_leftover_temps(out)
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{tmp}' AS wh (STORAGE_VERSION '{STORAGE_VERSION}')")
        con.execute("USE wh")
        games_present = set()
        for game in GAMES:
            for table, schema in engine(game).tables.items():
                paths = by_table.get(table, [])
                if paths:
                    games_present.add(game)
                    load_table(con, table, paths)
                else:  # an empty table keeps every view valid when a game is not configured
                    con.register(
                        "empty_arrow", pa.table({n: pa.array([], type=t) for n, t in zip(schema.names, schema.types)})
                    )
                    con.execute(f"CREATE TABLE {table} AS SELECT * FROM empty_arrow")
                    con.unregister("empty_arrow")
                print(f"warehouse: {table}: {len(paths)} file(s)", file=log)
        prov = pa.table(provenance_rows(metas)) if metas else None
        if prov is not None:
            con.register("prov_arrow", prov)
            con.execute("CREATE TABLE provenance AS SELECT * FROM prov_arrow")
            con.unregister("prov_arrow")
        else:
            con.execute(
                "CREATE TABLE provenance (path VARCHAR, game VARCHAR, table_name VARCHAR, "
                "experiment VARCHAR, variant VARCHAR, shard BIGINT, rows BIGINT, "
                "engine_version VARCHAR, root_seed BIGINT, seed VARCHAR, seed_derivation VARCHAR, "
                "work_range VARCHAR, packages VARCHAR, spec VARCHAR)"
            )
        load_arrow(con, "shard_timings", timing_table(metas))
        for game in GAMES:
            for name, extra in engine(game).warehouse_tables().items():
                load_arrow(con, name, extra)
            for stmt in engine(game).views_sql():
                try:
                    con.execute(stmt)
                except duckdb.Error as exc:
                    raise CardlabError(f"engines/{game}/views.sql: {exc}") from None
        con.execute("USE memory")
        con.execute("DETACH wh")
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)
        raise
    con.close()
    os.replace(tmp, out)
    print(f"warehouse: wrote {out} from {len(files)} file(s)", file=log)
    return out


def temp_files(out: str | os.PathLike) -> list[Path]:
    """Temporary catalogs (and their WAL files) of builds of ``out``, e.g. left by a killed build."""
    out = Path(out)
    if not out.parent.is_dir():
        return []
    return sorted(
        p for p in out.parent.glob(f".{out.name}.*.tmp*") if p.name.endswith(".tmp") or p.name.endswith(".tmp.wal")
    )


def remove_leftover_temps(out: str | os.PathLike) -> None:
    """Delete the temporaries of earlier builds: Snakemake runs one warehouse job at a time."""
    for p in temp_files(out):
        p.unlink(missing_ok=True)


TIMING_SCHEMA = {
    "game": "VARCHAR",
    "experiment": "VARCHAR",
    "variant": "VARCHAR",
    "shard": "BIGINT",
    "work": "BIGINT",
    "unit": "VARCHAR",
    "wall_s": "DOUBLE",
    "cpu_s": "DOUBLE",
    "threads": "BIGINT",
}


def timing_table(metas: dict[str, dict]):
    """One row per shard whose job log ends with a timing line (results/logs/<game>/...): measured rates.

    A shard copied in without its log (or computed before timings were logged) has no row."""
    import pyarrow as pa

    from .jobs import read_timing

    rows = {}
    for path, m in metas.items():
        key = (m["game"], m.get("experiment"), m.get("variant"), m.get("shard"))
        if key in rows:
            continue
        root = Path(path).parents[4]  # results/<game>/<table>/<experiment>/<variant>/shard=NNNN.parquet
        log = root / "logs" / key[0] / str(key[1]) / str(key[2]) / f"{shard_name(int(key[3]))}.log"
        rec = read_timing(log)
        if rec is not None:
            rows[key] = rec
    cols = {c: [] for c in TIMING_SCHEMA}
    for (game, experiment, variant, shard), rec in sorted(rows.items()):
        for c, v in (("game", game), ("experiment", experiment), ("variant", variant), ("shard", shard)):
            cols[c].append(v)
        for c in ("work", "unit", "wall_s", "cpu_s", "threads"):
            cols[c].append(rec.get(c))
    types = {"VARCHAR": pa.string(), "BIGINT": pa.int64(), "DOUBLE": pa.float64()}
    return pa.table({c: pa.array(v, type=types[TIMING_SCHEMA[c]]) for c, v in cols.items()})


def load_arrow(con: duckdb.DuckDBPyConnection, name: str, table) -> None:
    con.register("arrow_in", table)
    con.execute(f"CREATE TABLE {name} AS SELECT * FROM arrow_in")
    con.unregister("arrow_in")


def load_table(con: duckdb.DuckDBPyConnection, table: str, paths: list[str]) -> None:
    """Materialise one table from its shard files; a file DuckDB cannot read is named."""
    try:
        con.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet($files)", {"files": paths})
    except duckdb.Error as exc:
        # the footers passed check_file, so a data page is damaged: find the file
        for path in paths:
            try:
                pq.read_table(path)
            except Exception as inner:
                raise CardlabError(
                    f"{path}: damaged Parquet data ({inner.__class__.__name__}: {squeeze(str(inner))}); "
                    "delete it and rerun `snakemake --cores all` to recompute that shard"
                ) from None
        raise CardlabError(f"cannot load table {table} from {len(paths)} file(s): {squeeze(str(exc))}") from None


def connect(path: str | os.PathLike = DEFAULT_PATH) -> duckdb.DuckDBPyConnection:
    """Open the warehouse read-only (many readers may query while nothing writes)."""
    path = Path(path)
    if not path.exists():
        raise CardlabError(f"{path}: no warehouse yet; run `snakemake --cores all` first")
    try:
        return duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise CardlabError(
            f"{path}: cannot open the warehouse ({exc}); rebuild it with `snakemake --cores all --forcerun warehouse`"
        ) from None


def warehouse_from_snakemake(smk) -> None:
    """The warehouse step of workflow/scripts/step.py."""
    with open(smk.log[0], "w") if len(smk.log) else sys.stderr as log:
        build([str(f) for f in smk.input], smk.output[0], log=log)
