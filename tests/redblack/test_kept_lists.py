"""Every infinite deal the kept campaigns report (k = 16..23, results/redblack/redblack_found/exhaustive_k*/)
replays to its reported cycle by the kernel and by the plain-Python reference: a certificate, not a
round limit.  And k = 23, complete, has exactly the cycle the published record's one k = 23 deal reaches
(docs/redblack.md, "What is proven": no new cycle at k = 23)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from wfhelp import ROOT

import engines.redblack as rb

PUBLISHED = ROOT / "workflow/data/redblack/published_infinite.txt"


def kept_found(k: int) -> list[dict]:
    files = sorted(
        Path(ROOT / "results/redblack/redblack_found" / f"exhaustive_k{k}" / "owner").glob("shard=*.parquet")
    )
    assert files, f"no kept k = {k} shards"
    return [row for f in files for row in pq.read_table(f).to_pylist()]


@pytest.mark.parametrize("k", range(16, 24))
def test_every_kept_infinite_deal_replays_to_its_cycle(k):
    for row in kept_found(k):
        for play in (rb.play, rb.play_reference):
            out = play(row["p1"], row["p2"])
            assert not out.finished, row
            assert (out.cycle_id, out.period, out.rounds) == (
                row["cycle_id"],
                row["period"],
                row["rounds_before_cycle"],
            )


def test_k23_has_only_the_cycle_the_published_deal_reaches():
    listed = [line.split() for line in PUBLISHED.read_text().splitlines() if line.strip() and not line.startswith("#")]
    published_cycles = {rb.play(p1, p2).cycle_id for p1, p2 in listed if len(p1) == 23}
    assert len(published_cycles) == 1
    assert {row["cycle_id"] for row in kept_found(23)} == published_cycles
