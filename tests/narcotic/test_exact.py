"""Exhaustive Narcotic shards: shards tile the sequences, windows add up, counts are exact, the view's fractions.

Also pins what an exhaustive shard computes: if test_exact_results_match_their_version fails, results
changed, so bump EXACT_RESULT_VERSION in engines/narcotic/kinds/exhaustive.py (kept results are then recomputed)
and update GOLDEN below."""

from __future__ import annotations

import re
from fractions import Fraction

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from test_small_decks import RUBY
from test_tally_version import shards_digest

from engines.core.errors import CardlabError
from engines.core.progress import Progress
from engines.interface import views_sql
from engines.narcotic.exact import ranked_sequences, sequence_count
from engines.narcotic.kinds.exhaustive import EXACT_RESULT_VERSION
from engines.pipeline.planning.plan import validate_config
from engines.registry import engine

NARCOTIC = engine("narcotic")
QUIET = Progress(1, "sequences", enabled=False)


def run(section: dict) -> list[dict]:
    """The exhaustive shards a section plans, each run: one counts row per shard."""
    rows = []
    for spec in NARCOTIC.plan(section):
        if spec["kind"] == "exhaustive":
            table = NARCOTIC.kind_of(spec).compute(spec, QUIET, [])["narcotic_exhaustive"]
            rows.append({c: v[0] for c, v in table.items()})
    return rows


def test_sequence_counts():
    assert [sequence_count(r) for r in (1, 2, 3, 4, 5)] == [1, 70, 34_650, 63_063_000, 305_540_235_000]


def test_unranking_anywhere_continues_the_enumeration():
    whole = ranked_sequences(4, 0, 3000)
    for start in (0, 1, 999, 2500):
        assert np.array_equal(ranked_sequences(4, start, 3000), whole[start:])
    last = ranked_sequences(4, sequence_count(4) - 1, sequence_count(4))[0].tolist()
    assert last == sorted(last, reverse=True)  # the largest sequence in lexicographic order


def test_shards_tile_the_sequences_and_windows_add_up():
    whole = run({"exhaustive": {"ranks": [3], "rules": "seed"}})
    assert len(whole) == 1 and whole[0]["range_start"] == 0 and whole[0]["range_stop"] == 34_650
    per_shard = {"ranks": [3], "rules": "seed", "sequences_per_shard": 10_000}
    parts = run({"exhaustive": per_shard})
    assert [(p["range_start"], p["range_stop"]) for p in parts] == [
        (0, 10_000),
        (10_000, 20_000),
        (20_000, 30_000),
        (30_000, 34_650),
    ]
    # two windows run apart are the same shards as the whole grid
    low = run({"exhaustive": {**per_shard, "window": [0, 20_000]}})
    high = run({"exhaustive": {**per_shard, "window": [20_000, 34_650]}})
    assert low + high == parts
    # a list of windows plans each one's shards, in rank order
    listed = {"exhaustive": {**per_shard, "window": [[30_000, 34_650], [0, 10_000]]}}
    validate_config({"narcotic": listed})  # the schema takes a list too
    assert run(listed) == parts[:1] + parts[3:]
    for c in ("sequences", "won", "looped", "won_time_s", "time_s", "passes", "won_passes"):
        assert sum(p[c] for p in parts) == whole[0][c], c


@pytest.mark.parametrize("r", (1, 2, 3))
def test_seed_rules_counts_equal_the_seed_ruby(r):
    (row,) = run({"exhaustive": {"ranks": [r], "rules": "seed"}})
    ruby = RUBY[r]
    assert row["sequences"] == row["space"] == len(ruby)
    assert row["won"] == sum(1 for _, looped in ruby if not looped)
    assert row["looped"] == sum(1 for _, looped in ruby if looped)
    assert row["won_time_s"] == sum(t for t, looped in ruby if not looped)
    assert row["time_s"] == sum(t for t, _ in ruby)


@pytest.mark.parametrize(
    "section, message",
    [
        ({"ranks": [3], "sequences_per_shard": 1000, "window": [500, 2000]}, "must start on a shard boundary"),
        ({"ranks": [3], "window": [0, 40_000]}, "is not a non-empty window inside [0, 34650) for r=3"),
        ({"ranks": [2, 3], "window": [0, 10]}, "a window of ranks needs exactly one deck size"),
        ({"ranks": [5], "sequences_per_shard": 1000}, "needs shard numbers up to 305,540,234"),
        ({"ranks": [5], "sequences_per_shard": 10**6}, "would plan 305,541 shards"),
        (
            [{"ranks": [2], "rules": "seed"}, {"ranks": [2, 3], "rules": "all"}],
            "already enumerated by narcotic.exhaustive[0]",
        ),
    ],
)
def test_bad_exhaustive_blocks_are_refused(section, message):
    with pytest.raises(CardlabError, match=re.escape(message)):
        NARCOTIC.plan({"exhaustive": section})


def test_the_exhaustive_experiment_name_is_reserved():
    exp = {"name": "exhaustive", "rules": "seed", "games": 10, "shards": 1, "seed": 1}
    with pytest.raises(CardlabError, match="'exhaustive' is reserved"):
        NARCOTIC.plan({"experiments": [exp], "exhaustive": {"ranks": [2]}})


def test_the_view_gives_exact_reduced_fractions():
    """narcotic_exact over shards of r = 2 and 3 (seed rules): the fractions are the counts reduced,
    the decimals their values, coverage and completeness follow the shards."""
    rows = run(
        {
            "exhaustive": [
                {"ranks": [2], "rules": "seed"},
                {"ranks": [3], "rules": "seed", "sequences_per_shard": 20_000},
            ]
        }
    )
    part = [r for r in rows if not (r["ranks"] == 3 and r["range_start"] == 20_000)]  # r = 3 with a gap
    con = duckdb.connect()
    for name, table in NARCOTIC.warehouse_tables().items():
        con.register(name, table)
    schema = NARCOTIC.tables["narcotic_exhaustive"]
    for label, shard_rows in (("all", rows), ("part", part)):
        con.register("narcotic_exhaustive", pa.Table.from_pylist(shard_rows, schema=schema))
        for stmt in views_sql(NARCOTIC):
            if stmt.startswith(("CREATE VIEW narcotic_exact_enumerations AS", "CREATE VIEW narcotic_exact AS")):
                con.execute(stmt.replace("CREATE VIEW", "CREATE OR REPLACE VIEW"))
        got = {
            r[0]: r[1:]
            for r in con.execute(
                "SELECT ranks, win_fraction, win_p, mean_time_fraction, mean_time_s, coverage, complete, preset "
                "FROM narcotic_exact"
            ).fetchall()
        }
        for r in (2, 3):
            mine = [x for x in shard_rows if x["ranks"] == r]
            won, seqs = sum(x["won"] for x in mine), sum(x["sequences"] for x in mine)
            p, t = Fraction(won, seqs), Fraction(sum(x["won_time_s"] for x in mine), won)
            fraction, decimal, t_fraction, t_decimal, coverage, complete, preset = got[r]
            assert fraction == f"{p.numerator}/{p.denominator}" and decimal == pytest.approx(float(p), rel=1e-15)
            assert t_fraction == f"{t.numerator}/{t.denominator}" and t_decimal == pytest.approx(float(t), rel=1e-15)
            assert coverage == pytest.approx(seqs / sequence_count(r)) and preset == "seed"
            assert complete == (label == "all" or r == 2)
        con.unregister("narcotic_exhaustive")


SECTION = {
    "exhaustive": [
        {"ranks": [1, 2, 3], "rules": "seed", "sequences_per_shard": 12_000},
        {"ranks": [3], "matching": "cascade", "gather": "bottom-left", "pile_four": "discard"},
        {"ranks": [4], "rules": "classic", "window": [0, 20_000], "sequences_per_shard": 10_000},
    ]
}

GOLDEN = {"version": "narcotic-exact-1", "digest": "5bf3d1aa81fac08dd4954cdc5917f5dffdc7d31035e5f87b7ae177334881b904"}


def test_exact_results_match_their_version():
    digest = shards_digest(SECTION)
    assert (EXACT_RESULT_VERSION, digest) == (GOLDEN["version"], GOLDEN["digest"]), (
        "Narcotic exhaustive results changed: bump EXACT_RESULT_VERSION in engines/narcotic/kinds/exhaustive.py and set "
        f"GOLDEN = {{'version': <new version>, 'digest': {digest!r}}} here"
    )
