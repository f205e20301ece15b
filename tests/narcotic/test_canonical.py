"""Canonical Narcotic decks (engines/narcotic/canonical.py) and their shards (kind ``canonical``).

A renaming of values never changes a game (checked here for every rule combination, game by game),
so the canonical enumeration (one deck per r! renamings, counts weighted by r!) must give the plain
enumeration's counts exactly: at r <= 3 for every rule combination, at r = 4 for the seed rules
(against the kept plain shard), and on windows of r = 5 against the plain play of the same orderings.

Also pins what a canonical shard computes: if test_canonical_results_match_their_version fails,
results changed, so bump CANONICAL_RESULT_VERSION in engines/narcotic/kinds/exhaustive.py (kept results are then
recomputed) and update GOLDEN below."""

from __future__ import annotations

import json
import re
from math import factorial
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_tally_version import shards_digest

from engines.core.errors import CardlabError
from engines.core.ledger import ledger_root, record_kept
from engines.core.progress import Progress
from engines.interface import result_version, views_sql
from engines.narcotic.canonical import (
    MAX_CANONICAL_RANKS,
    canonical_count,
    canonical_decks,
    canonicalise,
    next_canonical,
    rank_canonical,
    renamings,
    unrank_canonical,
)
from engines.narcotic.exact import COUNTS, add_counts, ranked_sequences, sequence_count
from engines.narcotic.kernel import play, shuffled_decks
from engines.narcotic.kinds.exhaustive import CANONICAL_RESULT_VERSION, EXACT_RESULT_VERSION, ledger_grid
from engines.narcotic.reference import play_reference
from engines.narcotic.rules import Rules, all_rules
from engines.pipeline.planning.plan import Plan, validate_config
from engines.registry import engine

NARCOTIC = engine("narcotic")
QUIET = Progress(1, "decks", enabled=False)
ROOT = Path(__file__).resolve().parents[2]
OUTCOME = ("won", "passes", "time_s", "cycle_start", "cycle_length")
SEED = Rules("deal", "top-right", "keep")


def rows(section: dict, kind: str | None = None) -> list[dict]:
    """The exhaustive and canonical shards a section plans, each run: one counts row a shard."""
    out = []
    for spec in NARCOTIC.plan(section):
        if spec["kind"] in ("exhaustive", "canonical") and kind in (None, spec["kind"]):
            table = NARCOTIC.kind_of(spec).compute(spec, QUIET, [])["narcotic_exhaustive"]
            out.append({c: v[0] for c, v in table.items()})
    return out


def totals(shard_rows: list[dict]) -> dict[tuple[str, str], dict[str, int]]:
    """(experiment, variant) -> the counts added up over its shards."""
    out: dict[tuple[str, str], dict[str, int]] = {}
    for r in shard_rows:
        agg = out.setdefault((r["experiment"], r["variant"]), dict.fromkeys(COUNTS, 0))
        for c in COUNTS:
            agg[c] += r[c]
    return out


# ----------------------------------------------------------------------------- the enumeration


@pytest.mark.parametrize("r", range(1, MAX_CANONICAL_RANKS + 1))
def test_the_count_is_the_formula(r):
    assert canonical_count(r) == factorial(4 * r) // (factorial(4) ** r * factorial(r))
    assert canonical_count(r) * factorial(r) == sequence_count(r)
    assert [canonical_count(k) for k in (4, 5)] == [2_627_625, 2_546_168_625]
    n = canonical_count(r)
    assert n < 2**63
    last = canonical_decks(r, n - 1, n)[0]  # the last deck: 1..r, then the rest descending
    assert rank_canonical(last, r) == n - 1 and not next_canonical(last.copy(), r)


@pytest.mark.parametrize("r", (1, 2, 3, 4))
def test_enumerating_every_deck_counts_the_formula(r):
    """Stepping from rank 0 to the end visits exactly canonical_count(r) decks, each canonical, in order."""
    decks = canonical_decks(r, 0, canonical_count(r))
    assert np.array_equal(canonicalise(decks), decks)
    keys = np.ascontiguousarray(decks).view(f"S{4 * r}").ravel()  # values 1..r: no zero byte to strip
    assert (keys[1:] > keys[:-1]).all()  # strictly increasing: each deck once, in lexicographic order
    if r <= 3:  # exactly the plain sequences that are canonical, in the plain (lexicographic) order
        plain = ranked_sequences(r, 0, sequence_count(r))
        assert np.array_equal(plain[(canonicalise(plain) == plain).all(axis=1)], decks)
    a = decks.copy()
    assert not next_canonical(a[-1], r)


@pytest.mark.parametrize("r", (4, 5, 6))
def test_unranking_anywhere_continues_the_enumeration_and_ranks_invert_it(r):
    n = canonical_count(r)
    whole = canonical_decks(r, 0, 3000)
    for start in (1, 999, 2500):
        assert np.array_equal(canonical_decks(r, start, 3000), whole[start:])
    for start in (0, n // 7, n // 2, n - 2000):
        decks = canonical_decks(r, start, start + 2000)
        assert [rank_canonical(d, r) for d in decks[::97]] == list(range(start, start + 2000, 97))
        out = np.zeros(4 * r, dtype=np.uint8)
        unrank_canonical(np.int64(start + 1234), r, out)
        assert np.array_equal(out, decks[1234])
        keys = [bytes(d) for d in decks]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_renamings_are_the_r_factorial_sequences_of_a_deck():
    deck = canonical_decks(5, 123_456_789, 123_456_790)[0]
    ren = renamings(deck, 5)
    assert ren.shape == (120, 20) and len(np.unique(ren, axis=0)) == 120
    assert (canonicalise(ren) == deck).all()


# ----------------------------------------------------------------------------- the invariance


@pytest.mark.parametrize("rules", all_rules(3), ids=lambda r: r.variant)
def test_a_renaming_changes_no_game(rules):
    """Every sequence of r = 2 and 3, played as it is and as its canonical deck: the same game, field by field."""
    for r in (2, 3):
        rules_r = Rules(rules.matching, rules.gather, rules.pile_four, r)
        plain = ranked_sequences(r, 0, sequence_count(r))
        a, b = play(plain, rules_r), play(canonicalise(plain), rules_r)
        assert all(np.array_equal(a[k], b[k]) for k in OUTCOME)


@pytest.mark.parametrize("rules", all_rules(), ids=lambda r: r.variant)
def test_random_renamings_change_no_game_kernel_and_reference(rules):
    """Random decks of 5 and 13 values, renamed by random permutations: the kernel's games are the
    same, and so are the plain-Python reference's (the rules' direct reading)."""
    rng = np.random.default_rng(51)
    for r in (5, 13):
        rules_r = Rules(rules.matching, rules.gather, rules.pile_four, r)
        decks = shuffled_decks(np.uint64(51), 0, 300, r)
        base = play(decks, rules_r)
        for _ in range(2):
            renamed = (rng.permutation(r) + 1).astype(np.uint8)[decks.astype(np.int64) - 1]
            got = play(renamed, rules_r)
            assert all(np.array_equal(base[k], got[k]) for k in OUTCOME)
        for deck in decks[:4]:
            perm = rng.permutation(r) + 1
            d = [int(x) for x in deck]
            assert play_reference(d, rules_r) == play_reference([int(perm[x - 1]) for x in d], rules_r)


# ----------------------------------------------------------------------------- the shards


def test_canonical_shards_equal_the_plain_enumeration_for_every_rule_combination():
    """r = 1, 2, 3 under all sixteen combinations: the canonical shards' counts (on a grid of several
    shards) are the plain enumeration's, every count."""
    section = {
        "exhaustive": [
            {"ranks": [1, 2, 3], "rules": "all"},
            {"ranks": [1, 2, 3], "rules": "all", "canonical": True, "decks_per_shard": 2000},
        ]
    }
    validate_config({"narcotic": section})
    got = totals(rows(section))
    variants = [r.variant for k in (1, 2, 3) for r in all_rules(k)]
    assert sorted(got) == sorted((e, v) for e in ("canonical", "exhaustive") for v in variants)
    for v in variants:
        assert got["canonical", v] == got["exhaustive", v], v


def kept_plain_r4() -> dict:
    path = ROOT / "results/narcotic/narcotic_exhaustive/exhaustive/deal.top-right.keep.r4/shard=0000.parquet"
    (row,) = pq.read_table(path).to_pylist()
    return row


def test_canonical_r4_equals_the_kept_plain_enumeration():
    """The seed rules at r = 4: 2,627,625 canonical decks give the counts of the kept plain shard's
    63,063,000 sequences (computed one by one under EXACT_RESULT_VERSION)."""
    plain = kept_plain_r4()
    assert (plain["range_start"], plain["range_stop"]) == (0, sequence_count(4))
    (row,) = rows({"exhaustive": {"ranks": [4], "rules": "seed", "canonical": True}})
    assert (row["range_start"], row["range_stop"], row["space"]) == (0, 2_627_625, 63_063_000)
    assert {c: row[c] for c in COUNTS} == {c: plain[c] for c in COUNTS}


@pytest.mark.slow
def test_canonical_r4_equals_the_plain_enumeration_recomputed():
    """The same, the plain enumeration computed again here (about 4 CPU-minutes)."""
    section = {"exhaustive": [{"ranks": [4], "rules": "seed"}, {"ranks": [4], "rules": "seed", "canonical": True}]}
    got = totals(rows(section))
    assert got["canonical", "deal.top-right.keep.r4"] == got["exhaustive", "deal.top-right.keep.r4"]


@pytest.mark.parametrize("start", (0, 999_999_900, 2_546_168_400))
def test_a_canonical_r5_window_equals_the_plain_play_of_its_orderings(start):
    """A window of canonical ranks of r = 5 (seed rules, and cascade/bottom-left/discard): its shard row
    equals the plain play of every ordering its decks stand for (300 decks, 36,000 sequences; the last
    window 225 decks, up to the last one)."""
    stop = min(start + 300, canonical_count(5))
    for rules in (Rules("deal", "top-right", "keep", 5), Rules("cascade", "bottom-left", "discard", 5)):
        kind = NARCOTIC.kind_of({"kind": "canonical"})
        spec = kind.spec(rules, 0, start, stop)  # a shard of that window (whatever grid it lies on)
        row = {c: v[0] for c, v in kind.compute(spec, QUIET, [])["narcotic_exhaustive"].items()}
        orderings = np.concatenate([renamings(d, 5) for d in canonical_decks(5, start, stop)])
        assert len(np.unique(orderings, axis=0)) == (stop - start) * 120
        sums = dict.fromkeys(COUNTS, 0)
        add_counts(sums, play(orderings, rules))
        assert {c: row[c] for c in COUNTS} == sums
        assert (row["range_start"], row["range_stop"], row["sequences"]) == (start, stop, (stop - start) * 120)


# ----------------------------------------------------------------------------- planning


@pytest.mark.parametrize(
    "block, message",
    [
        ({"ranks": [3], "canonical": True, "sequences_per_shard": 10}, "decks_per_shard, not sequences_per_shard"),
        ({"ranks": [3], "decks_per_shard": 10}, "only a canonical block (canonical: true) takes it"),
        ({"ranks": [3], "campaign": True}, "only a canonical block (canonical: true) takes it"),
        ({"ranks": [3], "canonical": True, "decks_per_shard": 1000, "window": [500, 2000]}, "shard boundary"),
        ({"ranks": [3], "canonical": True, "window": [0, 6000]}, "inside [0, 5775) for r=3"),
        ({"ranks": [5], "canonical": True, "decks_per_shard": 10**5}, "would plan 25,462 shards"),
    ],
)
def test_bad_canonical_blocks_are_refused(block, message):
    with pytest.raises(CardlabError, match=re.escape(message)):
        NARCOTIC.plan({"exhaustive": block})


def test_the_canonical_experiment_name_is_reserved():
    exp = {"name": "canonical", "rules": "seed", "games": 10, "shards": 1, "seed": 1}
    with pytest.raises(CardlabError, match="'canonical' is reserved"):
        NARCOTIC.plan({"experiments": [exp], "exhaustive": {"ranks": [2], "canonical": True}})


def test_a_canonical_block_plans_its_grid_and_a_plain_block_of_the_same_rules_beside_it():
    section = {
        "exhaustive": [
            {"ranks": [4], "rules": "seed"},
            {"ranks": [4, 5], "rules": "seed", "canonical": True},
        ]
    }
    validate_config({"narcotic": section})
    specs = NARCOTIC.plan(section)
    assert [(s["kind"], s["variant"], s["range"]) for s in specs][:3] == [
        ("exhaustive", "deal.top-right.keep.r4", [0, 63_063_000]),
        ("canonical", "deal.top-right.keep.r4", [0, 2_627_625]),
        ("canonical", "deal.top-right.keep.r5", [0, 500_000_000]),
    ]
    r5 = [s for s in specs if s["variant"].endswith("r5")]
    assert len(r5) == 6 and r5[-1]["range"] == [2_500_000_000, 2_546_168_625]
    assert {result_version(NARCOTIC, s) for s in specs} == {EXACT_RESULT_VERSION, CANONICAL_RESULT_VERSION}
    assert {s["experiment"] for s in specs} == {"exhaustive", "canonical"}


def test_a_campaign_block_plans_exactly_its_ledgers_shards(tmp_path):
    block = {"ranks": [5], "rules": "seed", "canonical": True, "campaign": True, "decks_per_shard": 250_000_000}
    Plan.build({"narcotic": {"exhaustive": [block]}}, results=str(tmp_path))  # valid (the repository's
    with ledger_root(str(tmp_path)):  # own r = 5 ledger keeps another grid: not read here)
        assert NARCOTIC.plan({"exhaustive": [block]}) == []
        grid = ledger_grid(Rules(ranks=5), canonical_count(5))
        record_kept("narcotic", "canonical", "deal.top-right.keep.r5", 250_000_000, [3, 10], grid, root=str(tmp_path))
        specs = NARCOTIC.plan({"exhaustive": [block]})
        assert [(s["shard"], s["range"]) for s in specs] == [
            (3, [750_000_000, 1_000_000_000]),
            (10, [2_500_000_000, 2_546_168_625]),
        ]
        with pytest.raises(CardlabError, match="a campaign keeps one shard size"):
            NARCOTIC.plan({"exhaustive": [{**block, "decks_per_shard": 10**9}]})


# ----------------------------------------------------------------------------- the warehouse


def test_the_view_keeps_one_enumeration_a_variant_and_checks_they_agree():
    section = {
        "exhaustive": [
            {"ranks": [2, 3], "rules": "seed"},
            {"ranks": [2, 3], "rules": "seed", "canonical": True, "decks_per_shard": 1000},
            {"ranks": [3], "rules": "classic", "canonical": True, "decks_per_shard": 1000, "window": [0, 2000]},
        ]
    }
    shard_rows = rows(section)
    con = duckdb.connect()
    for name, table in NARCOTIC.warehouse_tables().items():
        con.register(name, table)
    con.register("narcotic_exhaustive", pa.Table.from_pylist(shard_rows, schema=NARCOTIC.tables["narcotic_exhaustive"]))
    for stmt in views_sql(NARCOTIC):
        if stmt.startswith(("CREATE VIEW narcotic_exact", "CREATE VIEW narcotic_exact_agreement")):
            con.execute(stmt)
    got = con.execute(
        "SELECT variant, enumeration, decks, sequences, space, coverage, complete FROM narcotic_exact ORDER BY ALL"
    ).fetchall()
    assert got == [
        ("cascade.top-right.keep.r3", "canonical", 2000, 12_000, 34_650, pytest.approx(2000 / 5775), False),
        ("deal.top-right.keep.r2", "canonical", 35, 70, 70, 1.0, True),
        ("deal.top-right.keep.r3", "canonical", 5775, 34_650, 34_650, 1.0, True),
    ]
    agree = con.execute("SELECT variant, plain_decks, canonical_decks, agree FROM narcotic_exact_agreement").fetchall()
    assert agree == [("deal.top-right.keep.r2", 70, 35, True), ("deal.top-right.keep.r3", 34_650, 5775, True)]


SECTION = {
    "exhaustive": [
        {"ranks": [1, 2, 3], "rules": "seed", "canonical": True, "decks_per_shard": 2000},
        {"ranks": [3], "matching": "cascade", "gather": "bottom-left", "pile_four": "discard", "canonical": True},
        {"ranks": [5], "rules": "classic", "canonical": True, "window": [0, 20_000], "decks_per_shard": 10_000},
    ]
}

GOLDEN = {
    "version": "narcotic-canonical-1",
    "digest": "d4e931cd2a08b17889d7d9f355dc78569c04c1a4485faf3e4cbd5b90736e351f",
}


def test_canonical_results_match_their_version():
    digest = shards_digest(SECTION)
    assert (CANONICAL_RESULT_VERSION, digest) == (GOLDEN["version"], GOLDEN["digest"]), (
        "Narcotic canonical results changed: bump CANONICAL_RESULT_VERSION in engines/narcotic/kinds/exhaustive.py and set "
        f"GOLDEN = {{'version': <new version>, 'digest': {digest!r}}} here"
    )


def test_the_default_config_enumerates_r4_under_every_rule_combination():
    from engines.pipeline.planning.plan import load_config

    section = load_config(ROOT / "config.yaml")["narcotic"]
    r4 = [s for s in NARCOTIC.plan(section) if s["kind"] == "canonical" and s["ranks"] == 4]
    assert sorted(s["variant"] for s in r4) == sorted(r.variant for r in all_rules(4))
    assert all(s["range"] == [0, 2_627_625] for s in r4)
    assert json.loads(json.dumps(r4))  # plain data
