"""Commands a newcomer meets first: `cardlab sql` outside the project, several statements, file modes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from engines.cli import main
from engines.core.store import atomic_write, write_parquet

ROOT = Path(__file__).resolve().parents[1]


def cardlab(*args: str, cwd: Path, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CARDLAB_DB"}
    env.update({"PYTHONPATH": str(ROOT), **(env_extra or {})})
    return subprocess.run(
        [sys.executable, "-m", "engines.cli", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_sql_outside_the_project_names_where_it_looked_and_how_to_point_elsewhere(tmp_path):
    res = cardlab("sql", "SELECT 1", cwd=tmp_path)
    assert res.returncode == 1
    err = res.stderr.strip()
    assert str(tmp_path) in err and "--db" in err and "CARDLAB_DB" in err, err
    assert len(err.splitlines()) == 1


def test_sql_reads_the_warehouse_named_by_cardlab_db(tiny_pipeline, tmp_path):
    db = tiny_pipeline / "results" / "warehouse.duckdb"
    res = cardlab("sql", "SELECT count(*) AS n FROM redblack_counts", cwd=tmp_path, env_extra={"CARDLAB_DB": str(db)})
    assert res.returncode == 0, res.stderr
    header, _rule, value, *_ = res.stdout.splitlines()
    assert header.strip() == "n" and int(value) > 0, res.stdout


def test_sql_prints_every_statement_result(tiny_pipeline, capsys):
    db = str(tiny_pipeline / "results" / "warehouse.duckdb")
    assert main(["sql", "SELECT 1 AS a; SELECT 2 AS b", "--db", db]) == 0
    blocks = capsys.readouterr().out.strip().split("\n\n")
    assert [b.splitlines()[0].strip() for b in blocks] == ["a", "b"], blocks
    assert [b.splitlines()[2].strip() for b in blocks] == ["1", "2"], blocks


def test_sql_refuses_several_results_as_one_csv(tiny_pipeline, capsys):
    db = str(tiny_pipeline / "results" / "warehouse.duckdb")
    assert main(["sql", "SELECT 1 AS a; SELECT 2 AS b", "--db", db, "--csv"]) == 1
    assert "one CSV holds one table" in capsys.readouterr().err
    assert main(["sql", "SELECT 1 AS a;", "--db", db, "--csv"]) == 0
    assert capsys.readouterr().out.split() == ["a", "1"]


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_written_files_follow_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        text = tmp_path / f"r{mask:o}.md"
        with atomic_write(text, "w") as fh:
            fh.write("x")
        shard = write_parquet(tmp_path / f"shard{mask:o}.parquet", {"a": [1]}, {"game": "narcotic"})
    finally:
        os.umask(old)
    for path in (text, shard):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask, path
