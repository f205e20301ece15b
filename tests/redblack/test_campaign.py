"""Campaigns: rank windows on a fixed shard grid, slices that add up to the whole, large shard
numbers, the owner method in the config, the audit of a published list, and kept results."""

from __future__ import annotations

import re
import shutil

import pytest
from wfhelp import ROOT, snakemake, workdir

from engines.cli import main as cardlab
from engines.core.errors import CardlabError
from engines.core.layout import shard_path
from engines.pipeline.planning.plan import validate_config
from engines.redblack import basin, canonical_deals, play, unrank_deal
from engines.redblack.audit import LISTED_FINITE, LISTED_INFINITE, MISSING, audit, read_deal_list
from engines.registry import engine

RB = engine("redblack")


def exhaustive(section):
    return [s for s in RB.plan(section) if s["kind"] == "exhaustive"]


def test_windows_sit_on_one_shard_grid_and_add_up_to_the_whole():
    total = canonical_deals(9)
    whole = exhaustive({"exhaustive": {"k": [9], "method": "owner", "deals_per_shard": 1000}, "basins": False})
    first = exhaustive(
        {"exhaustive": {"k": [9], "method": "owner", "deals_per_shard": 1000, "ranks": [0, 12000]}, "basins": False}
    )
    rest = exhaustive(
        {"exhaustive": {"k": [9], "method": "owner", "deals_per_shard": 1000, "ranks": [12000, total]}, "basins": False}
    )
    assert first + rest == whole  # same shard numbers, ranges and paths
    assert [s["range"] for s in whole][-1][1] == total and all(s["variant"] == "owner" for s in whole)


def test_a_list_of_windows_plans_their_shards_in_rank_order():
    """A campaign kept at both ends of its ranks (k = 21: shards 0..2 and the top) plans both in one block."""
    total = canonical_deals(9)
    block = {"k": [9], "method": "owner", "deals_per_shard": 1000, "basins": False}
    whole = exhaustive({"exhaustive": block, "basins": False})
    both = exhaustive({"exhaustive": {**block, "ranks": [[20000, total], [0, 3000]]}, "basins": False})
    assert both == whole[:3] + whole[20:]
    one = exhaustive({"exhaustive": {**block, "ranks": [[0, 3000]]}, "basins": False})
    assert one == exhaustive({"exhaustive": {**block, "ranks": [0, 3000]}, "basins": False}) == whole[:3]


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            {"k": [9], "ranks": [[0, 3000], [2000, 5000]], "deals_per_shard": 1000},
            r"\[0, 3000\) and \[2000, 5000\) overlap",
        ),
        ({"k": [9], "ranks": [[0, 3000], [4000, 4500]], "deals_per_shard": 1000}, "shard boundary"),
        ({"k": [9], "ranks": [[0, 3000, 5]], "deals_per_shard": 1000}, "is too long"),
        ({"k": [9], "ranks": [5, 2000], "deals_per_shard": 1000}, "shard boundary"),
        ({"k": [9], "ranks": [0, 10**9], "deals_per_shard": 1000}, "non-empty window"),
        ({"k": [8, 9], "ranks": [0, 1000], "deals_per_shard": 1000}, "exactly one size"),
        ({"k": [26], "deals_per_shard": 1000}, "raise deals_per_shard"),
    ],
)
def test_bad_windows_are_named(block, message):
    with pytest.raises(CardlabError, match=message):
        validate_config({"redblack": {"exhaustive": block, "basins": False}})


def test_the_same_size_and_method_twice_is_refused():
    blocks = [{"k": [9], "method": "owner"}, {"k_min": 8, "k_max": 10, "method": "owner"}]
    with pytest.raises(CardlabError, match="already planned"):
        validate_config({"redblack": {"exhaustive": blocks}})


def test_ten_thousand_shards_and_more_are_planned(tmp_path):
    """Shard numbers past 9999 (shard=10000) are ordinary paths for Snakemake."""
    config = """
redblack:
  exhaustive: {k: [26], method: owner, deals_per_shard: 100, ranks: [1000000, 1000200]}
  basins: false
"""
    out = snakemake(workdir(tmp_path / "wd", config), "-n", "--cores", "1", "--quiet", "host").stdout  # job blocks
    assert "shard=10000.parquet" in out and "shard=10001.parquet" in out
    assert re.search(r"^redblack_shard_exhaustive_owner_\w+_batch1\s+1$", out, re.M), out  # two small shards, one job


def search_output(capsys, *args) -> tuple[list[str], str]:
    assert cardlab(["redblack", "search", *args, "--jobs", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    return [ln for ln in out if re.fullmatch(r"[01]+ [01]+", ln)], out[-1]


@pytest.mark.parametrize("method", ["owner", "brute"])
def test_rank_slices_run_separately_union_to_the_full_run(capsys, method):
    total = canonical_deals(6)
    full, _ = search_output(capsys, "6", "--method", method)
    union = set()
    for a, b in ((0, 100), (100, 300), (300, total)):
        part, counts = search_output(capsys, "6", "--method", method, "--ranks", f"{a}:{b}")
        assert f"[{a:,}, {b:,})" in counts
        union |= set(part)
    assert sorted(union) == full and len(full) == 21  # k = 6: 21 infinite canonical deals


def test_search_refuses_bad_ranks(capsys):
    assert cardlab(["redblack", "search", "5", "--ranks", "9:3"]) == 1
    assert "--ranks '9:3'" in capsys.readouterr().err


def test_rank_prints_the_search_position(capsys):
    for rank in (0, 17, canonical_deals(5) - 1):
        p1, p2 = unrank_deal(5, rank)
        assert cardlab(["redblack", "rank", p1, p2]) == 0
        assert capsys.readouterr().out.strip() == str(rank)


# ----------------------------------------------------------------------------- audit


def test_audit_names_finite_listed_and_missing_deals(tmp_path):
    """A k = 6 list that lacks one infinite deal and claims a finite one."""
    _, truth = search_output_direct(6)
    listed = truth[1:] + [("000111", "000111")]
    assert play("000111", "000111").finished
    path = tmp_path / "list.txt"
    path.write_text("# a claimed list\n\n" + "\n".join(f"{a} {b}  # deal" for a, b in listed) + "\n")
    rows = audit(read_deal_list(path))
    status = {(r.p1, r.p2): r.status for r in rows}
    assert status[truth[0]] == MISSING and status["000111", "000111"] == LISTED_FINITE
    assert sum(s == LISTED_INFINITE for s in status.values()) == len(truth) - 1
    for r in rows:  # every infinite deal the audit names really cycles, into the named cycle
        if r.status != LISTED_FINITE:
            assert play(r.p1, r.p2).cycle_id == r.cycle_id


def search_output_direct(k: int):
    from engines.redblack import search

    res = search(k, method="brute")
    return res, sorted((d["p1"], d["p2"]) for d in res.infinite)


def test_audit_csv_and_bad_lists(tmp_path, capsys):
    path = tmp_path / "list.txt"
    path.write_text("000101 111001\n")
    assert cardlab(["redblack", "audit", str(path), "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "k,p1,p2,status" and "6,000101,111001,listed-infinite" in lines
    in_basin = len(basin(play("000101", "111001").cycle_id).deals)
    assert sum(ln.endswith(",missing") for ln in lines) == in_basin - 1 > 0  # the rest of its cycle's basin
    for text, message in (("0101 12\n", "list.txt:1:"), ("010\n", "two decks"), ("# nothing\n", "no deals")):
        path.write_text(text)
        assert cardlab(["redblack", "audit", str(path)]) == 1
        assert message in capsys.readouterr().err


def test_the_published_list_is_in_the_repository_and_its_audit_finds_full_deck_deals():
    deals = read_deal_list(ROOT / "workflow/data/redblack/published_infinite.txt")
    assert len(deals) == 257
    full = [d for d in deals if len(d[0]) == 26]
    rows = [r for r in audit(full) if r.k == 26]
    assert all(r.status == LISTED_INFINITE for r in rows[: len(full)])
    assert sum(r.status == MISSING for r in rows) > 0  # the basins of the published cycles hold more


# ----------------------------------------------------------------------------- kept campaign results

KEPT = ROOT / "results" / "redblack"


def kept_blocks() -> list[dict]:
    """The default config's owner-rule exhaustive blocks: campaigns whose results the repository keeps."""
    import yaml

    blocks = yaml.safe_load((ROOT / "config.yaml").read_text())["redblack"]["exhaustive"]
    return [b for b in blocks if b.get("method") == "owner"]


def test_kept_campaign_results_are_accepted_and_not_recomputed(tmp_path):
    """Every shard of the default config's owner-rule blocks (k = 16..21 whole, the k = 26 window and any
    campaign in progress) is committed; copied into a fresh directory with those blocks, all are taken
    as they are: nothing to recompute, and the warehouse loads them with the right coverage: a size
    planned whole is complete, one planned in windows is searched exactly in them."""
    blocks = kept_blocks()
    section = {"exhaustive": blocks, "basins": False}
    specs = exhaustive(section)
    assert {s["k"] for s in specs} >= {16, 17, 18, 19, 20, 21, 26}
    windowed = {k for b in blocks if "ranks" in b or b.get("campaign") for k in b["k"]}  # a campaign: its ledger's
    assert 26 in windowed and not windowed & {16, 17, 18, 19, 20, 21}
    wd = workdir(tmp_path / "wd", yaml_dump({"redblack": section}))
    for spec in specs:
        for table in RB.kind_of(spec).tables:
            src = ROOT / shard_path("redblack", table, spec)
            assert src.is_file(), f"{src} is planned by the default config but not kept"
            dst = wd / shard_path("redblack", table, spec)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    # a campaign block plans the shards its ledger keeps: the ledgers are kept with the shards
    shutil.copytree(ROOT / "results/ledger", wd / "results/ledger")
    dry = snakemake(wd, "-n", "--cores", "1").stdout
    assert not re.search(r"^redblack_shard(_batch\d+)?\s+\d+$", dry, re.M), dry
    snakemake(wd, "--cores", "1", "warehouse")
    import duckdb

    con = duckdb.connect(str(wd / "results/warehouse.duckdb"), read_only=True)
    try:
        rows = dict(con.execute("SELECT k, complete FROM redblack_coverage").fetchall())
        searched = dict(con.execute("SELECT k, sum(deals) FROM redblack_counts GROUP BY k").fetchall())
    finally:
        con.close()
    assert all(rows[k] for k in {s["k"] for s in specs} - windowed)
    for k in windowed:  # complete exactly when its windows or ledger cover every rank (k = 23 does)
        planned = sum(s["range"][1] - s["range"][0] for s in specs if s["k"] == k)
        if not planned:  # a campaign whose ledger keeps nothing yet (k = 24)
            assert k not in rows
            continue
        assert searched[k] == planned and rows[k] == (planned == canonical_deals(k))


def yaml_dump(data: dict) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False)


def test_owner_samples_measure_the_cost_per_deal_of_a_whole_size():
    """Uniformly drawn deals under the owner rule cost what an owner search of the whole size
    costs per deal: at k = 12 the sample's rounds per deal match the complete search's."""
    from engines.redblack import search
    from engines.redblack.sample import owner_sample_range

    whole = search(12, method="owner")
    sample = owner_sample_range(12, 99, 0, 40_000)
    assert sample.stopped + sample.finite + len(sample.infinite) == sample.deals
    assert abs(sample.rounds / sample.deals - whole.rounds / whole.deals) < 0.05 * whole.rounds / whole.deals


def test_owner_samples_need_balanced_deals():
    bad = {"experiments": [{"name": "o", "k": 10, "deals": 5, "seed": 1, "balanced": False, "method": "owner"}]}
    with pytest.raises(CardlabError, match="needs balanced deals"):
        validate_config({"redblack": bad})
