"""The record of independent recomputations, judged against the kept files now: which kept campaign
shards were computed twice and matched (``cardlab verify --recompute``, engines/pipeline/trust/recompute.py).

A line of ``results/checks/<game>/<experiment>/<variant>.jsonl`` names a shard and the data hash
(``data_sha256``) of each of its files as checked, so it speaks for those bytes only.
:func:`judge_records` is the one reading of the records (the warehouse, the report through it, and
``cardlab verify`` use it); each line gets a status:

* ``matched`` / ``mismatched``: it describes the shard's kept files as they are now (same hashes,
  same result version), and the recomputation matched them or did not;
* ``stale``: a file's hash or the result version differs now (the file was changed after its
  check, or the line is an old one that records no hashes: *unbound*);
* ``superseded``: stale, but a later line for the same shard describes the files as they are now;
* ``orphan``: the shard has no kept file now, or is not in the campaign's ledger;
* ``invalid``: not JSON, or not a check record (:data:`RECORD_SCHEMA`; ``"false"`` is no boolean), or a
  file that cannot be read (a folder in its place: line 0); left out of every count, named by verify.

Only ``matched`` counts as checked and matched.  Table ``recompute_checks`` holds every line with
its status; table ``kept_campaigns`` the kept campaigns among the loaded shards (a kind with a
pinned result version); view ``campaign_checks`` joins them per campaign.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import pyarrow as pa

from ...core.bookkeeping import CHECK_RECORD, check_lines
from ...core.errors import CardlabError
from ...core.layout import check_record_files
from ...core.ledger import Ledger, read_ledger
from ...core.store import HASH_KEY
from ...registry import engine

RECORD_SCHEMA = CHECK_RECORD
"""A check record line (JSON Schema, engines/core/bookkeeping.py): booleans are JSON booleans, integers are
not booleans, the shard fits the warehouse's column, the CPU seconds are finite, the date exists."""

CURRENT = ("matched", "mismatched")  # a line describing the kept files as they are now


@dataclass(frozen=True)
class Kept:
    """One kept shard as it is now: its files (table -> path, table -> data hash) and result version."""

    paths: Mapping[str, str]
    hashes: Mapping[str, str]
    engine_version: str


def kept_now(metas: Mapping[str, dict]) -> dict[tuple[str, str, str, int], Kept]:
    """The kept campaign shards among files' provenance (path -> record), by (game, experiment, variant, shard)."""
    paths: dict[tuple, dict[str, str]] = defaultdict(dict)
    hashes: dict[tuple, dict[str, str]] = defaultdict(dict)
    versions: dict[tuple, str] = {}
    for path, m in metas.items():
        if engine(m["game"]).kind_of(m.get("spec") or {}).result_version is None:
            continue
        key = (m["game"], m["experiment"], m["variant"], int(m["shard"]))
        paths[key][m["table"]] = str(path)
        hashes[key][m["table"]] = m[HASH_KEY]
        versions[key] = m["engine_version"]
    return {k: Kept(dict(paths[k]), dict(hashes[k]), versions[k]) for k in paths}


@dataclass(frozen=True)
class Judged:
    """One line of a check record and what it says of the kept files now."""

    game: str
    experiment: str
    variant: str
    record_file: str
    line: int
    status: str  # matched, mismatched, stale, superseded, orphan, invalid
    problem: str | None  # why it is not matched (None when matched)
    record: Mapping | None  # the line, when it is a check record
    kept: Kept | None  # the shard's kept files now, when it has some

    @property
    def shard(self) -> int | None:
        return None if self.record is None else int(self.record["shard"])

    @property
    def where(self) -> str:
        """file:line, or the file alone where it cannot be read at all (line 0)."""
        return f"{self.record_file}:{self.line}" if self.line else self.record_file


def place_of_record(path: str) -> tuple[str, str, str]:
    """(game, experiment, variant) a check record file stands for: results/checks/<game>/<experiment>/<variant>.jsonl."""
    p = Path(path)
    return p.parent.parent.name, p.parent.name, p.stem


def ledger_of_place(game: str, experiment: str, variant: str, results: str) -> Ledger | None:
    """The shards a campaign's ledger keeps (None without a readable ledger: the kept files decide)."""
    try:
        ledger = read_ledger(game, experiment, variant, None, root=str(results))
    except CardlabError:
        return None
    return ledger


def status_of(rec: Mapping, kept: Kept | None, ledger: Ledger | None) -> tuple[str, str | None]:
    """(status, problem) of one valid line against its shard's kept files now (superseded comes later)."""
    shard = int(rec["shard"])
    if kept is None:
        return "orphan", f"shard {shard} has no kept file under results/ now"
    if ledger is not None and shard not in ledger:
        return "orphan", f"shard {shard} is not in the campaign's ledger"
    if "files" not in rec:
        return "stale", f"shard {shard}: unbound (the line records no hash of the files it checked)"
    if rec["engine_version"] != kept.engine_version:
        return (
            "stale",
            f"shard {shard}: checked at version {rec['engine_version']}, its files are {kept.engine_version}",
        )
    if dict(rec["files"]) != dict(kept.hashes):
        changed = sorted(t for t in set(rec["files"]) | set(kept.hashes) if rec["files"].get(t) != kept.hashes.get(t))
        return "stale", f"shard {shard}: {', '.join(changed)} changed since its check (data hash differs)"
    if rec["matched"]:
        return "matched", None
    return "mismatched", f"shard {shard}: its recomputation did not match the kept files"


def judge_file(path: str, results: str, kept: Mapping[tuple, Kept]) -> list[Judged]:
    game, experiment, variant = place_of_record(path)
    ledger = ledger_of_place(game, experiment, variant, results)
    out: list[Judged] = []
    for n, rec, problem in check_lines(path):
        if rec is None:
            out.append(Judged(game, experiment, variant, path, n, "invalid", problem, None, None))
            continue
        k = kept.get((game, experiment, variant, int(rec["shard"])))
        status, problem = status_of(rec, k, ledger)
        out.append(Judged(game, experiment, variant, path, n, status, problem, rec, k))
    last: dict[int, int] = {}  # shard -> its last line describing the files as they are now
    for j in out:
        if j.status in CURRENT:
            last[j.shard] = j.line
    return [
        replace(j, status="superseded", problem=f"{j.problem}; superseded by line {last[j.shard]}")
        if j.status == "stale" and last.get(j.shard, 0) > j.line
        else j
        for j in out
    ]


def judge_records(results: str | os.PathLike, kept: Mapping[tuple, Kept]) -> list[Judged]:
    """Every line of every check record under ``results``, judged against ``kept`` (:func:`kept_now`)."""
    return [j for f in check_record_files(results) for j in judge_file(f, str(results), kept)]


CHECK_SCHEMA = pa.schema(
    {
        **dict.fromkeys(("game", "experiment", "variant"), pa.string()),
        "shard": pa.int32(),
        "matched": pa.bool_(),
        **dict.fromkeys(("date", "machine"), pa.string()),
        "cpu_s": pa.float64(),
        "engine_version": pa.string(),
        "files": pa.string(),  # JSON: table -> data_sha256 of the kept file checked
        "recomputed": pa.string(),  # JSON: table -> data_sha256 recomputed
        **dict.fromkeys(("bound_by", "status", "problem", "record_file"), pa.string()),
        "line": pa.int32(),
    }
)


def check_records_table(results: str | os.PathLike, kept: Mapping[tuple, Kept]) -> pa.Table:
    """Every line of the check records under a results tree, one row each, judged against ``kept``."""
    rows = []
    for j in judge_records(results, kept):
        rec = j.record or {}
        hashes = {c: json.dumps(rec[c], sort_keys=True) for c in ("files", "recomputed") if c in rec}
        place = {
            c: getattr(j, c) for c in ("game", "experiment", "variant", "status", "problem", "record_file", "line")
        }
        rows.append({**rec, **hashes, **place})
    return pa.Table.from_pylist(rows, schema=CHECK_SCHEMA)


KEPT_SCHEMA = pa.schema({**dict.fromkeys(("game", "experiment", "variant"), pa.string()), "shards_kept": pa.int32()})


def kept_campaigns_table(metas: dict[str, dict]) -> pa.Table:
    """The kept campaigns among the loaded shards (a kind with a pinned result version) and their sizes."""
    shards: dict[tuple[str, str, str], set[int]] = defaultdict(set)
    for game, experiment, variant, shard in kept_now(metas):
        shards[game, experiment, variant].add(shard)
    rows = [
        {"game": g, "experiment": e, "variant": v, "shards_kept": len(shards[g, e, v])} for g, e, v in sorted(shards)
    ]
    return pa.Table.from_pylist(rows, schema=KEPT_SCHEMA)


CAMPAIGN_CHECKS_VIEW = Path(__file__).with_name("campaign_checks.sql").read_text(encoding="utf-8")
"""View ``campaign_checks``: each kept campaign with how much of it was recomputed independently."""
