"""Bad input: every row of docs/bad-input.md is tried here and must give what the table says."""

from __future__ import annotations

import copy
import hashlib
import io
import re
import shlex
import sys
from pathlib import Path

import pytest
import yaml
from damage import FIXES, narcotic_shards
from wfhelp import ROOT, snakemake, workdir

from engines.cli import main as cardlab_main
from engines.core.errors import CardlabError
from engines.pipeline.planning.plan import validate_config

DOC = ROOT / "docs" / "bad-input.md"

BASE = yaml.safe_load("""
narcotic:
  experiments:
    - {name: seed, rules: seed, games: 3000, shards: 2, seed: 1}
    - {name: classic, rules: classic, games: 100, shards: 1, seed: 2}
redblack:
  exhaustive: {k_min: 1, k_max: 4}
  experiments:
    - {name: sample, k: 10, deals: 10, seed: 1}
blackjack:
  exact: {decks: [2]}
  experiments:
    - {name: b, decks: 2, hands_per_upcard: 10, seed: 1}
""")


def table(section: str) -> list[list[str]]:
    """Rows (cells without the outer backticks) of the first table under a '## section' heading."""
    text = DOC.read_text().split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("| id") or line.startswith("| ---"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        rows.append([c[1:-1] if c.startswith("`") and c.endswith("`") else c for c in cells])
    return rows


def set_field(config: dict, path: str, value) -> dict:
    """config with ``a.b[0].c`` set to value (``.`` replaces the whole config)."""
    if path == ".":
        return value
    keys = [int(k) if k.isdigit() else k for k in re.findall(r"[^.\[\]]+", path)]
    node = config
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value
    return config


def apply(change: str) -> dict:
    config = copy.deepcopy(BASE)
    for part in change.split("` + `"):
        path, value = part.split(" = ", 1)
        config = set_field(config, path.strip(), yaml.safe_load(value))
    return config


CONFIG_ROWS = table("config.yaml")
CLI_ROWS = table("The `cardlab` command")
FILE_ROWS = table("Files under results/")


def test_the_tables_are_complete():
    assert len(CONFIG_ROWS) >= 30 and len(CLI_ROWS) >= 30 and len(FILE_ROWS) == len(FIXES)
    assert validate_config(copy.deepcopy(BASE)) == BASE  # the rows each break a valid config


@pytest.mark.parametrize("row", CONFIG_ROWS, ids=[r[0] for r in CONFIG_ROWS])
def test_config_row(row):
    _, _, change, sees = row
    with pytest.raises(CardlabError) as err:
        validate_config(apply(change), "config")
    assert sees in str(err.value), f"{change}: {err.value}"


def test_bad_config_stops_snakemake_before_any_job(tmp_path):
    """A problem only the planner finds (row C33) also stops the workflow before any job."""
    row = next(r for r in CONFIG_ROWS if r[0] == "C33")
    wd = workdir(tmp_path, yaml.safe_dump(apply(row[2])))
    out = snakemake(wd, "--cores", "1", check=False)
    assert out.returncode != 0
    assert row[3] in out.stdout + out.stderr and "Traceback" not in out.stdout + out.stderr
    assert not (wd / "results").exists()


# a key given twice (line 4, then line 5): YAML loaders keep the last silently
TWICE = "narcotic:\n  experiments:\n    - name: a\n      games: 6000\n      games: 60\n      seed: 1\n"


@pytest.mark.parametrize("bad", ["latin1", "twice"])
def test_config_bytes_and_duplicate_keys_stop_snakemake_in_one_line(tmp_path, bad):
    """Snakemake's own loader gives a traceback for non-UTF-8 text and keeps the last of two keys."""
    wd = workdir(tmp_path, None)
    text = TWICE.replace("name: a", "name: caf\xe9").replace("games: 60\n", "")
    (wd / "config.yaml").write_bytes(text.encode("latin-1") if bad == "latin1" else TWICE.encode())
    out = snakemake(wd, "--cores", "1", "-n", check=False)
    both = out.stdout + out.stderr
    assert out.returncode != 0 and "Traceback" not in both, both
    want = (
        "config.yaml: not UTF-8 text (byte 0xe9" if bad == "latin1" else "duplicate key 'games' (first given on line 4)"
    )
    assert want in both, both
    assert not (wd / "results").exists()


@pytest.fixture(scope="module")
def cli_dir(tmp_path_factory) -> Path:
    """A directory with a small valid warehouse and a few bad files for the rows to use."""
    from engines.pipeline.catalog.warehouse import build

    d = tmp_path_factory.mktemp("cli")
    files = narcotic_shards(d / "results", 2, games=200)
    build(files, d / "results" / "warehouse.duckdb", log=io.StringIO())
    (d / "broken.yaml").write_text("narcotic: [\n")
    (d / "latin1.yaml").write_bytes(
        TWICE.replace("games: 60\n", "").replace("name: a", "name: caf\xe9").encode("latin-1")
    )
    (d / "twice.yaml").write_text(TWICE)
    (d / "invalid.yaml").write_text("narcotic:\n  experiments:\n    - {name: a, games: -1, shards: 0, seed: 1}\n")
    return d


def run_cli(argv: list[str], stdin: str, capsys, monkeypatch) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        code = cardlab_main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    return code, capsys.readouterr().err


def split_command(command: str) -> tuple[list[str], str]:
    stdin = ""
    if "| cardlab" in command:
        echo, command = command.split("| ", 1)
        stdin = shlex.split(echo)[1] + "\n"
    argv = shlex.split(command)
    assert argv[0] == "cardlab"
    return argv[1:], stdin


@pytest.mark.parametrize("row", CLI_ROWS, ids=[r[0] for r in CLI_ROWS])
def test_cli_row(row, cli_dir, capsys, monkeypatch):
    _, _, command, exit_code, sees = row
    monkeypatch.chdir(cli_dir)
    argv, stdin = split_command(command)
    code, err = run_cli(argv, stdin, capsys, monkeypatch)
    lines = err.strip().splitlines()
    assert code == int(exit_code), err
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert sees in lines[0], lines[0]


def test_sql_cannot_modify_the_warehouse(cli_dir, capsys, monkeypatch):
    monkeypatch.chdir(cli_dir)
    wh = cli_dir / "results" / "warehouse.duckdb"
    before = hashlib.sha256(wh.read_bytes()).hexdigest()
    shard = next(iter(sorted((cli_dir / "results").rglob("shard=0000.parquet")))).relative_to(cli_dir)
    shard_before = hashlib.sha256((cli_dir / shard).read_bytes()).hexdigest()
    files_before = sorted(p for p in cli_dir.rglob("*"))
    for stmt in (
        "DELETE FROM narcotic_games",
        "SELECT 1; DROP TABLE narcotic_games",
        "CREATE TABLE t (x INT)",
        "INSERT INTO narcotic_games SELECT * FROM narcotic_games",
        "DROP VIEW IF EXISTS narcotic_summary",
        "UPDATE narcotic_games SET won = NOT won",
        f"COPY (SELECT * FROM narcotic_games LIMIT 0) TO '{shard}' (FORMAT parquet)",
        f"COPY narcotic_games TO '{shard}.csv'",
        "ATTACH 'results/new.duckdb' AS n",
        "EXPORT DATABASE 'dump'",
        "INSTALL httpfs",
    ):
        code, err = run_cli(["sql", stmt], "", capsys, monkeypatch)
        assert code == 1 and err.startswith("error: SQL:") and "Traceback" not in err, (stmt, err)
    assert hashlib.sha256(wh.read_bytes()).hexdigest() == before
    assert hashlib.sha256((cli_dir / shard).read_bytes()).hexdigest() == shard_before
    assert sorted(p for p in cli_dir.rglob("*")) == files_before, "a query created a file"
    code, _ = run_cli(["sql", "SELECT count(*) FROM narcotic_games", "--csv"], "", capsys, monkeypatch)
    assert code == 0


@pytest.mark.parametrize("row", FILE_ROWS, ids=[r[0] for r in FILE_ROWS])
def test_file_row_matches_the_robustness_case(row):
    """Each results-file row is a kind of damage of tests/damage.py with the message the row shows."""
    case, _, sees = row
    assert case in FIXES
    assert FIXES[case] in sees


def test_huge_rounds_are_bounded(tmp_path):
    """Case 7: the largest --rounds (2^63-1, far beyond the game) shows the whole game and stops, in bounded
    memory; the largest --max-states means no limit."""
    import resource
    import subprocess

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    proc = subprocess.run(
        [sys.executable, "-m", "engines.cli", "redblack", "replay", "10", "110", "--rounds", "9223372036854775807"],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines()[-1].startswith("infinite: enters a cycle of 2 rounds")
    code = cardlab_main(["redblack", "basin", "10", "110", "--max-states", "9223372036854775807"])
    assert code == 0
