"""Check records bound to the files they checked (engines/pipeline/catalog/check_records.py): a line speaks for
the data hashes it names only.  A shard forged or changed after its check, a copied line, a line for a
shard that is not kept, a string "false": each is named by plain `cardlab verify` (file:line, non-zero
exit, a fix that works) and never counted as matched by the warehouse."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import duckdb
import pytest
from test_recompute import forge
from wfhelp import bound_record

from engines.cli import main
from engines.core.layout import WAREHOUSE, check_record_path, ledger_path, manifest_of
from engines.pipeline.catalog.check_records import Kept, judge_records
from engines.pipeline.catalog.warehouse import build
from engines.pipeline.compute.jobs import run_shard
from engines.pipeline.planning.plan import load_plan
from engines.pipeline.trust.verify import verify

SMALL = """
narcotic:
  experiments:
    - {name: seed, rules: seed, games: 200, shards: 1, seed: 11}
redblack:
  exhaustive: {k_min: 1, k_max: 4, deals_per_shard: 100, method: owner}
"""
H = ("a" * 64, "b" * 64, "c" * 64)

# ----------------------------------------------------------------------------- the judge alone


def judged(tmp_path, lines, kept=None, ledger=None):
    """Statuses of ``lines`` (dicts, or raw text) written as the record of redblack e/v, against ``kept``."""
    record = Path(check_record_path("redblack", "e", "v", str(tmp_path)))
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    if ledger is not None:
        path = Path(ledger_path("redblack", "e", "v", str(tmp_path)))
        path.parent.mkdir(parents=True, exist_ok=True)
        record_ = {"game": "redblack", "experiment": "e", "variant": "v", "per_shard": 100, "shards": ledger}
        path.write_text(json.dumps(record_))
    kept = {("redblack", "e", "v", s): k for s, k in (kept or {}).items()}
    return [(j.status, j.problem) for j in judge_records(tmp_path, kept)]


def line(shard=0, **fields):
    base = {"shard": shard, "matched": True, "files": {"t": H[0]}, "engine_version": "v1"}
    return {**base, "date": "2026-12-01", "machine": "CPU", "cpu_s": 1.5, **fields}


KEPT = Kept({"t": "results/x/shard=0000.parquet"}, {"t": H[0]}, "v1")


def test_a_line_bound_to_the_files_now_is_matched_or_mismatched(tmp_path):
    got = judged(tmp_path, [line(), line(matched=False), line(recomputed={"t": H[1]})], {0: KEPT})
    assert [s for s, _ in got] == ["matched", "mismatched", "matched"]


@pytest.mark.parametrize(
    "bad",
    [
        {"matched": "false"},  # a string is no boolean (bool("false") is True)
        {"matched": 0},
        {"shard": True},  # a boolean is no integer
        {"shard": "0"},
        {"cpu_s": "1.5"},
        {"files": {"t": "not a hash"}},
        {"files": {}},
        {"date": "yesterday"},
        {"extra": 1},
    ],
)
def test_a_line_that_is_no_check_record_is_invalid(tmp_path, bad):
    [(status, problem)] = judged(tmp_path, [line(**bad)], {0: KEPT})
    assert status == "invalid" and "not a check record" in problem


def test_text_that_is_not_json_is_invalid_and_the_rest_is_still_read(tmp_path):
    no_date = {k: v for k, v in line().items() if k != "date"}
    got = judged(tmp_path, ["{not json", "", line(), no_date, "[1, 2]"], {0: KEPT})
    assert [s for s, _ in got] == ["invalid", "invalid", "matched", "invalid", "invalid"]
    assert "not JSON" in got[0][1] and "'date' is a required property" in got[3][1]


def test_a_line_for_other_bytes_or_version_is_stale_until_a_later_line_describes_the_files(tmp_path):
    unbound = {k: v for k, v in line().items() if k != "files"}
    lines = [line(files={"t": H[1]}), line(engine_version="v0"), unbound, line(files={"t": H[0], "u": H[1]})]
    got = judged(tmp_path, lines, {0: KEPT})
    assert [s for s, _ in got] == ["stale"] * 4
    assert "t changed since its check" in got[0][1] and "version v0" in got[1][1] and "unbound" in got[2][1]
    assert "u changed" in got[3][1]
    got = judged(tmp_path, [*lines, line(matched=False)], {0: KEPT})
    assert [s for s, _ in got] == ["superseded"] * 4 + ["mismatched"]
    assert got[0][1].endswith("superseded by line 5")


def test_a_line_for_a_shard_not_kept_or_not_in_the_ledger_is_an_orphan(tmp_path):
    assert judged(tmp_path, [line(shard=7)], {0: KEPT})[0][0] == "orphan"
    got = judged(tmp_path, [line(0), line(1)], {0: KEPT, 1: KEPT}, ledger=[[1, 3]])
    assert got[0] == ("orphan", "shard 0 is not in the campaign's ledger") and got[1][0] == "matched"


# ----------------------------------------------------------------------------- verify and the warehouse


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Path:
    """A small results tree in the cwd (a git repository), its warehouse, one checked kept shard."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text(SMALL)
    plan = load_plan("config.yaml")
    for s in plan:
        run_shard(s.game, dict(s.spec), s.files, inputs=plan.input_files(s), log=s.log)
    assert main(["verify", "--recompute", kept_file(2)]) == 0
    rebuild()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], check=True)
    subprocess.run(["git", "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "tree"], check=True)
    return tmp_path


def kept_file(k: int, table: str = "redblack_counts") -> str:
    return f"results/redblack/{table}/exhaustive_k{k:02d}/owner/shard=0000.parquet"


def record_of(k: int) -> Path:
    return Path(check_record_path("redblack", f"exhaustive_k{k:02d}", "owner"))


def rebuild() -> None:
    plan = load_plan("config.yaml")
    build(list(plan.files), WAREHOUSE, plan=plan.files, manifest=manifest_of(WAREHOUSE), log=open("wh.log", "w"))


def campaign(k: int) -> dict:
    con = duckdb.connect(WAREHOUSE, read_only=True)
    try:
        cur = con.execute("SELECT * FROM campaign_checks WHERE experiment = ?", [f"exhaustive_k{k:02d}"])
        return dict(zip([d[0] for d in cur.description], cur.fetchone()))
    finally:
        con.close()


def problems() -> list[str]:
    return [m for kind, m in verify().problems if kind == "check record"]


def run_fix(message: str, which: str) -> None:
    """Run the command a fix names (in backticks) that starts with ``which``."""
    cmd = next(c for c in re.findall(r"`([^`]+)`", message) if c.startswith(which))
    argv = shlex.split(cmd)
    if argv[0] == "cardlab":
        assert main(argv[1:]) == 0, cmd
    else:
        subprocess.run(argv, check=True)


def delete_line(message: str) -> None:
    m = re.search(r"delete line (\d+) of (\S+)", message)
    path = Path(m.group(2))
    lines = path.read_text().splitlines(keepends=True)
    del lines[int(m.group(1)) - 1]
    path.write_text("".join(lines))


def test_a_recompute_records_the_hashes_it_checked_and_verify_and_the_warehouse_agree(tree):
    [rec] = [json.loads(x) for x in record_of(2).read_text().splitlines()]
    assert rec["matched"] is True and set(rec["files"]) == {"redblack_counts", "redblack_found", "redblack_hist"}
    assert (
        rec["files"] == bound_record(sorted(map(str, Path("results").rglob("exhaustive_k02/*/*.parquet"))), 0)["files"]
    )
    assert set(rec["recomputed"]) == set(rec["files"])
    assert verify().ok
    c = campaign(2)
    assert (c["shards_kept"], c["shards_checked"], c["shards_matched"], c["mismatches"], c["stale"]) == (1, 1, 1, 0, 0)


def test_a_shard_forged_after_its_check_is_named_and_git_checkout_restores_it(tree):
    forge(kept_file(2))
    [p] = problems()
    assert p.startswith(f"{record_of(2)}:1: stale: shard 0: redblack_counts changed since its check"), p
    rebuild()
    c = campaign(2)
    assert (c["shards_checked"], c["shards_matched"], c["stale"]) == (0, 0, 1)
    assert main(["verify"]) == 1
    run_fix(p, "git checkout")
    rebuild()
    assert verify().ok and campaign(2)["shards_matched"] == 1


def test_a_shard_changed_after_its_check_is_named_until_checked_again(tree):
    """The shard recomputed since (same rows: here its check record is an old, unbound one) is stale,
    and the fix named, `cardlab verify --recompute`, checks it anew: the old line is superseded."""
    rec = json.loads(record_of(2).read_text())
    record_of(2).write_text(json.dumps({k: v for k, v in rec.items() if k not in ("files", "recomputed")}) + "\n")
    [p] = problems()
    assert f"{record_of(2)}:1: stale: shard 0: unbound" in p
    run_fix(p, "cardlab verify --recompute")
    assert problems() == []
    rebuild()
    c = campaign(2)
    assert (c["shards_matched"], c["stale"], c["superseded"]) == (1, 0, 1)


@pytest.mark.parametrize("case", ["copied", "missing shard", "string false", "mismatched"])
def test_a_line_that_does_not_describe_a_kept_match_is_named_and_deleting_it_fixes_it(tree, case):
    rec = json.loads(record_of(2).read_text())
    if case == "copied":  # k = 2's line copied into k = 3's record: other bytes
        target, bad, status = record_of(3), rec, "stale"
    elif case == "missing shard":
        target, bad, status = record_of(2), {**rec, "shard": 5}, "orphan"
    elif case == "string false":
        target, bad, status = record_of(2), {**rec, "matched": "false"}, "invalid"
    else:
        target, bad, status = record_of(2), {**rec, "matched": False}, "mismatched"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "a") as fh:
        fh.write(json.dumps(bad) + "\n")
    n = len(target.read_text().splitlines())
    [p] = problems()
    assert p.startswith(f"{target}:{n}: {status}: "), p
    rebuild()
    k = 3 if case == "copied" else 2
    c = campaign(k)
    assert c["shards_matched"] == (1 if k == 2 and case != "mismatched" else 0)
    assert c[{"stale": "stale", "orphan": "orphans", "invalid": "invalid", "mismatched": "mismatches"}[status]] == 1
    assert main(["verify"]) == 1
    delete_line(p)
    rebuild()
    assert verify().ok


def test_a_line_for_a_place_with_no_kept_campaign_shows_as_an_orphan(tree):
    path = Path(check_record_path("redblack", "exhaustive_k09", "owner"))
    path.parent.mkdir(parents=True)
    path.write_text(record_of(2).read_text())
    [p] = problems()
    assert p.startswith(f"{path}:1: orphan: shard 0 has no kept file")
    rebuild()
    c = campaign(9)
    assert (c["shards_kept"], c["shards_checked"], c["orphans"]) == (0, 0, 1)


def test_the_warehouse_is_not_current_once_a_shards_bytes_change(tree):
    plain = next(p for p in load_plan("config.yaml").files if "/narcotic/" in p and "narcotic_games" in p)
    forge(plain)
    report = verify()
    assert [k for k, _ in report.problems] == ["warehouse"], report.problems
    assert "out of date (1 shard(s) not in it, 1 it should not hold)" in report.problems[0][1]
    rebuild()
    assert verify().ok
    # a line added to a check record since the build: the warehouse's count of checks is out of date
    assert main(["verify", "--recompute", kept_file(3)]) == 0
    assert [m for _, m in verify().problems] == [
        f"{WAREHOUSE}: out of date (its check records differ from results/checks/ now); rerun `snakemake --cores all`"
    ]
