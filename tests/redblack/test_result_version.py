"""RedBlack search shards carry an explicit result version (SEARCH_RESULT_VERSION), not a source hash,
so that a finished campaign survives refactors.  This test pins what search shards compute: if it
fails, results changed, so bump SEARCH_RESULT_VERSION (finished campaigns are then recomputed)
and update GOLDEN below."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from engines.core.progress import Progress
from engines.interface import result_version, source_version
from engines.redblack.engine import SEARCH_RESULT_VERSION
from engines.registry import engine

SECTION = {
    "exhaustive": [
        {"k_min": 1, "k_max": 9, "method": "brute", "deals_per_shard": 5000},
        {"k_min": 10, "k_max": 11, "method": "owner", "deals_per_shard": 100000},
    ],
    "basins": False,
    "experiments": [
        {"name": "s26", "k": 26, "deals": 400, "shards": 2, "seed": 7},
        {"name": "o26", "k": 26, "deals": 300, "shards": 1, "seed": 8, "method": "owner"},
    ],
}

GOLDEN = {"version": "redblack-search-2", "digest": "f291d7265bbf56afb335392a17385411a1fd573fdf73a5ac59e3250b95455493"}


def search_digest() -> str:
    eng = engine("redblack")
    h = hashlib.sha256()
    for spec in eng.plan(SECTION):
        tables = eng.kind_of(spec).compute(spec, Progress(1, "deals", enabled=False), [])
        for name in sorted(tables):
            cols = {c: (v.tolist() if isinstance(v, np.ndarray) else list(v)) for c, v in tables[name].items()}
            h.update(json.dumps([spec, name, cols], sort_keys=True, default=int).encode())
    return h.hexdigest()


def test_search_results_match_their_version():
    digest = search_digest()
    assert (SEARCH_RESULT_VERSION, digest) == (GOLDEN["version"], GOLDEN["digest"]), (
        "RedBlack search results changed: bump SEARCH_RESULT_VERSION in engines/redblack/kinds/search.py and set "
        f"GOLDEN = {{'version': <new version>, 'digest': {digest!r}}} here"
    )


def test_search_shards_carry_the_explicit_version_and_basins_the_source_hash():
    eng = engine("redblack")
    plan = eng.plan({**SECTION, "basins": True})
    assert {result_version(eng, s) for s in plan if s["kind"] != "basin"} == {SEARCH_RESULT_VERSION}
    assert result_version(eng, plan[-1]) == source_version(eng) != SEARCH_RESULT_VERSION


def test_cost_windows_carry_the_source_hash():
    """Their CPU time is what they measure: a kernel edit must re-time them, not keep the old times."""
    eng = engine("redblack")
    plan = eng.plan({**SECTION, "cost_windows": [{"k": 20, "windows": 2, "window": 1000, "seed": 1}]})
    windows = [s for s in plan if s["kind"] == "cost_window"]
    assert windows and {result_version(eng, s) for s in windows} == {source_version(eng)}
    assert source_version(eng) != SEARCH_RESULT_VERSION
