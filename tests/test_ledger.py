"""A campaign's ledger as runs (engines/core/ledger.py): never listed shard by shard, every bad file named
in one line with its fix, and the fix (`cardlab redblack campaign K --keep`) rebuilds it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from wfhelp import ROOT

from engines.cli import main as cardlab
from engines.core.errors import CardlabError
from engines.core.layout import ledger_path
from engines.core.ledger import Ledger, LedgerError, LedgerGrid, parse_ledger, read_ledger, record_kept
from engines.core.runs import merge_windows, runs_of, runs_text, windows_left
from engines.pipeline.planning.plan import Plan
from engines.redblack.kinds.search import ledger_grid
from engines.redblack.tables import SEARCH_TABLES

K, D = 24, 50_000_000_000  # the k = 24 campaign's grid: shards 0..322
KEPT = range(311, 323)  # the repository's first kept shards: the tests' tree holds these (it keeps more)


def outside_kept(directory: str, names: list[str]) -> list[str]:
    """copytree's ignore: the shard files and logs of shards the tests' tree does not hold."""
    return [n for n in names if n.startswith("shard=") and int(n[6:10]) not in KEPT]


PLACE = ("redblack", f"exhaustive_k{K}", "owner")
GRID = ledger_grid(K)


def body(shards, **over) -> str:
    return json.dumps({"game": "redblack", "experiment": f"exhaustive_k{K}", "variant": "owner", "per_shard": D,
                       "shards": shards, **over})  # fmt: skip


@pytest.fixture
def results(tmp_path) -> Path:
    """A results tree of the repository's kept k = 24 shards, with no ledger."""
    root = tmp_path / "results"
    for table in SEARCH_TABLES:
        shutil.copytree(
            ROOT / f"results/redblack/{table}/exhaustive_k{K}", root / f"redblack/{table}/exhaustive_k{K}",
            ignore=outside_kept,
        )  # fmt: skip
    return root


def put_ledger(results: Path, text: str) -> Path:
    path = Path(ledger_path(*PLACE, str(results)))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_ledger_is_runs_counted_searched_and_combined_without_listing_them():
    big = Ledger(*PLACE, 1, ((0, 10**12), (10**13, 10**13 + 4)))
    assert big.count == 10**12 + 6
    assert 0 in big and 10**12 in big and 10**12 + 1 not in big and 10**13 + 4 in big and -1 not in big
    assert True not in big and "3" not in big
    assert big.without([5, 10**13 + 2]).runs == ((0, 4), (6, 10**12), (10**13, 10**13 + 1), (10**13 + 3, 10**13 + 4))
    assert big.without(big).runs == () and not big.without(big)
    assert big.union([10**12 + 1, 7]).runs == ((0, 10**12 + 1), (10**13, 10**13 + 4))
    assert big.within(10).runs == ((0, 9),) and big.within(10**13 + 2).count == 10**12 + 3
    small = Ledger.of(*PLACE, D, [322, 311, 312, 5, 5])
    assert small.runs == ((5, 5), (311, 312), (322, 322)) and list(small) == [5, 311, 312, 322]
    assert small.text() == "5, 311..312, 322" and small.count == 4


def test_shards_are_written_one_way_and_windows_join_and_leave_gaps():
    """One formatter of shard runs (engines/core/runs.py); items as half-open windows [start, stop)."""
    assert runs_text(runs_of([190, 12, 195, 191, 192, 193, 194, 12])) == "12, 190..195"
    assert runs_text(()) == ""
    assert merge_windows([(5, 7), (0, 2), (2, 3), (6, 9), (4, 4)]) == [(0, 3), (5, 9)]
    assert windows_left([(0, 3), (5, 9)], 12) == [(3, 5), (9, 12)] and windows_left([(0, 12)], 12) == []


def test_the_kept_ledger_parses_and_its_shards_are_the_grids():
    ledger = read_ledger(*PLACE, GRID, str(ROOT / "results"))
    ((first, last),) = ledger.runs  # the campaign runs from the top: one run down from 322
    assert (ledger.per_shard, last, ledger.count) == (D, 322, 323 - first) and first <= KEPT[0]
    assert GRID.says(D) == "k = 24 has shards 0..322 (of 50,000,000,000 deals)"


BAD = [
    ("garbage{", "not JSON"),
    ("[[311, 322]]", "a ledger is an object of the keys game, experiment, variant, per_shard, shards"),
    (json.dumps({"shards": [[311, 322]]}), "this is keys shards"),
    (body([[311, 322]], per_shard=0), "per_shard is 0, not a whole number of at least 1"),
    (body([[311, 322]], per_shard=True), "per_shard is true"),
    (body({"311": 322}), "shards is a JSON dict, not a list of runs"),
    (body([[311, "322"]]), 'the run [311, "322"] is not a pair of shard numbers'),
    (body([[311, 322.0]]), "the run [311, 322.0] is not a pair"),
    (body([[True, 3]]), "the run [true, 3] is not a pair"),
    (body([[311]]), "the run [311] is not a pair"),
    (body([[322, 311]]), "the run [322, 311] starts after it ends"),
    (body([[-3, 4]]), "the run [-3, 4] has a negative shard number"),
    (body([[311, 400]]), "the run [311, 400] is beyond the grid: k = 24 has shards 0..322"),
    (body([[0, 1_000_000_000]]), "the run [0, 1000000000] is beyond the grid: k = 24 has shards 0..322"),
    (body([[311, 315], [314, 322]]), "the run [314, 322] overlaps or comes before the run before it [311, 315]"),
    (body([[320, 322], [311, 312]]), "the run [311, 312] overlaps or comes before"),
    (body([[2 * n, 2 * n] for n in range(100_001)]), "100,001 runs of shards, more than a ledger holds (100,000)"),
    (body([[311, 322]], variant="brute"), "names redblack/exhaustive_k24/brute, not its own place"),
]


@pytest.mark.parametrize(("text", "problem"), BAD, ids=[p[:40] for _, p in BAD])
def test_each_bad_ledger_is_one_line_naming_the_file_and_the_fix(tmp_path, text, problem):
    path = put_ledger(tmp_path, text)
    with pytest.raises(LedgerError) as caught:
        read_ledger(*PLACE, ledger_grid(K, results=str(tmp_path)), str(tmp_path))
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and problem in message and "\n" not in message
    assert f"git checkout -- {path}" in message
    assert f"cardlab redblack campaign {K} --results {tmp_path} --keep" in message
    assert caught.value.problem in message and problem in caught.value.problem


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    path = put_ledger(tmp_path, body([[311, 322]]) + " " * (5 * 2**20))
    with pytest.raises(LedgerError, match="bytes, more than a campaign ledger holds"):
        read_ledger(*PLACE, GRID, str(tmp_path))
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(LedgerError, match="not UTF-8"):
        read_ledger(*PLACE, GRID, str(tmp_path))


def test_adjacent_runs_are_joined_and_a_grid_of_a_billion_shards_costs_nothing():
    ledger = parse_ledger("x.json", body([[1, 2], [3, 4], [9, 9]]), GRID)
    assert ledger.runs == ((1, 4), (9, 9))
    huge = LedgerGrid("k = 26", 10**15, "rebuild")  # one item a shard: 10^15 shards
    ledger = parse_ledger("x.json", body([[0, 10**12]], per_shard=1), huge)
    assert ledger.count == 10**12 + 1 and 10**12 in ledger


def test_a_ledgers_error_in_the_plan_is_its_own_not_the_configs(tmp_path):
    put_ledger(tmp_path, body([[311, 400]]))
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    with pytest.raises(LedgerError) as caught:
        Plan.build(config, "config.yaml", results=str(tmp_path))
    assert "is invalid" not in str(caught.value) and "k = 24 has shards 0..322" in str(caught.value)


def test_the_cli_fails_with_the_ledgers_line(tmp_path):
    path = put_ledger(tmp_path, body([[311, 400]]))
    run = subprocess.run(
        [sys.executable, "-m", "engines.cli", "redblack", "campaign", str(K), "--results", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 1
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith(f"error: {path}: the run [311, 400] is beyond the grid: k = 24 has shards 0..322")
    assert "keeps 90 shards" not in run.stdout


BILLION = """
import json, sys
from pathlib import Path
def peak_kb():  # VmHWM is this image's own high-water mark: ru_maxrss keeps the forking parent's across exec
    line = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmHWM:"))
    return int(line.split()[1])
root = Path(sys.argv[1])
path = root / "ledger/redblack/exhaustive_k24/owner.json"
path.parent.mkdir(parents=True, exist_ok=True)
path.write_text(json.dumps({"game": "redblack", "experiment": "exhaustive_k24", "variant": "owner",
                            "per_shard": 50000000000, "shards": [[0, 1000000000]]}))
before = peak_kb()
from engines.cli import main
rc = [main(["redblack", "campaign", "24", "--results", str(root)]), main(["verify", "--results", str(root)])]
print(json.dumps({"rc": rc, "before_kb": before, "peak_kb": peak_kb()}))
"""


def test_a_billion_shard_ledger_is_refused_without_growing(tmp_path):
    """`{"shards": [[0, 1000000000]]}` grew `cardlab redblack campaign 24` to 17.8 GB and `cardlab verify` to
    24 GB: now both refuse it, the process's peak no higher than its imports make it."""
    run = subprocess.run(
        [sys.executable, "-c", BILLION, str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["rc"] == [1, 1]
    assert out["peak_kb"] < 500 * 1024, out
    assert run.stderr.count("the run [0, 1000000000] is beyond the grid: k = 24 has shards 0..322") == 2


@pytest.mark.parametrize(
    "text", ["garbage{", body([[311, 400]]), body([[0, 1_000_000_000]]), body([[-1, 5]]), body([[5, 1]])]
)
def test_keep_rebuilds_a_broken_ledger_from_the_shards_present(results, capsys, text):
    path = put_ledger(results, text)
    args = ["redblack", "campaign", str(K), "--results", str(results), "--config", str(ROOT / "config.yaml")]
    assert cardlab(args) == 1
    assert "--keep" in capsys.readouterr().err
    assert cardlab([*args, "--keep"]) == 0
    out = capsys.readouterr().out
    assert f"{path} could not be read" in out and "the ledger keeps 12 shards (311..322)" in out
    ledger = read_ledger(*PLACE, GRID, str(results))
    assert (ledger.per_shard, ledger.runs) == (D, ((311, 322),))
    kept = re.sub(r"\[\[\d+, 322\]\]", "[[311, 322]]", (ROOT / ledger_path(*PLACE)).read_text())
    assert path.read_text() == kept  # the kept ledger's format, byte for byte (of the shards the tree holds)
    assert cardlab(args) == 0
    assert "keeps 12 shards (311..322)" in capsys.readouterr().out


def test_keep_of_a_broken_ledger_keeps_only_valid_shards(results, capsys):
    """A shard with a table missing is not finished: the rebuilt ledger leaves it out (and says so)."""
    (results / f"redblack/redblack_found/exhaustive_k{K}/owner/shard=0315.parquet").unlink()
    put_ledger(results, "not json")
    args = ["redblack", "campaign", str(K), "--results", str(results), "--config", str(ROOT / "config.yaml")]
    assert cardlab([*args, "--keep"]) == 0
    assert "the ledger keeps 11 shards (311..314, 316..322)" in capsys.readouterr().out


def test_keep_with_nothing_to_rebuild_from_says_what_to_do(tmp_path, capsys):
    put_ledger(tmp_path, "not json")
    empty = tmp_path / "none.yaml"
    empty.write_text("{}\n")
    assert cardlab(["redblack", "campaign", str(K), "--results", str(tmp_path), "--config", str(empty), "--keep"]) == 1
    err = capsys.readouterr().err
    assert "not JSON" in err and "give --deals-per-shard" in err
    args = ["redblack", "campaign", str(K), "--results", str(tmp_path), "--config", str(empty)]
    assert cardlab([*args, "--keep", "--deals-per-shard", str(D)]) == 0
    assert read_ledger(*PLACE, GRID, str(tmp_path)).runs == ()  # no shard present: it keeps none


def test_a_good_ledger_is_added_to_not_rebuilt(results, capsys):
    put_ledger(results, body([[0, 3]]))  # shards 0..3 kept elsewhere: a campaign block recomputes them
    args = ["redblack", "campaign", str(K), "--results", str(results), "--config", str(ROOT / "config.yaml")]
    assert cardlab([*args, "--keep"]) == 0
    assert "12 shards newly kept" in capsys.readouterr().out
    assert read_ledger(*PLACE, GRID, str(results)).runs == ((0, 3), (311, 322))
    assert cardlab(args) == 0
    assert "in the ledger but not finished under" in capsys.readouterr().out


def test_record_kept_refuses_shards_off_the_grid(tmp_path):
    with pytest.raises(CardlabError, match="k = 24 has shards 0..322"):
        record_kept(*PLACE, D, [323], GRID, root=str(tmp_path))
    assert record_kept(*PLACE, D, [0, 1], GRID, root=str(tmp_path)).runs == ((0, 1),)
