"""Cycles cardlab's campaigns found that the published record (HenriAW/RedBlack) does not know, each
replayed here from its deal by the kernel and the plain-Python reference, and read back from the kept
shard that found it."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from wfhelp import ROOT

import engines.redblack as rb
from engines.core.layout import shard_path

PUBLISHED = ROOT / "workflow/data/redblack/published_infinite.txt"

# k = 22, found by the k = 22 campaign's shard 208 (ranks [1.040e12, 1.045e12))
NEW = [
    {
        "p1": "0000011101000011001100",
        "p2": "1101011001001010111111",
        "rank": 1_044_449_437_455,
        "shard": 208,
        "cycle_id": "0101000101/0011100101001100100101011111101010",
        "period": 31,
        "rounds_before_cycle": 4,
    }
]


def published(k: int) -> list[tuple[str, str]]:
    lines = (line.split() for line in PUBLISHED.read_text().splitlines() if line.strip() and not line.startswith("#"))
    return [(p1, p2) for p1, p2 in lines if len(p1) == k]


@pytest.mark.parametrize("deal", NEW, ids=lambda d: f"k{len(d['p1'])}")
def test_a_new_cycle_replays_from_its_deal_and_no_published_deal_reaches_it(deal):
    p1, p2, k = deal["p1"], deal["p2"], len(deal["p1"])
    for play in (rb.play, rb.play_reference):
        out = play(p1, p2)
        assert not out.finished
        assert (out.cycle_id, out.period, out.rounds) == (deal["cycle_id"], deal["period"], deal["rounds_before_cycle"])
    assert rb.rank_deal(p1, p2) == deal["rank"]
    listed = published(k)
    assert listed and (p1, p2) not in listed
    assert deal["cycle_id"] not in {rb.play(a, b).cycle_id for a, b in listed}
    # the kept shard that found it reports it, with the same certificate
    spec = {"experiment": f"exhaustive_k{k}", "variant": "owner", "shard": deal["shard"]}
    rows = pq.read_table(ROOT / shard_path("redblack", "redblack_found", spec)).to_pylist()
    assert [(r["p1"], r["p2"], r["cycle_id"], r["period"]) for r in rows] == [
        (p1, p2, deal["cycle_id"], deal["period"])
    ]
