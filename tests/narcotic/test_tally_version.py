"""Narcotic tally shards carry an explicit result version (TALLY_RESULT_VERSION), not a source hash,
so that a kept campaign survives refactors and speed-ups of the kernel.  This test pins what tally
shards compute: if it fails, results changed, so bump TALLY_RESULT_VERSION in
engines/narcotic/kinds/tally.py (kept campaigns are then recomputed) and update GOLDEN below."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from engines.core.progress import Progress
from engines.narcotic.kinds.tally import TALLY_RESULT_VERSION
from engines.registry import engine

SECTION = {
    "campaigns": [
        {"name": "s", "rules": "seed", "games": 3000, "games_per_shard": 1200, "seed": 20260101},
        {"name": "c", "matching": "cascade", "gather": "bottom-left", "games": 150, "games_per_shard": 100, "seed": 5},
    ]
}

GOLDEN = {"version": "narcotic-tally-1", "digest": "9744d5e9e40ba58f1cc938b80b1c57f12ad58ebc54747b6898bc8d2ec6936144"}


def shards_digest(section: dict) -> str:
    """sha256 over every shard a Narcotic section plans: its spec and the columns it computes."""
    eng = engine("narcotic")
    h = hashlib.sha256()
    for spec in eng.plan(section):
        tables = eng.kind_of(spec).compute(spec, Progress(1, "games", enabled=False), [])
        for name in sorted(tables):
            cols = {c: (v.tolist() if isinstance(v, np.ndarray) else list(v)) for c, v in tables[name].items()}
            h.update(json.dumps([spec, name, cols], sort_keys=True, default=int).encode())
    return h.hexdigest()


def test_tally_results_match_their_version():
    digest = shards_digest(SECTION)
    assert (TALLY_RESULT_VERSION, digest) == (GOLDEN["version"], GOLDEN["digest"]), (
        "Narcotic tally results changed: bump TALLY_RESULT_VERSION in engines/narcotic/kinds/tally.py and set "
        f"GOLDEN = {{'version': <new version>, 'digest': {digest!r}}} here"
    )
