"""`cardlab verify --recompute`: a shard written with the project's own writer, every hash right, but one
number wrong passes plain `verify`; recomputing it from its recorded spec catches it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from engines.core.layout import WAREHOUSE, check_record_path, manifest_of
from engines.core.store import HASH_KEY, read_verified, write_parquet
from engines.pipeline.catalog.warehouse import build
from engines.pipeline.compute.jobs import run_shard
from engines.pipeline.planning.plan import load_plan
from engines.pipeline.trust.recompute import cmd_recompute
from engines.pipeline.trust.verify import verify

TINY = """
narcotic:
  experiments:
    - {name: seed, rules: seed, games: 300, shards: 2, seed: 11}
redblack:
  exhaustive: {k_min: 1, k_max: 5, deals_per_shard: 100, method: owner}
  experiments:
    - {name: sample, k: 8, deals: 200, shards: 1, seed: 3, balanced: true}
blackjack:
  exact: {decks: [1], soft17: [stand], peek: ["no"]}
  experiments:
    - {name: fresh1, shoe: fresh, decks: 1, hands_per_upcard: 300, shards: 1, seed: 4}
"""


def build_tree() -> None:
    """Every planned shard computed as its job would, and the warehouse over them (here, in the cwd)."""
    plan = load_plan("config.yaml")
    for s in plan:
        run_shard(s.game, dict(s.spec), s.files, inputs=plan.input_files(s), log=s.log)
    build(list(plan.files), WAREHOUSE, plan=plan.files, manifest=manifest_of(WAREHOUSE))


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text(TINY)
    build_tree()
    return tmp_path


def recompute(*what: str, record: bool = False) -> int:
    args = argparse.Namespace(
        recompute=list(what), seed=0, cores=1, max_cpu_s=None, no_record=not record, results="results"
    )
    return cmd_recompute(args, load_plan("config.yaml"))


def forge(path: str) -> str:
    """Rewrite a shard file with the project's writer, one number changed: every hash is right."""
    meta, table = read_verified(path)
    ints = [i for i, f in enumerate(table.schema) if pa.types.is_integer(f.type) and f.name not in ("shard", "k")]
    i = ints[-1]
    values = table.column(i).to_pylist()
    values[0] += 1
    forged = table.set_column(i, table.schema.field(i), pa.array(values, table.schema.field(i).type))
    write_parquet(path, forged, {k: v for k, v in meta.items() if k != HASH_KEY}, schema=table.schema)
    return table.schema.field(i).name


def test_an_untouched_build_matches_when_every_shard_is_recomputed(tree, capsys):
    assert verify().ok
    assert recompute("all") == 0
    out = capsys.readouterr().out
    plan = load_plan("config.yaml")
    assert out.count("matched: ") == sum(1 for _ in plan), out
    assert "MISMATCH" not in out


@pytest.mark.parametrize("game", ["narcotic", "redblack", "blackjack"])
def test_a_forged_shard_passes_plain_verify_and_is_named_by_recompute(tree, capsys, game):
    plan = load_plan("config.yaml")
    shard = next(s for s in plan if s.game == game and s.kind.name in ("sim", "exhaustive"))
    path = next(p for p in shard.files.values() if read_verified(p)[1].num_rows)  # a table with rows to change
    column = forge(path)
    build(list(plan.files), WAREHOUSE, plan=plan.files, manifest=manifest_of(WAREHOUSE))
    assert verify().ok, "the forged file is well formed: plain verify cannot tell"
    capsys.readouterr()
    assert recompute(path) == 1
    out = capsys.readouterr().out
    assert f"MISMATCH: {game} " in out and path in out and repr(column) in out, out
    assert f"fix: cardlab recompute {path}" in out
    # a draw of every shard finds it too, and nothing else
    assert recompute("all") == 1
    assert capsys.readouterr().out.count("MISMATCH") == 1


def test_a_kept_campaign_shard_check_is_recorded_and_a_plain_shard_is_not(tree, capsys):
    plan = load_plan("config.yaml")
    kept = next(s for s in plan if s.game == "redblack" and s.kind.result_version is not None)
    plain = next(s for s in plan if s.game == "narcotic")
    assert recompute(next(iter(kept.files.values())), next(iter(plain.files.values())), record=True) == 0
    lines = Path(check_record_path("redblack", kept.experiment, kept.variant)).read_text().splitlines()
    assert [json.loads(x)["shard"] for x in lines] == [kept.shard]
    assert json.loads(lines[0])["matched"] is True and json.loads(lines[0])["machine"]
    # bound to the bytes it checked: each file's data hash, and its recomputation's
    hashes = {t: read_verified(p)[0][HASH_KEY] for t, p in kept.files.items()}
    assert json.loads(lines[0])["files"] == hashes and set(json.loads(lines[0])["recomputed"]) == set(hashes)
    assert not Path("results/checks/narcotic").exists()
    # the warehouse says, for each kept campaign, how much of it was checked and that it matched
    build(list(plan.files), WAREHOUSE, plan=plan.files, manifest=manifest_of(WAREHOUSE))
    con = duckdb.connect(WAREHOUSE, read_only=True)
    rows = con.execute(
        "SELECT experiment, shards_kept, shards_checked, mismatches FROM campaign_checks WHERE game = 'redblack'"
    ).fetchall()
    con.close()
    kept_sizes = {s.experiment for s in plan if s.game == "redblack" and s.kind.result_version is not None}
    assert {r[0] for r in rows} == kept_sizes
    assert [r[1:] for r in rows if r[0] == kept.experiment] == [
        (sum(1 for s in plan if s.experiment == kept.experiment), 1, 0)
    ]
    assert all(r[2] == 0 for r in rows if r[0] != kept.experiment)


def test_a_draw_is_seeded_and_bounded_by_the_cpu_budget(tree, capsys):
    assert recompute("3") == 0
    first = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("matched")]
    assert recompute("3") == 0
    assert [ln.split(" (")[0] for ln in capsys.readouterr().out.splitlines() if ln.startswith("matched")] == [
        ln.split(" (")[0] for ln in first
    ]
    # no budget at all: every shard's log gives it a cost, so none is recomputed, and that is said
    args = argparse.Namespace(recompute=["all"], seed=0, cores=1, max_cpu_s=0.0, no_record=True, results="results")
    assert cmd_recompute(args, load_plan("config.yaml")) == 1
    out = capsys.readouterr().out
    assert f"{sum(1 for _ in load_plan('config.yaml'))} shard(s) left out by --max-cpu-s" in out, out


def test_a_kept_shard_forged_after_its_check_fails_plain_verify_and_counts_for_nothing(tree, capsys):
    plan = load_plan("config.yaml")
    kept = next(s for s in plan if s.game == "redblack" and s.kind.result_version is not None)
    path = next(p for p in kept.files.values() if read_verified(p)[1].num_rows)
    assert recompute(path, record=True) == 0
    forge(path)
    build(list(plan.files), WAREHOUSE, plan=plan.files, manifest=manifest_of(WAREHOUSE))
    report = verify()
    record = check_record_path("redblack", kept.experiment, kept.variant)
    assert [(k, m.split(": stale: ")[0]) for k, m in report.problems] == [("check record", f"{record}:1")]
    con = duckdb.connect(WAREHOUSE, read_only=True)
    row = con.execute(
        "SELECT shards_checked, shards_matched, stale FROM campaign_checks WHERE experiment = ?", [kept.experiment]
    ).fetchone()
    con.close()
    assert row == (0, 0, 1)
