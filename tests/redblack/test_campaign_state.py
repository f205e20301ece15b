"""`cardlab redblack campaign`: a size's finished shards, the config windows they make, the shards left."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from wfhelp import ROOT

from engines.cli import main as cardlab
from engines.core.errors import CardlabError
from engines.core.layout import ShardPlace, log_path, place_path, timing_of
from engines.core.ledger import ledger_root
from engines.interface import views_sql
from engines.pipeline.bookkeeping.records import timing_of_log as read_timing
from engines.redblack import canonical_deals
from engines.redblack.campaign.state import campaign_state
from engines.redblack.kinds.search import block_sizes
from engines.redblack.tables import SEARCH_TABLES
from engines.registry import engine

RESULTS = ROOT / "results"
K, D = 22, 5_000_000_000  # the k = 22 campaign's grid
KEPT = (1, 208, 209, 210)  # shards the repository keeps: the first meets the published cycle, 208 the new one


def owner_blocks() -> list[dict]:
    blocks = yaml.safe_load((ROOT / "config.yaml").read_text())["redblack"]["exhaustive"]
    return [b for b in blocks if b.get("method") == "owner"]


def planned_windows(k: int) -> list[tuple[int, int]]:
    """The rank windows the default config plans for size k (a campaign block: its ledger's shards), merged."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    with ledger_root(str(RESULTS)):
        specs = engine("redblack").plan(config["redblack"])
    out: list[list[int]] = []
    for a, b in sorted(
        s["range"] for s in specs if s["kind"] == "exhaustive" and s["k"] == k and s["method"] == "owner"
    ):
        if out and out[-1][1] == a:
            out[-1][1] = b
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def test_the_kept_shards_make_exactly_the_configs_windows():
    """The windows the command prints for each kept owner-rule size are what the default config plans
    (a campaign's through its ledger): every kept shard is planned, and nothing else of those sizes."""
    for block in owner_blocks():
        for k in block_sizes(block, "config.yaml"):
            state = campaign_state(k, "owner", RESULTS, timing=read_timing)
            assert state.windows == planned_windows(k), k
            # a size in one shard does not tell the grid: any deals_per_shard that large plans it
            assert state.per_shard in (block["deals_per_shard"], None)
            assert not state.unfinished


def copy_shard(dst: Path, n: int, tables=SEARCH_TABLES, log: bool = True) -> None:
    exp, var = f"exhaustive_k{K}", "owner"
    for table in tables:
        src = place_path(ShardPlace("redblack", table, exp, var, n), str(RESULTS))
        out = Path(place_path(ShardPlace("redblack", table, exp, var, n), str(dst)))
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, out)
    if log:  # its job's timing record
        out = Path(timing_of(log_path("redblack", exp, var, n, str(dst))))
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(timing_of(log_path("redblack", exp, var, n, str(RESULTS))), out)


@pytest.fixture
def results(tmp_path) -> Path:
    for n in KEPT:
        copy_shard(tmp_path, n)
    return tmp_path


def test_windows_gaps_and_cost_of_some_finished_shards(results):
    state = campaign_state(K, "owner", results, timing=read_timing)
    total = canonical_deals(K)
    assert state.per_shard == D
    assert state.windows == [(D, 2 * D), (208 * D, total)]
    assert state.covered == D + total - 208 * D
    assert state.gaps == [(0, D), (2 * D, 208 * D)]
    assert state.shards_left() == [(0, 0), (2, 207)]
    logs = [read_timing(log_path("redblack", f"exhaustive_k{K}", "owner", n, str(results)))["cpu_s"] for n in KEPT]
    assert state.timed == 4 and state.cpu_hours == pytest.approx(sum(logs) / 3600)


def test_a_shard_without_its_timing_record_is_searched_but_untimed(results):
    Path(timing_of(log_path("redblack", f"exhaustive_k{K}", "owner", 209, str(results)))).unlink()
    state = campaign_state(K, "owner", results, timing=read_timing)
    assert len(state.shards) == 4 and state.timed == 3


def test_a_shard_missing_a_table_is_not_finished(results):
    Path(place_path(ShardPlace("redblack", "redblack_hist", f"exhaustive_k{K}", "owner", 209), str(results))).unlink()
    state = campaign_state(K, "owner", results, timing=read_timing)
    assert state.unfinished == ["shard 209 lacks redblack_hist"]
    assert state.windows == [(D, 2 * D), (208 * D, 209 * D), (210 * D, canonical_deals(K))]
    assert (209, 209) in state.shards_left()


@pytest.mark.parametrize("table", SEARCH_TABLES)
def test_a_damaged_table_is_named(results, table):
    path = Path(place_path(ShardPlace("redblack", table, f"exhaustive_k{K}", "owner", 208), str(results)))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CardlabError, match=f"{table}/exhaustive_k22/owner/shard=0208.parquet"):
        campaign_state(K, "owner", results)


def test_a_shard_off_the_grid_is_named(results):
    for table in SEARCH_TABLES:  # shard 209's files filed as shard 300: its ranks are not shard 300's
        src = Path(place_path(ShardPlace("redblack", table, f"exhaustive_k{K}", "owner", 209), str(results)))
        src.rename(src.with_name("shard=0300.parquet"))
    with pytest.raises(CardlabError, match="shard 300 covers deals .* off the grid"):
        campaign_state(K, "owner", results)


def test_the_command_prints_the_windows_and_refuses_bad_input(results, capsys, tmp_path):
    assert cardlab(["redblack", "campaign", str(K), "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert f"windows searched: [[{D}, {2 * D}], [{208 * D}, {canonical_deals(K)}]]" in out
    assert "config.yaml's k = 22 block is not a campaign block" in out  # it plans every rank of k = 22
    assert "shards 0, 2..207 (207 shards)" in out
    assert "4 shards finished" in out and "4 on " in out
    assert cardlab(["redblack", "campaign", "23", "--results", str(results)]) == 0
    assert "no finished shard" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        cardlab(["redblack", "campaign", "27", "--results", str(results)])
    assert refused.value.code == 2
    assert capsys.readouterr().err == "error: cardlab redblack campaign: argument k: 1..26 cards per player, not 27\n"
    assert cardlab(["redblack", "campaign", "22", "--results", str(tmp_path / "nowhere")]) == 1
    assert "no such results directory" in capsys.readouterr().err


def test_keep_records_the_finished_shards_in_the_ledger(results, capsys):
    """Shards computed elsewhere and copied in: --keep records every finished, checked one; again, none new."""
    from engines.core.ledger import read_ledger
    from engines.redblack.kinds.search import ledger_grid

    assert cardlab(["redblack", "campaign", str(K), "--results", str(results)]) == 0
    assert f"ledger {results}" not in capsys.readouterr().out  # a block of its own ranks, and no ledger
    assert cardlab(["redblack", "campaign", str(K), "--results", str(results), "--keep"]) == 0
    out = capsys.readouterr().out
    assert f"k = {K}: 4 shards newly kept in the ledger" in out
    assert "keeps 4 shards (1, 208..210) of 5,000,000,000 deals" in out
    ledger = read_ledger("redblack", f"exhaustive_k{K}", "owner", ledger_grid(K), str(results))
    assert (ledger.per_shard, set(ledger)) == (D, set(KEPT))
    assert cardlab(["redblack", "campaign", str(K), "--results", str(results), "--keep"]) == 0
    assert f"k = {K}: 0 shards newly kept" in capsys.readouterr().out


def fake_warehouse(results: Path, searched_then: int) -> Path:
    """A warehouse holding just what the cost to finish reads (engines/redblack/report/cost.py): the
    size's coverage, four cost windows in the ranks left on one kind of CPU (100..400 ns a deal), and
    none checked by a campaign: the windows alone."""
    import duckdb

    db = results / "warehouse.duckdb"
    with duckdb.connect(str(db)) as con:
        for stmt in views_sql(engine("redblack")):
            if stmt.startswith("CREATE MACRO student_t95"):
                con.execute(stmt)
        con.execute(
            "CREATE TABLE redblack_coverage AS SELECT ? AS k, ?::BIGINT AS canonical_deals, ?::HUGEINT AS ranks_searched,"
            " 0::HUGEINT AS window_only_ranks, false AS complete, ?::HUGEINT AS deals_left",
            [K, canonical_deals(K), searched_then, canonical_deals(K) - searched_then],
        )
        con.execute(
            "CREATE TABLE redblack_cost_windows AS SELECT ? AS k, i AS draw, i * 1000 AS range_start, "
            "i * 1000 + 1000 AS range_stop, i * 1e-7 AS cpu_s_per_deal, 'Test CPU' AS machine, "
            "false AS campaign_searched FROM range(1, 5) t(i)",
            [K],
        )
        con.execute(
            "CREATE TABLE redblack_campaign_shards (k INT, range_start HUGEINT, range_stop HUGEINT, deals HUGEINT, "
            "cpu_s DOUBLE, machine VARCHAR)"
        )
    return db


def test_the_command_prices_the_rest_as_the_report_does(results, capsys):
    """The report's figure, from the same function on the same warehouse; built when only shards
    208..210 were kept, with shard 1 finished since: 207/208 of it (a rate per deal times the deals left)."""
    import duckdb

    from engines.redblack.report.cost import cost_line, costs_to_finish

    db = fake_warehouse(results, canonical_deals(K) - 207 * D)  # built with these 4 shards
    with duckdb.connect(str(db), read_only=True) as con:
        (cost,) = costs_to_finish(con)[K]
    assert cost.hours == pytest.approx(207 * D * 250e-9 / 3600)  # the four windows' mean, 250 ns a deal
    assert cardlab(["redblack", "campaign", str(K), "--results", str(results)]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        f"  cost to finish, one figure per kind of machine, a GPU its own (the report's; {db}):",
        f"    {cost_line(cost)}",
    ]
    db.unlink()
    db = fake_warehouse(results, canonical_deals(K) - 208 * D)
    assert cardlab(["redblack", "campaign", str(K), "--results", str(results)]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        f"  cost to finish, one figure per kind of machine, a GPU its own (the report's; {db}, built when 1,040,000,000,000 deals "
        "were left: `snakemake --cores all` remeasures):",
        f"    {cost_line(cost)}",
    ]


def test_a_warehouse_that_cannot_be_read_costs_only_the_cost_line(results, capsys):
    (results / "warehouse.duckdb").write_bytes(b"not a database" * 100)
    assert cardlab(["redblack", "campaign", str(K), "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "shards 0, 2..207 (207 shards)" in out and "cost to finish" not in out
