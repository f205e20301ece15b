"""End to end: the Snakefile on a tiny config in a temporary directory, then the warehouse."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest
from conftest import TINY, env_of
from wfhelp import snakemake, workdir

from engines.cli import main as cardlab


@pytest.fixture(scope="module")
def tiny_run(tiny_pipeline):
    return tiny_pipeline


def test_pipeline_builds_warehouse_and_reports(tiny_run):
    wd = tiny_run
    assert (wd / "results/warehouse.duckdb").exists()
    for name in ("narcotic.md", "narcotic.csv", "narcotic_passes.png", "narcotic_rules.png"):
        assert (wd / "reports" / name).stat().st_size > 0
    con = duckdb.connect(str(wd / "results/warehouse.duckdb"), read_only=True)
    games, wins = con.execute("SELECT sum(games), sum(wins) FROM narcotic_summary WHERE experiment='seed'").fetchone()
    assert games == 3000 and 0 < wins < 3000
    n_variants = con.execute("SELECT count(*) FROM narcotic_summary WHERE experiment='combos'").fetchone()[0]
    assert n_variants == 16
    prov = con.execute(
        "SELECT count(*), count(DISTINCT engine_version) FROM provenance WHERE game='narcotic'"
    ).fetchone()
    assert prov == (2 + 1 + 16, 1)
    # the same question through polars over the Parquet files gives the same answer
    df = pl.scan_parquet(str(wd / "results/narcotic/narcotic_games/seed/**/*.parquet")).collect()
    assert (df.height, int(df["won"].sum())) == (games, wins)


def test_nothing_to_do_on_second_run(tiny_copy):
    out = snakemake(tiny_copy, "--cores", "2", "-n", env_extra=env_of(tiny_copy))
    assert "Nothing to be done" in out.stdout + out.stderr


def test_cardlab_sql_on_the_warehouse(tiny_run, capsys, monkeypatch):
    monkeypatch.chdir(tiny_run)
    assert cardlab(["sql", "SELECT experiment, games FROM narcotic_summary WHERE experiment='seed'", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["experiment,games", "seed,3000"]
    assert cardlab(["sql", "DELETE FROM narcotic_games"]) == 1
    assert "read-only" in capsys.readouterr().err
    assert cardlab(["sql", "SELEC 1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: SQL:") and "Traceback" not in err


# Which jobs an engine edit reruns: tests/test_report_index.py::test_editing_one_engine_reruns_its_game_and_the_index


def test_bad_config_fails_before_any_job(tmp_path):
    wd = workdir(tmp_path, TINY.replace("games: 3000", "games: -5"))
    out = snakemake(wd, "--cores", "1", check=False)
    assert out.returncode != 0
    assert "narcotic.experiments[0].games" in out.stdout + out.stderr
    assert not (wd / "results").exists()
