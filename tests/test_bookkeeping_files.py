"""A bad bookkeeping file never stops a build (engines/core/bookkeeping.py): a timing record, a check record
line or a kept measurement that fails its schema is left out of the warehouse (the rest loads), `cardlab
verify` exits non-zero naming its path, what is wrong and the fix, and `cardlab status` says it in one line.
A ledger on another grid than its campaign's is refused naming both grids and the fix."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from bookkeeping_tree import (
    CHECKS,
    GOOD_MEASUREMENT,
    MEASUREMENT,
    TIMING,
    copy_tree,
    folder,
    inside,
    make_tree,
    rebuild,
    write,
)

from engines.campaign.book import Campaign
from engines.cli import main
from engines.core.bookkeeping import left_out, strict_json
from engines.core.layout import WAREHOUSE
from engines.core.ledger import LedgerError, kept_shards, ledger_root, read_ledger, record_kept
from engines.pipeline.bookkeeping.records import read_timing, timing_of_log
from engines.pipeline.trust.verify import verify
from engines.redblack.campaign.state import campaign_state, describe


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return make_tree(tmp_path_factory.mktemp("bookkeeping") / "tree")


@pytest.fixture
def tree(pristine, tmp_path):
    with inside(copy_tree(pristine, tmp_path / "tree")) as wd:
        yield wd


def timing_with(**fields) -> str:
    record = json.loads(Path(TIMING).read_text())
    return json.dumps({**record, **fields})


def check_with(**fields) -> str:
    record = json.loads(Path(CHECKS).read_text().splitlines()[0])
    return json.dumps({**record, **fields}) + "\n"


def measurement_with(**fields) -> str:
    metric = {**GOOD_MEASUREMENT["metrics"][0], **fields.pop("metric", {})}
    return json.dumps({**GOOD_MEASUREMENT, "metrics": [metric], **fields})


NOT_UTF8 = b'{"state": "done", "machine": "\xff\xfe"}'
DAMAGES = {
    "timing record": {
        "wrong type": lambda: timing_with(cpu_s="abc"),
        "1e300": lambda: timing_with(wall_s=1e300),
        "1e12 seconds": lambda: timing_with(wall_s=1e12),
        "NaN": lambda: timing_with(cpu_s=float("nan")),
        "Infinity": lambda: timing_with(wall_s=float("inf")),
        "negative": lambda: timing_with(work=-5),
        "a fraction of work": lambda: timing_with(work=2.5),
        "no state": lambda: json.dumps({"wall_s": 1.0}),
        "a list": lambda: "[1, 2]",
        "non-UTF-8": lambda: NOT_UTF8,
        "a folder": None,
    },
    "check record": {
        "a shard beyond the column": lambda: check_with(shard=2**40),
        "NaN CPU": lambda: check_with(cpu_s=float("nan")),
        "Infinity CPU": lambda: check_with(cpu_s=float("inf")),
        "a date that does not exist": lambda: check_with(date="2026-13-45"),
        "missing field": lambda: json.dumps({"shard": 0}) + "\n",
        "non-UTF-8": lambda: b"\xff\xfe\n",
        "a folder": None,
    },
    "measurement": {
        "wrong type": lambda: measurement_with(metric={"value": "abc"}),
        "1e300": lambda: measurement_with(metric={"value": 1e300}),
        "NaN": lambda: measurement_with(metric={"value": float("nan")}),
        "missing field": lambda: json.dumps({"bench": "b"}),
        "a date that does not exist": lambda: measurement_with(measured_on="2026-02-30"),
        "empty": lambda: "",
        "non-UTF-8": lambda: b"\xff",
        "a folder": None,
    },
}
PATHS = {"timing record": TIMING, "check record": CHECKS, "measurement": MEASUREMENT}
CASES = [(kind, damage) for kind, damages in DAMAGES.items() for damage in damages]


def damage(kind: str, how: str) -> str:
    path, make = PATHS[kind], DAMAGES[kind][how]
    if make is None:
        folder(path)
    else:
        write(path, make())
    return path


def rows(sql: str) -> list[tuple]:
    con = duckdb.connect(WAREHOUSE, read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_the_tree_as_made_is_sound_and_its_files_all_load(tree):
    rebuild()
    assert verify().ok and left_out("results") == []
    assert rows("SELECT count(*) FROM shard_timings") == [(4,)]
    assert rows("SELECT status FROM recompute_checks") == [("matched",)]
    assert rows("SELECT count(*) FROM measurements") == [(1,)]


@pytest.mark.parametrize(("kind", "how"), CASES, ids=[f"{k}: {d}" for k, d in CASES])
def test_a_bad_bookkeeping_file_is_left_out_named_by_verify_and_shown_by_status(tree, capsys, kind, how):
    path = damage(kind, how)
    rebuild()  # never stops: the rest loads
    if kind == "timing record":
        assert rows("SELECT experiment FROM shard_timings ORDER BY 1") == [
            ("basins",), ("exhaustive_k01",), ("exhaustive_k03",)
        ]  # fmt: skip
    elif kind == "check record":
        assert rows("SELECT count(*) FROM recompute_checks WHERE status = 'matched'") == [(0,)]
        assert rows("SELECT DISTINCT status FROM recompute_checks") == [("invalid",)]
    else:
        assert rows("SELECT count(*) FROM measurements") == [(0,)]
    assert rows("SELECT count(*) FROM redblack_counts") == [(3,)]  # the results themselves all load
    report = verify()
    named = [m for _, m in report.problems if path in m]
    assert not report.ok and named, report.problems
    assert "fix:" in named[0] and "\n" not in named[0]
    capsys.readouterr()
    assert main(["verify"]) == 1
    assert path in capsys.readouterr().out
    assert main(["status"]) == 0
    [line] = [ln for ln in capsys.readouterr().out.splitlines() if "left out" in ln]
    assert "1 bookkeeping file left out" in line and path in line and "cardlab verify" in line


def test_a_bad_step_record_is_no_price_and_status_names_it(tree, capsys):
    """A step's record (the warehouse's) with CPU seconds that are no number: the live view prices the step
    from its price instead, and says the record is left out."""
    step = "results/timings/warehouse.json"
    write(step, json.dumps({"state": "done", "step": "warehouse", "cpu_s": "abc", "wall_s": 1.0}))
    assert main(["status"]) == 0
    assert f"1 bookkeeping file left out: {step} (cpu_s: 'abc' is not a number)" in capsys.readouterr().out


def test_a_campaign_listing_reads_past_a_bad_timing_record(tree):
    good = campaign_state(2, "owner", "results", timing_of_log)
    assert good.timed == 1
    for text in (timing_with(cpu_s="abc"), timing_with(cpu_s=1e300), timing_with(cpu_s=-1.0)):
        write(TIMING, text)
        state = campaign_state(2, "owner", "results", timing_of_log)
        assert state.timed == 0 and state.shards[0].cpu_s is None
        assert "core-hours" not in "\n".join(describe(state, "results"))


def test_the_campaign_command_names_the_timing_records_it_read_past(tree, capsys):
    write(TIMING, timing_with(cpu_s="abc"))
    assert main(["campaign", "redblack", "2"]) == 0
    out = capsys.readouterr().out
    assert f"1 timing record left out of the CPU above (each fails its schema): {TIMING}" in out, out


def test_a_job_rewrites_a_bad_record_of_its_own(tree):
    """The fix verify names for a timing record (delete it, or let the next run write it) holds: a bad record is
    no timing to any reader, and the job's recorder writes a record that passes."""
    from engines.pipeline.bookkeeping.records import JobRecorder

    write(TIMING, timing_with(cpu_s="abc"))
    assert read_timing(TIMING) is None
    JobRecorder(TIMING, 1, 5.0).finished({"work": 1, "wall_s": 1.0, "cpu_s": 1.0, "threads": 1})
    assert read_timing(TIMING)["cpu_s"] == 1.0 and left_out("results") == []


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e400", '{"a": NaN}'])
def test_json_that_python_would_read_as_no_finite_number_is_refused(text):
    with pytest.raises(ValueError, match="not a JSON number|beyond any finite number"):
        strict_json(text)


# ----------------------------------------------------------------------------- ledgers on another grid

CAMPAIGN = Campaign(
    "redblack", "exhaustive_k09", "owner", "k = 9", 10_000, "deals", ("t",), "cardlab campaign redblack 9"
)


def test_a_ledger_on_another_grid_than_the_campaigns_is_refused_naming_both_and_the_fix(tmp_path):
    record_kept(*CAMPAIGN.place, 100, [0, 1], CAMPAIGN.grid(), root=str(tmp_path))
    assert read_ledger(*CAMPAIGN.place, CAMPAIGN.grid(100), root=str(tmp_path)).count == 2
    with pytest.raises(LedgerError) as caught:
        read_ledger(*CAMPAIGN.place, CAMPAIGN.grid(200, "config.yaml"), root=str(tmp_path))
    message = str(caught.value)
    assert "ledger/redblack/exhaustive_k09/owner.json" in message and "\n" not in message
    assert "100 deals" in message and "config.yaml has 200 deals a shard" in message
    assert "cardlab campaign redblack 9 --keep" in message and "git checkout --" in message
    with ledger_root(str(tmp_path)), pytest.raises(LedgerError, match=r"100 deals.*the block has 200.*--keep"):
        kept_shards(*CAMPAIGN.place, 200, "the block", CAMPAIGN.grid())


@pytest.mark.parametrize(
    "text",
    [
        '{"pid": 1e300, "started": 1}',
        '{"pid": "1", "started": NaN}',
        '{"pid": -4, "started": -1}',
        '{"pid": 123, "started": 1e300}',
        "[1, 2]",
        "\udcff",
        "",
    ],
)
def test_a_damaged_run_state_file_counts_as_absent(tmp_path, text):
    """The run lock's record, its refusal note and a campaign run's note go through their schemas: a bad
    one is never believed (a pid of 1e300 would end os.kill in an OverflowError) and never raises."""
    from engines.pipeline.bookkeeping import runstate

    lock = tmp_path / "cardlab-run.lock"
    lock.write_bytes(text.encode("utf-8", "surrogateescape"))
    (tmp_path / ("cardlab-run.lock" + runstate.REFUSED)).write_bytes(lock.read_bytes())
    assert runstate._lock_record(str(lock)) in {(None, None), (123, None)}
    assert runstate.run_start(str(lock)) is None
    assert runstate.refusal_of(123, 0.0, str(lock)) is None
    note = json.loads(text.replace("NaN", "0")) if text.startswith("{") else None
    (tmp_path / "cardlab-run-1.json").write_bytes(
        lock.read_bytes()
        if note is None
        else json.dumps({**note, "command": "x", "config": str(lock), "targets": []}).encode()
    )
    assert runstate.running_campaign(str(tmp_path)) is None
