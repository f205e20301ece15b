"""Damaged, foreign or stale Parquet files are named at warehouse build; readers never see a half-built
warehouse; `cardlab verify` reports what is wrong with a results tree; no wrong answer, ever."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from damage import FIXES, damaged_copy, flip_silently, narcotic_shards
from wfhelp import WAREHOUSE, cardlab_here, parquet_files

from engines.core.errors import CardlabError
from engines.core.layout import temp_files
from engines.core.store import read_meta, write_parquet
from engines.pipeline.catalog.warehouse import build, check_file


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> list[str]:
    return narcotic_shards(tmp_path_factory.mktemp("shards") / "results", 3)


@pytest.mark.parametrize("how", sorted(FIXES))
def test_bad_file_named_at_warehouse_build(shards, tmp_path, how, capsys):
    bad = damaged_copy(
        shards[0], tmp_path / "results" / "narcotic" / "narcotic_games" / "t" / "x" / "shard=0009.parquet", how
    )
    out = tmp_path / "wh.duckdb"
    with pytest.raises(CardlabError) as err:
        build(shards[1:] + [str(bad)], out, log=open("/dev/null", "w"))
    msg = str(err.value)
    assert msg.startswith(str(bad)), msg
    assert FIXES[how] in msg
    assert any(fix in msg.lower() for fix in ("rerun", "delete", "move it out"))
    assert not out.exists() and not temp_files(out), "a failed build left a catalog behind"
    # the same through the command line: one line, non-zero exit
    from engines.cli import main

    # (a folder named as a shard file is refused by the parser, exit 2, before any build)
    try:
        code = main(["warehouse", *shards[1:], str(bad), "--out", str(out)])
    except SystemExit as exc:
        code = exc.code
    err_lines = capsys.readouterr().err.strip().splitlines()
    assert code == (2 if how == "directory" else 1)
    assert len(err_lines) == 1 and err_lines[0].startswith("error: ") and str(bad) in err_lines[0], err_lines
    assert how == "directory" or err_lines[0].startswith(f"error: {bad}")


def test_failed_rebuild_keeps_the_previous_warehouse(shards, tmp_path):
    out = tmp_path / "wh.duckdb"
    build(shards, out, log=open("/dev/null", "w"))
    before = out.read_bytes()
    bad = damaged_copy(shards[0], tmp_path / "bad.parquet", "truncated")
    with pytest.raises(CardlabError):
        build(shards + [str(bad)], out, log=open("/dev/null", "w"))
    assert out.read_bytes() == before


# Readers in their own processes (DuckDB shares one database instance per file within a
# process, so a connection held open would pin the old catalog for every later connect).
# The reader queries in a loop until the stop file appears (whatever it reads must be a whole
# catalog), and answers once more on each line the test sends it (what it reads then is known);
# the holder blocks on its stdin between its two reads (no spinning).
READER = textwrap.dedent("""
    import os, select, sys, duckdb
    path, stop = sys.argv[1], sys.argv[2]

    def query(tag):
        try:
            con = duckdb.connect(path, read_only=True)
            rows, files = con.execute("SELECT (SELECT count(*) FROM narcotic_games), "
                                      "(SELECT count(*) FROM provenance)").fetchone()
            con.close()
            print(tag, rows, files, flush=True)
        except duckdb.Error as exc:
            print("err", tag, " ".join(str(exc).split()), flush=True)

    print("ready", flush=True)
    while not os.path.exists(stop):
        if select.select([sys.stdin], [], [], 0)[0]:
            sys.stdin.readline()
            query("asked")
        else:
            query("ok")
""")

HOLDER = textwrap.dedent("""
    import sys, duckdb
    path = sys.argv[1]
    held = duckdb.connect(path, read_only=True)
    print("held", held.execute("SELECT count(*) FROM narcotic_games").fetchone()[0], flush=True)
    sys.stdin.readline()  # until the test says the rebuilds are done
    print("held", held.execute("SELECT count(*) FROM narcotic_games").fetchone()[0], flush=True)
""")


def ask(reader: subprocess.Popen) -> str:
    """One answer of the reader to a question: its next "asked" line (its loop's lines skipped)."""
    reader.stdin.write("?\n")
    reader.stdin.flush()
    while True:
        line = reader.stdout.readline()
        assert line, "the reader ended"
        if line.startswith(("asked ", "err asked ")):
            return line.strip()


def test_reader_during_rebuilds_sees_old_or_new_never_partial(shards, tmp_path):
    out = tmp_path / "wh.duckdb"
    small, full = shards[:1], shards
    build(small, out, log=open("/dev/null", "w"))
    n_small = sum(pq.ParquetFile(p).metadata.num_rows for p in small)
    n_full = sum(pq.ParquetFile(p).metadata.num_rows for p in full)
    assert n_small != n_full
    stop = tmp_path / "stop"
    reader, holder = (
        subprocess.Popen(
            [sys.executable, "-c", code, str(out), str(stop)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for code in (READER, HOLDER)
    )
    assert reader.stdout.readline().strip() == "ready"
    assert holder.stdout.readline().split() == ["held", str(n_small)]
    allowed = {n_small: f"{n_small} {len(small)}", n_full: f"{n_full} {len(full)}"}
    asked = []
    for rebuilds in range(1, 9):  # the reader queries in a loop meanwhile
        files = full if rebuilds % 2 else small
        build(files, out, log=open("/dev/null", "w"))
        asked.append(ask(reader))  # between two builds: exactly the catalog just built
        assert asked[-1] == f"asked {allowed[n_full if files is full else n_small]}", asked
    stop.touch()
    lines = reader.communicate(timeout=120)[0].splitlines()
    held = holder.communicate("done\n", timeout=120)[0].splitlines()
    assert [p.returncode for p in (reader, holder)] == [0, 0]
    # whatever the loop read while catalogs were swapped under it: a whole catalog or a clear error
    bad = [ln for ln in lines if ln.removeprefix("ok ").removeprefix("asked ") not in allowed.values()]
    assert not [ln for ln in bad if not ln.startswith("err ")], bad[:5]
    # a connection opened before the swaps keeps answering from the catalog it opened
    assert held == [f"held {n_small}"]
    print(
        f"reader: {sum(ln.startswith('ok ') for ln in lines)} answers in its loop, "
        f"{sum(ln.startswith('err ') for ln in lines)} clear failures during 8 rebuilds"
    )


# ---------------------------------------------------------------- cardlab verify


def verify(wd: Path, *args: str) -> tuple[int, list[str]]:
    proc = cardlab_here(wd, "verify", *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout.splitlines() + proc.stderr.splitlines()


def first_shard(wd: Path) -> Path:
    return next(p for p in parquet_files(wd) if "narcotic_games" in str(p))


def test_verify_passes_on_a_complete_tree(finished):
    rc, lines = verify(finished)
    assert rc == 0 and lines[-1].startswith("verify: "), lines


def test_verify_reports_missing(finished):
    victim = first_shard(finished)
    victim.unlink()
    rc, lines = verify(finished)
    assert rc == 1
    assert any(ln.startswith(f"missing: {victim.relative_to(finished)}: missing") for ln in lines), lines
    assert lines[-1].startswith("error: verify found 1 problem(s): 1 missing")


def test_verify_reports_unexpected_and_duplicate(finished):
    src = first_shard(finished)
    shutil.copy(src, src.with_name("shard=0099.parquet"))
    rc, lines = verify(finished)
    assert rc == 1
    assert any(ln.startswith("unexpected:") and "shard=0099" in ln for ln in lines), lines
    assert any(ln.startswith("duplicate:") for ln in lines), lines


def test_verify_reports_stale_after_a_config_change(finished):
    cfg = finished / "config.yaml"
    cfg.write_text(cfg.read_text().replace("games: 4000", "games: 4400"))
    rc, lines = verify(finished)
    assert rc == 1
    stale = [ln for ln in lines if ln.startswith("stale:")]
    assert len(stale) == 4 and all("games" in ln for ln in stale), lines


def test_verify_reports_stale_engine_damage_rows_and_leftovers(finished):
    paths = [p for p in parquet_files(finished) if "narcotic_games" in str(p)]
    damaged_copy(str(paths[0]), paths[0].with_name("x.parquet"), "stale").replace(paths[0])
    damaged_copy(str(paths[1]), paths[1].with_name("x.parquet"), "truncated").replace(paths[1])
    # a well-formed file whose rows are not the planned ones (provenance consistent)
    table = pq.read_table(paths[2])
    meta = read_meta(paths[2])
    meta["rows"] = table.num_rows - 1
    write_parquet(paths[2], table.slice(1), meta)
    (paths[3].parent / f".{paths[3].name}.abc123.tmp").write_bytes(b"partial")
    rc, lines = verify(finished)
    assert rc == 1
    kinds = sorted(ln.split(":")[0] for ln in lines[:-1])
    assert kinds == ["damaged", "leftover", "rows", "stale"], lines


def test_verify_reports_an_out_of_date_warehouse(finished, tmp_path):
    (finished / WAREHOUSE).unlink()
    rc, lines = verify(finished)
    assert rc == 1 and lines[0].startswith("warehouse:"), lines


def test_flipped_bit_in_a_data_page_is_caught(shards, tmp_path):
    """Case 4: the file still reads (other values), but its content hash and page checksums do not hold."""
    victim = tmp_path / "results" / Path(shards[1]).relative_to(Path(shards[1]).parents[4])
    victim.parent.mkdir(parents=True)
    shutil.copy(shards[1], victim)
    flip_silently(victim)
    with pytest.raises(CardlabError) as err:
        build([shards[0], str(victim)], tmp_path / "wh.duckdb", log=open("/dev/null", "w"))
    assert str(err.value).startswith(f"{victim}: damaged Parquet data"), err.value
    with pytest.raises(CardlabError, match="damaged Parquet data"):
        check_file(str(victim))


def test_shard_copied_over_another_is_refused_by_name(shards, tmp_path):
    """Case 1: a shard file under another shard's path (or another game's) never reaches the warehouse."""
    root = tmp_path / "results"
    shutil.copytree(Path(shards[0]).parents[4], root)
    paths = [str(root / Path(s).relative_to(Path(s).parents[4])) for s in shards]
    shutil.copy(paths[0], paths[1])
    with pytest.raises(CardlabError) as err:
        build(paths, tmp_path / "wh.duckdb", log=open("/dev/null", "w"))
    assert str(err.value).startswith(f"{paths[1]}: provenance says narcotic/narcotic_games/t/"), err.value
    assert "but its path names narcotic/narcotic_games/t/deal.top-right.keep/1" in str(err.value)
    # a narcotic shard under a blackjack path
    other = root / "blackjack" / "blackjack_sim" / "fresh2" / "d2" / "shard=0000.parquet"
    other.parent.mkdir(parents=True)
    shutil.copy(paths[0], other)
    with pytest.raises(CardlabError, match="provenance says narcotic/.* but its path names blackjack/"):
        build([paths[0], str(other)], tmp_path / "wh.duckdb", log=open("/dev/null", "w"))
    assert not (tmp_path / "wh.duckdb").exists()
