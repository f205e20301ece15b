"""Faults: a workflow killed at several points resumes to the same bytes; damaged,
foreign or stale Parquet files are named at warehouse build; readers never see a
half-built warehouse; `cardlab verify` reports what is wrong with a results tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from barrier import Barrier
from wfhelp import (
    WAREHOUSE,
    WAREHOUSE_RULE,
    cardlab,
    digests,
    kill_group,
    parquet_files,
    reference,
    snakemake,
    start,
    workdir,
)

from engines.core import layout
from engines.core.errors import CardlabError
from engines.core.layout import temp_files
from engines.core.store import META_KEY, read_meta, write_parquet
from engines.pipeline.catalog.warehouse import build, check_file
from engines.pipeline.compute import jobs
from engines.registry import engine


def assert_no_false_results(wd: Path) -> None:
    """Every *.parquet under results/ is complete with provenance; temporaries are dot-files
    that no result glob (``*.parquet``) matches; a warehouse present is a complete catalog."""
    for path in parquet_files(wd):
        assert not path.name.startswith("."), path
        check_file(str(path))
    for tmp in (wd / "results").rglob(".*.tmp*"):
        assert not tmp.name.endswith(".parquet"), tmp
    wh = wd / WAREHOUSE
    if wh.exists():
        con = duckdb.connect(str(wh), read_only=True)
        assert con.execute("SELECT count(*) FROM provenance").fetchone()[0] > 0
        con.close()


def test_kill_at_several_points_then_plain_rerun_gives_identical_bytes(tmp_path, tmp_path_factory):
    """The kills come at exact points (tests/barrier.py): a barrier in the run's own processes holds a
    write just before its rename, the test waits for that event and kills the run there."""
    ref = reference(tmp_path_factory.getbasetemp(), cores=2)
    wd = workdir(tmp_path / "killed")
    # 1: kill the whole run (snakemake and its jobs) once exactly 3 shard files are written
    shards = Barrier(tmp_path / "shards", ".parquet", passes=3)
    run = start(wd, "--cores", "2", WAREHOUSE_RULE, env_extra=shards.env())
    shards.wait_reached(run)
    kill_group(run)
    assert_no_false_results(wd)
    assert 3 <= len(parquet_files(wd)) < len(ref)
    # 2: a plain rerun, killed again while the warehouse is being built: its catalog written in full
    # under its temporary name, not yet renamed
    catalog = Barrier(tmp_path / "catalog", Path(WAREHOUSE).name)
    run = start(wd, "--cores", "2", WAREHOUSE_RULE, env_extra=catalog.env())
    catalog.wait_reached(run)
    assert temp_files(wd / WAREHOUSE), "the warehouse build holds no temporary catalog"
    kill_group(run)
    assert_no_false_results(wd)
    assert not (wd / WAREHOUSE).exists(), "a half-built warehouse under the final name"
    assert len(parquet_files(wd)) == len(ref)
    # 3: the plain command a user types finishes the campaign (the killed jobs rerun: the profile's
    # rerun-incomplete; no stale lock stops it: the profile's nolock, the run lock an flock)
    snakemake(wd, "--cores", "2")
    assert digests(wd) == ref
    assert not list((wd / "results").rglob(".*.tmp*")), "temporaries left after the rerun"
    assert (wd / "reports").is_dir()
    v = cardlab(wd, "verify")
    assert v.returncode == 0, v.stdout + v.stderr
    assert "Nothing to be done" in snakemake(wd, "--cores", "2", "-n").stdout


def test_kill_during_shard_write_leaves_only_a_temporary(tmp_path):
    """A writer killed after it created its temporary leaves no file under the final name;
    the job's rerun removes the temporary."""
    out = tmp_path / "results" / "narcotic" / "narcotic_games" / "e" / "v" / "shard=0000.parquet"
    code = textwrap.dedent(f"""
        import os
        real = os.fsync
        def hang(fd):
            real(fd)
            print("written", flush=True)
            os.kill(os.getpid(), 9)          # SIGKILL between write and rename
        os.fsync = hang
        from engines.core.store import write_parquet
        write_parquet({str(out)!r}, {{"x": [1, 2, 3]}}, {{"game": "narcotic"}})
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == -9 and "written" in proc.stdout
    assert not out.exists()
    leftovers = temp_files(out)
    assert len(leftovers) == 1 and leftovers[0].name.startswith(".shard=0000.parquet.")
    assert layout.remove_temp_files(out) == leftovers and not temp_files(out)


# ---------------------------------------------------------------- damaged and foreign files


def narcotic_shards(root: Path, n: int, games: int = 400) -> list[str]:
    """``n`` genuine narcotic shard files written by the current engine."""
    plan = engine("narcotic").plan(
        {"experiments": [{"name": "t", "rules": "seed", "games": games, "shards": n, "seed": 9}]}
    )
    paths = []
    for spec in plan:
        path = layout.shard_path("narcotic", "narcotic_games", spec, root=str(root))
        jobs.run_shard("narcotic", spec, {"narcotic_games": path}, log=str(root / "log.txt"))
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> list[str]:
    return narcotic_shards(tmp_path_factory.mktemp("shards") / "results", 3)


def damaged_copy(src: str, dest: Path, how: str) -> Path:
    """A copy of a shard file damaged in one way."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if how == "truncated":
        data = Path(src).read_bytes()
        dest.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        dest.write_bytes(b"")
    elif how == "foreign":  # a Parquet file from elsewhere: no cardlab provenance
        pq.write_table(pa.table({"a": [1, 2]}), dest)
    elif how in ("stale", "wrong_schema", "row_count", "bad_json"):
        table = pq.read_table(src)
        meta = read_meta(src)
        if how == "stale":
            meta["engine_version"] = "0123456789abcdef"
        if how == "row_count":
            meta["rows"] += 1
        if how == "wrong_schema":
            table = table.drop_columns(["won"])
        if how == "bad_json":
            pq.write_table(table.replace_schema_metadata({META_KEY: b"{not json"}), dest)
        else:  # written as cardlab writes: the damage is in what the provenance says, not in the bytes
            write_parquet(dest, table.replace_schema_metadata(None), meta)
    elif how == "corrupt_page":  # footer intact, data pages overwritten
        data = bytearray(Path(src).read_bytes())
        footer = int.from_bytes(data[-8:-4], "little") + 8
        for i in range(4, len(data) - footer - 4):
            data[i] = 0xFF
        dest.write_bytes(bytes(data))
    elif how == "misplaced":  # a sound shard under another shard's path
        shutil.copy(src, dest)
    elif how == "flipped_bit":  # still reads, with other values
        shutil.copy(src, dest)
        flip_silently(dest)
    elif how == "directory":
        dest.mkdir()
    else:
        raise ValueError(how)
    return dest


FIXES = {
    "truncated": "not a readable Parquet file",
    "empty": "not a readable Parquet file",
    "foreign": "without cardlab provenance",
    "stale": "stale shard",
    "wrong_schema": "wrong schema",
    "row_count": "rows but its provenance says",
    "bad_json": "damaged cardlab provenance",
    "corrupt_page": "damaged Parquet data",
    "flipped_bit": "damaged Parquet data (whole-file sha256 is",
    "misplaced": "provenance says narcotic/narcotic_games/t/deal.top-right.keep/0 but its path names",
    "directory": "not a readable Parquet file (a directory or special file is in its place)",
}


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
    proc = cardlab(wd, "verify", *args)
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


# ---------------------------------------------------------------- no wrong answer, ever


def flip_silently(path: Path) -> None:
    """Flip one bit in a data page so that a plain read still succeeds, with other values."""
    data = Path(path).read_bytes()
    table = pq.read_table(path)
    end = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    for i in range(4, end):
        bad = bytearray(data)
        bad[i] ^= 1
        try:
            if not pq.read_table(pa.BufferReader(bytes(bad))).equals(table):
                Path(path).write_bytes(bytes(bad))
                return
        except Exception:
            continue
    raise AssertionError("no silent bit flip found")


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


def answers(wd: Path) -> str:
    out = cardlab(wd, "sql", "SELECT experiment, games, wins FROM narcotic_summary ORDER BY ALL", "--csv")
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_missing_shards_are_recomputed_by_a_plain_run(finished_run, tmp_path_factory):
    """Case 2: deleted shards (a search shard, the basins shard) and a dangling link in a shard's place."""
    wd = finished_run
    ref = reference(tmp_path_factory.getbasetemp(), cores=2)
    files = parquet_files(wd)
    victims = [
        next(p for p in files if "narcotic_games" in str(p)),
        next(p for p in files if "redblack_basin" in str(p)),
        next(p for p in files if "redblack" in str(p) and "basin" not in str(p)),
    ]
    for p in victims[:2]:
        p.unlink()
    victims[2].unlink()
    victims[2].symlink_to(wd / "nowhere.parquet")
    # the warehouse target, no option forcing anything: what is checked is the shards and the
    # catalog (the default target's reports follow the catalog: the kill test's last run has them)
    out = snakemake(wd, WAREHOUSE_RULE, "--cores", "2")
    assert "Nothing to be done" not in out.stdout + out.stderr
    assert digests(wd) == ref
    v = cardlab(wd, "verify")
    assert v.returncode == 0, v.stdout + v.stderr
    # the catalog alone deleted: rebuilt too
    (wd / WAREHOUSE).unlink()
    snakemake(wd, WAREHOUSE_RULE, "--cores", "2")
    assert cardlab(wd, "verify").returncode == 0


# A damaged shard that Snakemake sees as a file (a sound shard misplaced) and one it sees as a
# directory, each through a workflow rebuild (15 s a rebuild here); a truncated and an empty file
# fail as the misplaced one does, through the same check, which test_bad_file_named_at_warehouse_build
# makes on every kind of damage in-process: their workflow rebuilds run with `pytest -m slow`
REBUILD_DAMAGE = ("misplaced", "directory")


def refused_rebuilds(wd: Path, kinds: tuple[str, ...]) -> str:
    """A rebuild with a narcotic shard damaged in each way of ``kinds`` fails, naming the file, and
    leaves the previous catalog answering as before; the shard is then put back (newer than the
    catalog).  The catalog's answers."""
    good = answers(wd)
    before = (wd / WAREHOUSE).read_bytes()
    shards = [p for p in parquet_files(wd) if "narcotic_games" in str(p)]
    saved = shards[1].read_bytes()
    for how in kinds:
        shards[1].unlink()
        if how == "misplaced":
            shutil.copy(shards[0], shards[1])
            sees = "provenance says narcotic/narcotic_games/seed/"
        elif how == "directory":
            shards[1].mkdir()
            sees = "a directory or special file is in its place"
        else:
            damaged_copy(str(shards[0]), shards[1], how)
            sees = "not a readable Parquet file"
        out = snakemake(wd, "--cores", "2", check=False)
        assert out.returncode != 0, how
        assert f"error: {shards[1].relative_to(wd)}: " in out.stderr and sees in out.stderr, out.stderr[-2000:]
        assert (wd / WAREHOUSE).read_bytes() == before, how
        assert answers(wd) == good
        if how == "directory":
            shards[1].rmdir()
            shards[1].touch()
    shards[1].write_bytes(saved)
    return good


def test_failed_or_running_rebuild_keeps_the_last_good_catalog(finished_run, tmp_path_factory):
    """Case 3 (and case 1 through the workflow): a rebuild that fails leaves the previous catalog
    answering; while a rebuild runs, the old catalog stays queryable until the new one replaces it."""
    wd = finished_run
    ref = reference(tmp_path_factory.getbasetemp(), cores=2)
    good = refused_rebuilds(wd, REBUILD_DAMAGE)
    # a rebuild (the shard is newer than the warehouse): held at the barrier with its new catalog
    # complete under its temporary name, the old catalog is still there and answers; the rename
    # that follows is atomic, so readers never find the catalog gone
    # (the warehouse target: the reports that follow it neither write nor remove the catalog)
    catalog = Barrier(wd.parent / "catalog-barrier", Path(WAREHOUSE).name)
    run = start(wd, "--cores", "2", WAREHOUSE_RULE, env_extra=catalog.env())
    try:
        catalog.wait_reached(run)
        assert temp_files(wd / WAREHOUSE), "the rebuild holds no temporary catalog"
        assert answers(wd) == good  # the last good catalog, while the rebuild runs
    finally:
        catalog.release()
    assert run.wait(timeout=600) == 0
    catalog.close()
    assert digests(wd) == ref and answers(wd) == good
    assert cardlab(wd, "verify").returncode == 0


@pytest.mark.slow
def test_a_truncated_or_empty_shard_fails_a_rebuild_as_a_misplaced_one_does(finished_run):
    refused_rebuilds(finished_run, ("truncated", "empty"))


# Snakemake's own run logs and the I/O cache a dry run leaves for --trust-io-cache
SNAKEMAKE_OWN = (".snakemake/log/", ".snakemake/iocache/")


def tree_state(wd: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under the work dir (Snakemake's records included): content and modification time."""
    files = (p for p in wd.rglob("*") if p.is_file() and not str(p.relative_to(wd)).startswith(SNAKEMAKE_OWN))
    return {str(p.relative_to(wd)): (p.read_bytes(), p.stat().st_mtime_ns) for p in files}


def interrupted_tree(wd: Path) -> None:
    """A deleted planned shard in a finished tree (its warehouse manifest present)."""
    shards = [p for p in parquet_files(wd) if "narcotic_games" in str(p)]
    shards[0].unlink()
    assert (wd / layout.manifest_of(WAREHOUSE)).exists()


def assert_no_file_changes(wd: Path, commands: tuple[list[str], ...]) -> None:
    before = tree_state(wd)
    for args in commands:
        out = snakemake(wd, *args, check=False)
        assert "Traceback" not in out.stderr, out.stderr[-2000:]
        after = tree_state(wd)
        changed = sorted(f for f in before if after.get(f) != before[f])
        added = sorted(f for f in after if f not in before)
        assert not changed and not added, (args, changed, added)


# One command of each Snakemake mode that runs no job (6 s each here); the dry run's other
# spellings, which resume.asks_for_a_run parses alike (test_only_a_command_that_runs_jobs_cleans_up),
# under `pytest -m slow`
NO_JOB_COMMANDS = (["-n"], ["--summary"], ["--dag"])
DRY_RUN_SPELLINGS = (["--dry-run", "--cores", "2"], ["-pn"])


def test_a_dry_run_changes_no_file(finished_run):
    """A deleted planned shard and the warehouse manifest: `snakemake -n` reads them and changes none;
    the real run recomputes the shard and rebuilds the warehouse."""
    wd = finished_run
    interrupted_tree(wd)
    assert_no_file_changes(wd, NO_JOB_COMMANDS)
    out = snakemake(wd, WAREHOUSE_RULE, "--cores", "2")
    assert "recomputing" in out.stderr
    assert cardlab(wd, "verify").returncode == 0


@pytest.mark.slow
def test_every_spelling_of_a_dry_run_changes_no_file(finished_run):
    interrupted_tree(finished_run)
    assert_no_file_changes(finished_run, DRY_RUN_SPELLINGS)


@pytest.mark.parametrize(
    "argv, runs",
    [
        (["snakemake", "--cores", "all"], True),
        (["snakemake", "--cores", "2", "warehouse"], True),
        (["snakemake", "-n"], False),
        (["snakemake", "-pn", "--cores", "2"], False),
        (["snakemake", "--dry-run"], False),
        (["snakemake", "--summary"], False),
        (["snakemake", "--dag"], False),
        (["snakemake", "--unlock"], False),
        (["snakemake", "--report=r.html"], False),
        (["snakemake", "-c2", "-p"], True),
        (["snakemake", "-nc2"], False),
        (["snakemake", "-qn", "--cores", "all"], False),
        (["snakemake", "-pc", "2"], True),
    ],
)
def test_only_a_command_that_runs_jobs_cleans_up(argv, runs):
    from engines.pipeline.snakemake.resume import asks_for_a_run

    assert asks_for_a_run(argv) is runs


def test_a_second_run_in_the_same_directory_stops_at_once(tmp_path):
    """No Snakemake lock files (the profile's nolock): the run lock, an flock, says a run is alive here."""
    wd = workdir(tmp_path / "wd")
    lock = wd / layout.RUN_LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        out = snakemake(wd, "--cores", "1", check=False)
        assert out.returncode == 1 and "another snakemake run is working in this directory" in out.stderr
        assert not parquet_files(wd), "a refused run computed shards"
    finally:
        holder.communicate("done\n", timeout=60)
    assert "Nothing to be done" not in snakemake(wd, "--cores", "1", "-n").stdout  # the lock gone: it would run


HOLD_LOCK = textwrap.dedent("""
    import fcntl, os, sys
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("held", flush=True)
    sys.stdin.readline()
""")
