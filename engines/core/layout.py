"""The results layout: every path rule of a results tree, in one place.

A shard's table lives at ``results/<game>/<table>/<experiment>/<variant>/shard=NNNN.parquet``
and its job log at ``results/logs/<game>/<experiment>/<variant>/shard=NNNN.log``.  Shard
numbers are written ``:04d`` (files sort in shard order) and reach at most
:data:`MAX_SHARD`, so a name has four to six digits and no leading zero beyond four.
The format (:func:`shard_name`), the Snakemake wildcard (:data:`WILDCARDS`) and the
parsers (:func:`parse_shard_path`, :func:`parse_log_path`) follow that one rule;
``tests/test_layout.py`` round-trips it.  A temporary file of an atomic write of ``path`` is
``.<name>.<tag>.tmp`` beside it (a DuckDB build adds its ``.wal``): never a result.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

RESULTS = "results"
MAX_SHARD = 10**6 - 1
# 0000..9999, then 10000..999999 with no leading zero: exactly what f"{n:04d}" writes for 0 <= n <= MAX_SHARD
SHARD_NUMBER = r"(?:\d{4}|[1-9]\d{4,5})"
# Path parts the config names (experiment names are also checked by engines.pipeline.planning.config)
EXPERIMENT = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
VARIANT = r"[A-Za-z0-9][A-Za-z0-9_.=+-]*"
# The Snakefile's wildcard_constraints
WILDCARDS = {"experiment": EXPERIMENT, "variant": VARIANT, "shard": SHARD_NUMBER}
SHARD_FILE = re.compile(rf"(?:^|/)([^/]+)/([^/]+)/([^/]+)/([^/]+)/shard=({SHARD_NUMBER})\.parquet$")
# a shard job's log, relative to the logs folder (logs_dir): <game>/<experiment>/<variant>/shard=NNNN.log
LOG_FILE = re.compile(rf"([^/]+)/([^/]+)/([^/]+)/shard=({SHARD_NUMBER})\.log")
WAREHOUSE_NAME = "warehouse.duckdb"


def warehouse_path(root: str = RESULTS) -> str:
    """The catalog users query, in a results tree."""
    return f"{root}/{WAREHOUSE_NAME}"


WAREHOUSE = warehouse_path()


def default_db() -> str:
    """The warehouse the querying commands read (``cardlab sql``, ``cardlab report``, the cut-card command's
    kept curve): ``$CARDLAB_DB``, else the project's own."""
    return os.environ.get("CARDLAB_DB") or WAREHOUSE


# The warehouse rule's declared output: Snakemake deletes a job's outputs before it runs and
# when it fails, so it declares this small record of the build, never the catalog itself.
MANIFEST_SUFFIX = ".manifest.json"
# Held by the process that runs a campaign here (engines/pipeline/bookkeeping/runstate.py; read by cardlab status)
RUN_LOCK = ".snakemake/cardlab-run.lock"
TEMP_SUFFIX = ".tmp"
TEMP_SUFFIXES = (TEMP_SUFFIX, TEMP_SUFFIX + ".wal")  # a temporary DuckDB catalog has a WAL beside it


class ShardPlace(NamedTuple):
    """What a shard file's path names."""

    game: str
    table: str
    experiment: str
    variant: str
    shard: int


def shard_name(shard: int) -> str:
    """The file-name part of a shard, zero-padded so files sort in shard order."""
    shard = int(shard)
    if not 0 <= shard <= MAX_SHARD:
        raise ValueError(f"shard number {shard} is outside 0..{MAX_SHARD:,}")
    return f"shard={shard:04d}"


def shard_path(game: str, table: str, spec: dict, root: str = RESULTS) -> str:
    """Where a shard's table lives: results/<game>/<table>/<experiment>/<variant>/shard=NNNN.parquet."""
    return place_path(ShardPlace(game, table, spec["experiment"], spec["variant"], int(spec["shard"])), root)


def place_path(place: ShardPlace, root: str = RESULTS) -> str:
    return f"{root}/{place.game}/{place.table}/{place.experiment}/{place.variant}/{shard_name(place.shard)}.parquet"


def shard_pattern(game: str, table: str, root: str = RESULTS) -> str:
    """A shard's path as a Snakemake output pattern with wildcards."""
    return f"{root}/{game}/{table}/{{experiment}}/{{variant}}/shard={{shard}}.parquet"


def logs_dir(root: str | os.PathLike = RESULTS) -> str:
    """Where every job's log lives: shard jobs' under <game>/, the warehouse's and reports' beside them."""
    return f"{root}/logs"


def report_inputs_path(game: str, root: str | os.PathLike = RESULTS) -> str:
    """The list of what a game's report reads (workflow/rules/reports.smk): rewritten when that changes."""
    return f"{logs_dir(root)}/reports/{game}.inputs"


def log_pattern(game: str, root: str = RESULTS) -> str:
    """A shard job's log as a Snakemake log pattern with wildcards."""
    return f"{logs_dir(root)}/{game}/{{experiment}}/{{variant}}/shard={{shard}}.log"


def log_path(game: str, experiment: str, variant: str, shard: int, root: str = RESULTS) -> str:
    """A shard job's log: results/logs/<game>/<experiment>/<variant>/shard=NNNN.log."""
    return f"{logs_dir(root)}/{game}/{experiment}/{variant}/{shard_name(shard)}.log"


class LogPlace(NamedTuple):
    """What a shard job's log path names."""

    game: str
    experiment: str
    variant: str
    shard: int


def parse_log_path(path: str | os.PathLike, root: str | os.PathLike = RESULTS) -> LogPlace | None:
    """The shard a job log's path names (:func:`log_path` read back), or None for another log
    under ``root``'s logs (the warehouse's, a report's).  ValueError for a path outside them."""
    rel = Path(path).relative_to(logs_dir(root)).as_posix()
    m = LOG_FILE.fullmatch(rel)
    return LogPlace(*m.groups()[:3], int(m.group(4))) if m else None


def shards_present(game: str, table: str, experiment: str, variant: str, root: str = RESULTS) -> list[int]:
    """The shard numbers of one place whose file of ``table`` is under ``root``, in order."""
    folder = Path(place_path(ShardPlace(game, table, experiment, variant, 0), root)).parent
    return sorted(parsed[1].shard for f in folder.glob("shard=*.parquet") if (parsed := parse_shard_path(f)))


def parse_shard_path(path: str | os.PathLike) -> tuple[str, ShardPlace] | None:
    """(results root, place) a path names if it is laid out as a shard file, else None.

    The game is not checked here (the layout knows no registry): callers compare it."""
    text = str(path).replace(os.sep, "/")
    m = SHARD_FILE.search(text)
    if not m:
        return None
    root = text[: m.start()] or ("/" if text.startswith("/") else ".")
    return root, ShardPlace(*m.groups()[:4], int(m.group(5)))


def log_of_shard_file(path: str | os.PathLike) -> str | None:
    """The job log beside a shard file's results tree, or None."""
    parsed = parse_shard_path(path)
    if parsed is None:
        return None
    root, p = parsed
    return log_path(p.game, p.experiment, p.variant, p.shard, root)


def timings_dir(root: str | os.PathLike = RESULTS) -> str:
    """Where every job's timing record lives (engines/pipeline/bookkeeping/records.py), laid out as the logs are."""
    return f"{root}/timings"


def timing_of(log: str | os.PathLike) -> str:
    """A job's timing record for its log: ``<root>/logs/X.log`` -> ``<root>/timings/X.json`` (a shard's,
    or a step's such as ``logs/warehouse.log``); beside any other log (a scratch job's), ``<log>.json``."""
    text = Path(log).as_posix()
    start = 0
    while (at := text.find("logs/", start)) >= 0:
        rest = text[at + len("logs/") :]
        if (
            (at == 0 or text[at - 1] == "/")
            and rest.endswith(".log")
            and (LOG_FILE.fullmatch(rest) or rest.count("/") <= 1)
        ):
            return f"{text[:at]}timings/{rest.removesuffix('.log')}.json"
        start = at + 1
    return f"{text}.json"


def timing_of_shard_file(path: str | os.PathLike) -> str | None:
    """The timing record of the job that wrote a shard file, or None for a path not laid out as one."""
    log = log_of_shard_file(path)
    return None if log is None else timing_of(log)


def ledger_path(game: str, experiment: str, variant: str, root: str = RESULTS) -> str:
    """A campaign's ledger of kept shards (engines/core/ledger.py): results/ledger/<game>/<experiment>/<variant>.json."""
    return f"{root}/ledger/{game}/{experiment}/{variant}.json"


def check_record_path(game: str, experiment: str, variant: str, root: str = RESULTS) -> str:
    """A kept campaign's record of independent recomputations (engines/pipeline/trust/recompute.py):
    results/checks/<game>/<experiment>/<variant>.jsonl."""
    return f"{root}/checks/{game}/{experiment}/{variant}.jsonl"


def check_record_files(root: str | os.PathLike = RESULTS) -> list[str]:
    """Every kept campaign's check record under a results tree."""
    return sorted(str(p) for p in Path(root).glob("checks/*/*/*.jsonl"))


def measurement_path(game: str, name: str, root: str = RESULTS) -> str:
    """A kept measurement of a device (a bench run on a lent GPU, say): results/measurements/<game>/<name>.json."""
    return f"{root}/measurements/{game}/{name}.json"


def measurement_files(root: str | os.PathLike = RESULTS) -> list[str]:
    """Every kept measurement under a results tree."""
    return sorted(str(p) for p in Path(root).glob("measurements/*/*.json"))


def manifest_of(catalog: str | os.PathLike) -> str:
    """results/warehouse.duckdb -> results/warehouse.manifest.json."""
    return str(catalog).removesuffix(".duckdb") + MANIFEST_SUFFIX


def catalog_of(manifest: str | os.PathLike) -> str:
    """The catalog a warehouse manifest describes: results/warehouse.manifest.json -> results/warehouse.duckdb."""
    name = str(manifest)
    if not name.endswith(MANIFEST_SUFFIX):
        return name
    return name[: -len(MANIFEST_SUFFIX)] + ".duckdb"


def temp_path(path: str | os.PathLike, tag: str | int) -> Path:
    """The temporary a writer tagged ``tag`` uses for ``path`` (renamed to ``path`` when complete)."""
    path = Path(path)
    return path.with_name(f"{temp_prefix(path)}{tag}{TEMP_SUFFIX}")


def temp_prefix(path: str | os.PathLike) -> str:
    return f".{Path(path).name}."


def is_temp(path: str | os.PathLike) -> bool:
    """A temporary of an interrupted write (any cardlab output), never read as a result."""
    name = Path(path).name
    return name.startswith(".") and name.endswith(TEMP_SUFFIXES)


def temp_files(path: str | os.PathLike) -> list[Path]:
    """Temporaries of writes of ``path`` (e.g. left by a killed job), WAL files included."""
    path = Path(path)
    if not path.parent.is_dir():
        return []
    return sorted(p for p in path.parent.glob(f"{temp_prefix(path)}*{TEMP_SUFFIX}*") if p.name.endswith(TEMP_SUFFIXES))


def remove_temp_files(path: str | os.PathLike) -> list[Path]:
    """Delete the temporaries of earlier writes of ``path``; Snakemake runs one job per output."""
    found = temp_files(path)
    for tmp in found:
        tmp.unlink(missing_ok=True)
    return found
