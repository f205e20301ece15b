"""The live view (engines/pipeline/progress/: model, costs, view): a pure function of a snapshot, replayed on a recorded campaign.

tests/data/live_campaign.json is a real small run (tests/live_recording.py records one):
the plan, when each shard file appeared, each log line with the time it was written, and
the poll times.  Its end (the last shard file) is the known answer for the ETA.
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import replace
from pathlib import Path

import live_recording
import pytest

from engines.core.fmt import count
from engines.core.prices import run_price
from engines.core.progress import Progress
from engines.pipeline.bookkeeping.records import RecordFile, read_shard_record
from engines.pipeline.commands.view import eta_text, view
from engines.pipeline.compute.jobs import timing
from engines.pipeline.progress.costs import (
    PRIOR_CPU_S,
    PRIOR_JOBS,
    PRIOR_WEIGHT,
    UNESTIMATED_S,
    finishing,
    priced,
    rates_of,
    slowdown,
    step_cpu_s,
    step_slowdown,
)
from engines.pipeline.progress.model import ETA_DRIFT_S, PlannedShard, Shown, Snapshot, model, shard_states, smoothed

FIXTURE = Path(__file__).parent / "data" / "live_campaign.json"


def shard(
    game="narcotic", kind="sim", exp="seed", n=0, work=1000, unit="games", main=True, follows=False
) -> PlannedShard:
    return PlannedShard(
        game, kind, exp, "v", n, work, unit, main, (f"{game}/{exp}/{n}.parquet",), f"{game}/{exp}/{n}.log", follows
    )


STARTED = {"state": "running", "started": 0.0, "threads": 1}  # what a job's record says once it starts


def started(mtime: float) -> RecordFile:
    """A job's record once it has started, before its first reading (imports, compiling kernels)."""
    return RecordFile(json.dumps(STARTED), mtime)


def finished_log(s: PlannedShard, wall_s: float, mtime: float = 50.0) -> RecordFile:
    return timed_log(s, wall_s, wall_s, mtime)


def timed_log(s: PlannedShard, wall_s: float, cpu_s: float, mtime: float = 50.0, **fields) -> RecordFile:
    measured = timing({"work": s.work}, s.unit, wall_s, cpu_s, 1) | fields
    return RecordFile(json.dumps({"state": "done", **measured}), mtime)


def reading(s: PlannedShard, done: int, elapsed: float, total: int | None = None) -> dict:
    """The reading a job's Progress hands its record ``elapsed`` seconds in, ``done`` units of ``total`` done."""
    p = Progress(total or s.work, s.unit, label=f"{s.game} {s.experiment}/{s.variant}/{s.shard}", enabled=False)
    p.done = done
    return p.reading(p._start + elapsed)._asdict()


def running(s: PlannedShard, done: int, elapsed: float, mtime: float, total: int | None = None) -> RecordFile:
    """A job's record under way: its latest reading."""
    return RecordFile(json.dumps({**STARTED, "reading": reading(s, done, elapsed, total)}), mtime)


def snap(plan, files=(), logs=None, alive=True, now=100.0, units=None, run_started=None) -> Snapshot:
    """A snapshot; without ``run_started`` no start-up is measured (the jobs' timed work alone)."""
    units = units or {p.game: p.unit for p in plan if p.main}
    return Snapshot(tuple(plan), units, frozenset(files), logs or {}, alive, now, run_started=run_started)


def test_a_reading_says_what_its_line_says_with_units_of_several_words():
    p = Progress(360, "upcard tables", label="blackjack exact/all/0", enabled=False)
    p.done = 120
    r = p.reading(p._start + 4.0)
    assert (r.done, r.total, r.unit, r.rate, r.elapsed_s) == (120, 360, "upcard tables", 30.0, 4.0)
    assert p.line(p._start + 4.0).endswith(": 120/360 upcard tables (33.3%), 30 upcard tables/s, elapsed 4 s, ETA 8 s")


def test_a_new_shard_writes_its_first_progress_line_and_reading_early():
    out, readings = io.StringIO(), []
    p = Progress(100, "games", stream=out, every_s=10.0, first_s=0.0, on_reading=readings.append)
    p.update(1)
    assert "1/100 games" in out.getvalue() and [r.done for r in readings] == [1]


def test_singular_counts():
    assert (count(1, "basin jobs"), count(2_000, "deals"), count(1, "shards")) == (
        "1 basin job",
        "2,000 deals",
        "1 shard",
    )


def test_a_shard_that_prints_no_progress_gets_its_rate_from_finished_ones():
    """Narcotic plays a shard in one kernel call: its rate comes from the timing records of finished shards."""
    a, b = shard(n=0), shard(n=1)
    frame = view(snap([a, b], files=a.files, logs={a.log: finished_log(a, 2.0), b.log: started(99.0)}))
    game = frame.lines[1]
    assert "50.0 % of 2,000 games (1/2 shards, 1 running), 500 games/s" in game, frame.lines
    assert "ETA about 1 s" in frame.lines[0], frame.lines


def test_no_rate_is_shown_as_zero_and_an_unmeasured_kind_is_priced_and_named():
    """Nothing measured: the shard is priced at UNESTIMATED_S (its kind gives no estimate), less the second
    it has run, and the kind is named as priced by an estimate."""
    a = shard()
    frame = view(snap([a], logs={a.log: started(99.0)}))
    assert "starting (imports, compiling kernels)" in frame.lines[1] and " 0 games/s" not in frame.lines[1]
    assert f"ETA about {UNESTIMATED_S - 1:.0f} s (estimated: narcotic sim not yet measured)" in frame.lines[0]


def test_a_follow_up_job_not_yet_measured_is_named_beside_the_eta():
    """RedBlack's basin job runs after every search: the ETA of the rest is shown, the basin named beside it."""
    a = shard("redblack", "exhaustive", "exhaustive_k12", 0, 1000, "deals")
    b = shard("redblack", "basin", "basins", 0, 1, "basin jobs", main=False)
    logs = {a.log: running(a, 500, 5.0, 100.0)}
    frame = view(snap([a, b], logs=logs, units={"redblack": "deals"}))
    # 500 deals left at 100/s, then the basin job at UNESTIMATED_S
    assert f"ETA about {5 + UNESTIMATED_S:.0f} s (estimated: redblack basin not yet measured)" in frame.lines[0]


def test_a_group_is_measured_apart_from_the_others():
    """Classic's own progress prices classic's work, not the seed group's faster rate."""
    s0, s1, c0 = shard(exp="seed"), shard(exp="seed", n=1), shard(exp="classic")
    logs = {s0.log: finished_log(s0, 1.0), c0.log: running(c0, 100, 10.0, 100.0)}
    frame = view(snap([s0, s1, c0], files=s0.files, logs=logs))
    # seed: 1,000 games at 1,000/s; classic: 900 left at 10/s, on the one job running: 90 s (+1 s)
    assert "ETA about 1 min 31 s" in frame.lines[0], frame.lines
    est = model(snap([s0, s1, c0], files=s0.files, logs=logs)).estimate  # the same in numbers
    assert (est.done, est.total, est.parallel, est.unmeasured) == (1, 3, 1, [])
    assert est.seconds == pytest.approx(91.0) and est.job_seconds == pytest.approx(91.0)


def test_a_group_not_started_takes_its_kinds_rate_and_an_unmeasured_kind_its_estimate():
    """Classic takes seed's 500 games/s (2 s); Blackjack, never measured, its kind's estimate of 20 CPU-s."""
    s0, c0 = shard(exp="seed"), shard(exp="classic")
    logs = {s0.log: finished_log(s0, 2.0, mtime=100.0)}
    frame = view(snap([s0, c0], files=s0.files, logs=logs, now=100.0))
    assert "ETA about 2 s" in frame.lines[0], frame.lines
    bj = replace(shard("blackjack", "sim", "fresh", 0, 5000, "hands"), estimate_s=20.0)
    frame = view(snap([s0, c0, bj], files=s0.files, logs=logs, units={"narcotic": "games", "blackjack": "hands"}))
    assert "ETA about 22 s (estimated: blackjack sim not yet measured)" in frame.lines[0], frame.lines


def test_estimates_are_scaled_by_what_this_machine_measured_against_them():
    """Seed's shard took 2 s where its kind estimated 1: the machine runs at twice the estimates, a ratio
    counted beside PRIOR_WEIGHT times the estimates' own (1): Blackjack's 20 CPU-s are priced 20 x 2^(1/3) s.
    Classic, priced by its kind's one measurement (a first job may have compiled), takes the faster of
    that (2 s) and its own estimate at the scale (2^(1/3) s)."""
    s0, c0 = replace(shard(exp="seed"), estimate_s=1.0), replace(shard(exp="classic"), estimate_s=1.0)
    bj = replace(shard("blackjack", "sim", "fresh", 0, 5000, "hands"), estimate_s=20.0)
    logs = {s0.log: finished_log(s0, 2.0, mtime=100.0)}
    m = model(snap([s0, c0, bj], files=s0.files, logs=logs, units={"narcotic": "games", "blackjack": "hands"}))
    scale = 2 ** (1 / (1 + PRIOR_WEIGHT))
    assert m.estimate.seconds == pytest.approx(1.0 * scale + 20.0 * scale)
    assert m.estimate.unmeasured == [("blackjack", "sim")]


@pytest.mark.parametrize(("follows", "eta"), [(True, "ETA about 1 min 28 s"), (False, "ETA about 19 s")])
def test_where_cost_follows_the_shard_a_shard_left_is_priced_by_its_neighbours(follows, eta):
    """A RedBlack campaign did its cheap high ranks first: shard 0 ran at 10 deals/s, shard 4 at 160.
    Shards 1..3 run at 20, 40 and 80 by geometric interpolation: 50 + 25 + 12.5 s for their 1,000 deals
    each, 87.5 s.  By the group's mean they would take 3 x 6.25 s (the slow shard even left out, as a
    first job's compile would be)."""
    plan = [shard("redblack", "exhaustive", "exhaustive_k21", n, 1000, "deals", follows=follows) for n in range(5)]
    logs = {plan[0].log: finished_log(plan[0], 100.0), plan[4].log: finished_log(plan[4], 6.25)}
    frame = view(snap(plan, files=plan[0].files + plan[4].files, logs=logs))
    assert eta in frame.lines[0], frame.lines


def test_a_running_shard_whose_cost_follows_the_shard_is_priced_by_its_own_progress():
    plan = [shard("redblack", "exhaustive", "exhaustive_k21", n, 1000, "deals", follows=True) for n in range(3)]
    logs = {
        plan[0].log: finished_log(plan[0], 100.0),
        plan[1].log: running(plan[1], 500, 10.0, 100.0),
    }
    frame = view(snap(plan, files=plan[0].files, logs=logs))
    # shard 1 at its own 50 deals/s; shard 2, beyond the measured ones, at shard 1's
    assert "50 deals/s" in frame.lines[1] and "ETA about 30 s" in frame.lines[0], frame.lines
    m = frame.model
    assert m.games[0].main.rate == pytest.approx(50.0) and m.games[0].main.work_done == pytest.approx(1500.0)
    assert m.estimate.seconds == pytest.approx(30.0) and m.eta_s == pytest.approx(30.0)


def test_the_time_jobs_spend_outside_their_computation_is_measured_and_counted():
    """Two jobs of the run took 10 s each, 1 s of it timed; the first computed from 9 s, so from 9 s less a
    job's start-up (run_price("job_start") on an idle machine: slowdown 1) the core spent 20 - 9 + start-up - 2 s
    outside the timed work: with PRIOR_JOBS jobs at the start-up's price, each job costs (2 x start-up + that)
    / 4 beyond its work, and the two left 1 s of work each beside it."""
    assert PRIOR_JOBS == 2
    start = run_price("job_start")
    each = (2 * start + (20 - 9 + start - 2)) / 4
    plan = [shard(n=n) for n in range(4)]
    logs = {plan[0].log: finished_log(plan[0], 1.0, mtime=10.0), plan[1].log: finished_log(plan[1], 1.0, mtime=20.0)}
    idle = replace(snap(plan, files=plan[0].files + plan[1].files, logs=logs, now=20.0, run_started=0.0), load=1.0)
    m = model(idle)
    assert m.estimate.slowdown == 1.0 and m.estimate.seconds == pytest.approx(2 * (1 + each))
    # a batch is one job: the two shards left, sharing one, pay one start-up
    batched = [replace(p, job="narcotic_shard_seed_batch1") if p.shard >= 2 else p for p in plan]
    m = model(replace(idle, plan=tuple(batched)))
    assert m.estimate.seconds == pytest.approx(2 + each)


def test_the_machine_s_slowdown_is_the_cpu_weighted_median_of_this_run_s_jobs():
    """Jobs at 5, 1 and 3 wall seconds per CPU second (2, 4 and 3 CPU-s): the median of the 9 CPU-s is 3,
    drawn towards the prior (the load per CPU, 1 here) by PRIOR_CPU_S; a job that waited 14 times its CPU
    (another's compilation) on a fraction of a second moves nothing; an earlier run's jobs count only until
    this run has some."""
    plan = [shard(n=n) for n in range(6)]
    logs = {
        plan[0].log: timed_log(plan[0], 10.0, 2.0),
        plan[1].log: timed_log(plan[1], 4.0, 4.0),
        plan[2].log: timed_log(plan[2], 9.0, 3.0),
        plan[3].log: timed_log(plan[3], 14.0, 1.0),
        plan[4].log: timed_log(plan[4], 100.0, 1.0, mtime=-50.0),  # an earlier run's
    }
    now = replace(snap(plan, logs=logs, run_started=0.0), load=0.5)
    expected = (PRIOR_CPU_S * 1.0 + 3.0 * 10.0) / (PRIOR_CPU_S + 10.0)
    assert slowdown(shard_states(now), now) == pytest.approx(expected)
    earlier = {plan[4].log: logs[plan[4].log]}
    before = replace(now, logs=earlier, load=4.0)  # none of this run's yet: the earlier run's, towards the load
    assert slowdown(shard_states(before), before) == pytest.approx((PRIOR_CPU_S * 4.0 + 100.0) / (PRIOR_CPU_S + 1.0))
    assert slowdown(shard_states(replace(before, logs={})), replace(before, logs={})) == 4.0


def test_the_steps_after_the_shards_are_priced_by_their_timing_lines_at_the_machine_s_slowdown():
    """A warehouse, two reports side by side on two cores and the index: their CPU seconds (the logs' where
    they have timing records, else their prices) stretched by the machine's slowdown for the step processes
    at once, then Snakemake's end; the first of them credited the time it has been under way."""
    a = shard()
    steps = ("warehouse", "report", "report", "index")
    base = snap([a], files=a.files, logs={a.log: timed_log(a, 2.0, 1.0)}, run_started=0.0)
    base = replace(base, load=2.0, cores=2, steps=steps)
    slow = 2.0  # the job's and the load's alike: two jobs took 2 wall s a CPU s, so 2 CPUs were busy elsewhere
    alone, two = (1 + 2) / 2, (2 + 2) / 2
    assert step_slowdown(slow, 2, 1) == alone and step_slowdown(slow, 2, 2) == two
    assert step_slowdown(1.0, 2, 1) == run_price("step_wait")  # an idle machine: the steps' own waits
    priced = replace(base, step_cpu={"warehouse": 2.0, "report": 1.0})
    expected = 2.0 * alone + 1.0 * two + run_price("index") * alone + run_price("snakemake_end") * slow
    assert finishing(priced, slow) == pytest.approx(expected)
    assert finishing(base, slow) > finishing(priced, slow)  # the warehouse's price, measured dearer
    under_way = replace(priced, steps_since=priced.now - 3.0)
    assert finishing(under_way, slow) == pytest.approx(finishing(priced, slow) - 3.0)
    m = model(priced)
    assert m.estimate.slowdown == pytest.approx(slow) and m.estimate.seconds == pytest.approx(finishing(priced, slow))


def test_the_warehouse_is_priced_by_the_files_it_reads_until_its_log_says():
    """Before any warehouse log of this run or an earlier one, its CPU seconds grow with the planned shard
    files it loads (the default config's 3,275 cost about 11 CPU-s, a small config's 55 about 3)."""
    small = snap([shard(n=i) for i in range(3)])
    large = snap([shard(n=i) for i in range(3000)])
    assert step_cpu_s(small, "warehouse") == pytest.approx(run_price("warehouse") + 3 * run_price("warehouse_file"))
    assert step_cpu_s(large, "warehouse") == pytest.approx(run_price("warehouse") + 3000 * run_price("warehouse_file"))
    assert 10 < step_cpu_s(large, "warehouse") < 11
    assert step_cpu_s(replace(large, step_cpu={"warehouse": 4.0}), "warehouse") == 4.0  # measured: its own
    assert step_cpu_s(large, "report") == run_price("report")


def test_kernels_no_job_has_loaded_are_priced_by_their_kind_s_compilation():
    """RedBlack's brute force and owner rule compile apart: the owner rule's kernels, loaded by a finished
    job, cost nothing more; the brute force's, never run here, their kind's measured compilation, in
    their first job (one job cannot be spread); once that job runs, what is left of it after its time."""
    from engines.registry import engine

    kinds = {k.name: k for k in engine("redblack").kinds}
    brute, owner = ({"method": m, "work": 1000} for m in ("brute", "owner"))
    exhaustive = kinds["exhaustive"]
    assert exhaustive.schedule({}, brute).kernels != exhaustive.schedule({}, owner).kernels
    compile_s = exhaustive.schedule({}, brute).compile_cpu_s
    assert compile_s > 5 and kinds["sample"].schedule({}, {"work": 1}).compile_cpu_s < compile_s

    def search(method: str, n: int) -> PlannedShard:
        s = shard("redblack", "exhaustive", f"exhaustive_k{n:02d}", 0, 1000, "deals")
        return replace(
            s, kernels=method, compile_s=exhaustive.schedule({}, {"method": method, "work": 1000}).compile_cpu_s
        )

    done, left = search("owner", 26), search("brute", 1)
    logs = {done.log: timed_log(done, 1.0, 1.0, mtime=1.0)}
    idle = replace(snap([done, left], files=done.files, logs=logs, now=10.0, run_started=0.0), load=1.0)
    m = model(idle)
    assert m.estimate.job_seconds == pytest.approx(1.0 + m.estimate.slowdown * compile_s + start_up(m, idle), rel=1e-6)
    assert m.estimate.seconds >= compile_s  # its first job: no core shares it
    begun = {**logs, left.log: started(6.0)}  # compiling for 4 s, no progress yet
    m = model(replace(idle, logs=begun))
    assert m.estimate.job_seconds == pytest.approx(m.estimate.slowdown * compile_s + 1.0 - 4.0, rel=1e-6)


def start_up(m, s: Snapshot) -> float:
    """A job's start-up as the model measures it (job_overhead) for the one job left."""
    from engines.pipeline.progress.costs import job_overhead

    return job_overhead(shard_states(s), s, m.estimate.parallel, m.estimate.slowdown)


def test_a_batch_job_under_way_starts_no_other_job_for_its_shards():
    """Three small shards share one job; its first runs: the two waiting ones pay no start-up of their own."""
    plan = [replace(shard(n=n), job="narcotic_shard_seed_batch1") for n in range(3)]
    logs = {plan[0].log: running(plan[0], 500, 1.0, 99.0)}
    m = model(replace(snap(plan, logs=logs, run_started=0.0), load=1.0))
    # the running one's 500 games left at 500/s, less the second since its line; then 2 x 1000 games
    assert m.estimate.job_seconds == pytest.approx(0.0 + 2 * 2.0)


def test_the_head_names_what_is_running():
    """`cardlab run` names itself; a run found going here (`cardlab status`) is a snakemake run; a stopped
    command says so, and the campaign on disk is the campaign."""
    a = shard()
    logs = {a.log: running(a, 500, 1.0, 99.0)}
    going = snap([a], logs=logs, now=100.0)
    assert view(going, running="cardlab run").lines[0].startswith("cardlab run: 0/1 shards done, ETA about")
    assert view(going).lines[0].startswith("snakemake run: 0/1 shards done, ETA about")
    stopped = replace(going, alive=False)
    assert view(stopped, running="cardlab run").lines[0].startswith("cardlab run stopped: 0/1 shards done")
    assert view(stopped).lines[0].startswith("cardlab campaign not running: 0/1 shards done")
    assert not view(stopped).going and view(going).going


def test_an_empty_log_is_a_job_that_has_started():
    a = shard()
    frame = view(snap([a], logs={a.log: RecordFile("", 90.0)}))
    assert "(0/1 shard, 1 running), starting (imports, compiling kernels)" in frame.lines[1], frame.lines


def test_attempts_of_a_record_are_told_apart(tmp_path):
    """A job's attempt writes its record anew (engines/pipeline/bookkeeping/records.py): the attempt under way is its
    progress, and the timing of an attempt that finished before it stays."""
    from engines.pipeline.bookkeeping.records import JobRecorder, read_record

    s = shard(work=1000)
    path = tmp_path / "shard.json"
    first = JobRecorder(path, 1, 0.0)
    first.reading(Progress(1000, "games", enabled=False).reading()._replace(done=400, rate=100.0))
    record = read_record(path)
    assert read_shard_record(record.text, 5.0, s.work).progress.work == 400
    JobRecorder(path, 1, 1.0)  # a new attempt: nothing done yet in it, the old one was never timed
    log = read_shard_record(read_record(path).text, 9.0, s.work)
    assert log.unfinished and log.progress is None and log.finished is None
    first.finished(timing({"work": 1000}, "games", 4.0, 4.0, 1))
    JobRecorder(path, 1, 2.0)  # a rerun of a finished shard: its last timing prices it meanwhile
    log = read_shard_record(read_record(path).text, 9.0, s.work)
    assert log.unfinished and log.progress is None and log.finished.seconds == 4.0
    # a basin job counts cycles of its own total: scaled to the spec's work
    b = shard("redblack", "basin", "basins", 0, 1, "basin jobs", main=False)
    log = read_shard_record(running(b, 3, 6.0, 9.0, total=4).text, 9.0, b.work)
    assert log.progress.work == pytest.approx(0.75)


def test_an_interrupted_campaign_reads_as_such():
    a, b = shard(n=0), shard(n=1)
    logs = {a.log: finished_log(a, 2.0), b.log: running(b, 300, 3.0, 60.0)}
    frame = view(snap([a, b], files=a.files, logs=logs, alive=False))
    head = frame.lines[0]
    assert head.startswith("cardlab campaign not running: 1/2 shards done, 1 interrupted"), head
    # the slower of two measurements (a first job compiles) is left out: 700 games left at 500/s
    assert (
        "about 1 s of one job's time left" in head
        and "65.0 % of 2,000 games (1/2 shards, 1 interrupted)" in frame.lines[1]
    )


def test_a_shown_eta_counts_down_unless_the_estimate_moves_past_the_margin():
    """Within the margin the shown ETA counts down and drifts towards the estimate (by 1 - e^(-t/5 s) of the
    gap); beyond it, the estimate is shown."""
    before = Shown(100.0, at=0.0)
    assert smoothed(90.0, before, now=10.0) == 90.0  # the estimate agrees with the count-down
    drifted = smoothed(80.0, before, now=10.0)  # counted down to 90, the estimate 10 s below it
    assert drifted == pytest.approx(90.0 - 10.0 * (1 - math.exp(-10.0 / ETA_DRIFT_S))) and 80 < drifted < 90
    assert smoothed(80.0, before, now=0.5) >= 99.5 - 0.1 * 19.5  # half a second on: a tenth of the gap at most
    assert smoothed(200.0, before, now=10.0) == 200.0
    assert smoothed(None, before, now=10.0) is None


# ----------------------------------------------------------------------------- the recorded campaign


@pytest.fixture(scope="module")
def recording():
    return live_recording.load(FIXTURE)


@pytest.fixture(scope="module")
def replay(recording):
    """(time, snapshot, model) of every recorded poll, each model fed the one before: numbers, no words."""
    out, shown = [], None
    for t, s in live_recording.frames(recording):
        m = model(s, shown)
        shown = m.shown
        out.append((t, s, m))
    return out


def left(s: Snapshot) -> bool:
    return not all(f in s.files for p in s.plan for f in p.files)


def test_the_recording_is_a_real_campaign(recording, replay):
    games = {s["game"] for s in recording["plan"]}
    assert games == {"narcotic", "redblack", "blackjack"} and len(recording["plan"]) >= 20
    t, s, m = replay[-1]
    assert not s.alive and m.all_done and m.eta_s is None
    assert (m.done, m.total) == (len(recording["plan"]), len(recording["plan"]))
    assert len(replay) >= 30


def test_replay_no_zero_rate_while_work_progresses(replay):
    for _t, _s, m in replay:
        for g in m.games:
            assert g.main.rate >= 0
            if g.main.running and not g.main.unrated:
                assert g.main.rate > 0, g


def test_replay_units_never_mixed(recording, replay):
    """Each game's main tally is the work of its main unit's shards only."""
    main_work = {}
    for s in recording["plan"]:
        if s["main"]:
            main_work[s["game"]] = main_work.get(s["game"], 0) + s["work"]
    for _t, _s, m in replay:
        assert {g.game: (g.main.work, g.main.unit) for g in m.games} == {
            game: (work, recording["units"][game]) for game, work in main_work.items()
        }
        for g in m.games:
            assert all(k.unit != g.main.unit for k in g.others.values())


def test_replay_100_percent_only_when_every_shard_of_the_game_is_done(replay):
    for _t, s, m in replay:
        for g in m.games:
            done = all(f in s.files for p in s.plan if p.game == g.game for f in p.files)
            assert (g.percent == 100.0) == done, g
            assert 0.0 <= g.percent <= 100.0


def test_replay_the_view_says_what_the_model_counts(replay):
    """A few frames in words: the renderer puts the model's numbers into the lines, nothing else."""
    shown = None
    for _t, s, m in replay[:: max(1, len(replay) // 5)]:
        frame = view(s, shown)
        head = frame.lines[0]
        assert f": {m.done}/{m.total} shards done" in head, head
        if frame.model.eta_s is not None:
            assert eta_text(frame.model.eta_s, frame.model.estimate) in head
        games = [line for line in frame.lines[1:] if not line.startswith(("  starting:", "  set-up:"))]
        for g, line in zip(frame.model.games, games, strict=False):
            assert line.startswith(f"  {g.game:<10} {g.percent:5.1f} % of {count(int(g.main.work), g.main.unit)}")


def test_the_live_view_validates_the_config_again_only_when_a_config_file_changes(tmp_path, monkeypatch):
    # it redraws every second: validating the config each time cost a third of a CPU-second a frame
    import os

    from engines.pipeline.planning import config as config_module
    from engines.pipeline.progress import snapshot as status

    cfg = tmp_path / "config.yaml"
    cfg.write_text("blackjack:\n  exact:\n    decks: [1]\n    soft17: [stand]\n    peek: ['no']\n")
    calls = []
    real = config_module.read_config
    monkeypatch.setattr(config_module, "read_config", lambda paths: calls.append(paths) or real(paths))
    first = status.cached_plan(str(cfg), str(tmp_path / "results"))
    assert status.cached_plan(str(cfg), str(tmp_path / "results")) is first
    assert len(calls) == 1
    cfg.write_text(cfg.read_text().replace("decks: [1]", "decks: [1, 2]"))
    os.utime(cfg, ns=(os.stat(cfg).st_mtime_ns + 10**9,) * 2)
    second = status.cached_plan(str(cfg), str(tmp_path / "results"))
    assert len(calls) == 2 and second is not first


def test_a_campaign_moved_to_another_kind_of_cpu_is_priced_by_the_latest_kind():
    """Shards 0 and 4 of a campaign ran on an old CPU (100 and 6.25 s for 1,000 deals); shard 3 then ran on a
    new one 4 times faster (3.125 s where the old took 12.5).  Shards 1 and 2 are priced from the new kind's
    shard 3 alone (beyond the measured ones: its 320 deals/s): 2 x 3.125 s, not interpolated from the old
    shard 0; a log that records no kind counts as another kind."""
    plan = [shard("redblack", "exhaustive", "exhaustive_k21", n, 1000, "deals", follows=True) for n in range(5)]

    def on(s: PlannedShard, wall_s: float, machine: str | None, mtime: float) -> RecordFile:
        return timed_log(s, wall_s, wall_s, mtime, machine=machine)

    logs = {
        plan[0].log: on(plan[0], 100.0, "Old CPU (x86_64, family 23, model 1)", 10.0),
        plan[4].log: on(plan[4], 6.25, None, 20.0),
        plan[3].log: on(plan[3], 3.125, "New CPU (x86_64, family 25, model 1)", 30.0),
    }
    files = plan[0].files + plan[3].files + plan[4].files
    frame = view(snap(plan, files=files, logs=logs))
    assert "ETA about 6 s" in frame.lines[0], frame.lines
    # the same logs with no kind recorded anywhere: every shard counts, as before: shards 1 and 2 interpolated
    # between shard 0's 10 deals/s and shard 3's 320 (31.7 and 101 deals/s: 31.5 + 9.9 s)
    logs = {k: RecordFile(re.sub(r'"machine": "[^"]*"', '"machine": null', v.text), v.mtime) for k, v in logs.items()}
    frame = view(snap(plan, files=files, logs=logs))
    assert "ETA about 41 s" in frame.lines[0], frame.lines


def test_a_cpu_campaign_moved_to_a_gpu_is_priced_at_the_gpu_s_rate_from_its_first_reading():
    """Shards 2..5 of a campaign ran on a CPU from the top (100 s for 1,000 deals each); shard 0 now runs on a
    GPU from the bottom, which its record names from its start (engines/pipeline/compute/jobs.py), and has
    read 500 deals in 0.5 s.  The rest (its 500 and shard 1's 1,000) is priced at the GPU's 1,000 deals/s:
    1.5 s, not with shard 1 between the GPU's rate and the CPU's (about 10 s), as it would be until a GPU
    shard finished."""
    plan = [shard("redblack", "exhaustive", "exhaustive_k24", n, 1000, "deals", follows=True) for n in range(6)]
    logs = {s.log: timed_log(s, 100.0, 100.0, 10.0 + s.shard, machine="A CPU (x86_64)") for s in plan[2:]}
    gpu = {
        **STARTED,
        "machine": "NVIDIA H200 (gpu, numba-cuda)",
        "device_id": "0",
        "reading": reading(plan[0], 500, 0.5),
    }
    logs[plan[0].log] = RecordFile(json.dumps(gpu), 99.9)
    files = [f for s in plan[2:] for f in s.files]
    m = model(snap(plan, files=files, logs=logs))
    assert m.estimate.job_seconds == pytest.approx(1.4, rel=0.05)  # less the 0.1 s since its reading
    assert m.states[0].log.running_on == "NVIDIA H200 (gpu, numba-cuda)" and m.states[0].log.finished is None


def test_shards_whose_cost_follows_the_shard_are_interpolated_within_their_variant():
    """A RedBlack size's cost windows and their start-up probes number their shards apart: window 0, running
    with no progress line yet, is priced by window 1 (1,000 deals in 1 s), not by probe 0 (its 100 deals
    took 10 s: it compiled the kernels)."""
    windows = [
        replace(shard("redblack", "cost_window", "exhaustive_k23_windows", n, 1000, "deals", follows=True), variant=v)
        for v, n in (("startup", 0), ("owner", 0), ("owner", 1))
    ]
    probe, window, measured = (
        replace(w, files=(f"{w.variant}/{w.shard}.parquet",), log=f"{w.variant}/{w.shard}.log") for w in windows
    )
    probe = replace(probe, work=100)
    logs = {
        probe.log: finished_log(probe, 10.0),
        measured.log: finished_log(measured, 1.0),
        window.log: started(99.0),
    }
    m = model(snap([probe, window, measured], files=probe.files + measured.files, logs=logs))
    # its 1,000 deals at window 1's 1,000 deals/s, less the second it has run (at the probe's 10/s: 99 s)
    assert m.estimate.job_seconds == pytest.approx(0.0)


def test_a_window_none_of_whose_variant_is_measured_is_priced_by_its_estimate_not_by_the_probes():
    """Before any cost window of a size is measured, only its start-up probes are (100 deals in 10 s each,
    compiling): the windows' 10^6 deals are priced by their kind's estimate, not at the probes' 10 deals a
    second (a day of job-seconds for a batch that took 28 s)."""
    probes = [
        replace(
            shard("redblack", "cost_window", "exhaustive_k26_windows", n, 100, "deals", follows=True),
            variant="startup",
            estimate_s=0.01,
        )
        for n in range(2)
    ]
    window = replace(
        shard("redblack", "cost_window", "exhaustive_k26_windows", 0, 10**6, "deals", follows=True),
        variant="owner",
        estimate_s=0.2,
    )
    plan = [replace(p, files=(f"p/{p.shard}.parquet",), log=f"p/{p.shard}.log") for p in probes] + [window]
    logs = {p.log: finished_log(p, 10.0) for p in plan[:2]}
    states = shard_states(snap(plan, files=plan[0].files + plan[1].files, logs=logs))
    rates = rates_of(states)
    assert rates[0] == rates[1] == pytest.approx(10.0) and rates[2] is None
    window_rate = priced(states, rates)[2]
    assert window.work / window_rate < 10 * 0.2 * 4  # its estimate at this machine's scale, at most 4 times


def test_beyond_its_measured_shards_a_size_s_windows_follow_the_cost_shape_of_the_sizes_measured():
    """Windows cost less the higher their ranks: a size measured whole (rates 1, 2, 4, 8 deals/s by quarter)
    gives the shape; another size with only its first window measured (1 deal/s) prices its last window at
    about 8 deals/s, not at the first one's rate; between measured windows, interpolation as before."""

    def windows(exp: str) -> list[PlannedShard]:
        return [
            replace(
                shard("redblack", "cost_window", exp, n, 1000, "deals", follows=True),
                files=(f"{exp}/{n}.parquet",),
                log=f"{exp}/{n}.log",
            )
            for n in range(4)
        ]

    whole, fresh = windows("k21"), windows("k26")
    logs = {w.log: finished_log(w, 1000 / rate) for w, rate in zip(whole, (1, 2, 4, 8))}
    logs[fresh[0].log] = finished_log(fresh[0], 1000.0)
    done = [f for w in (*whole, fresh[0]) for f in w.files]
    rates = rates_of(shard_states(snap(whole + fresh, files=done, logs=logs)))
    assert rates[:5] == pytest.approx([1, 2, 4, 8, 1])
    assert rates[5:] == pytest.approx([2, 4, 8])  # the shape of k21, from k26's window 0
    alone = rates_of(shard_states(snap(fresh, files=fresh[0].files, logs={fresh[0].log: logs[fresh[0].log]})))
    assert alone == pytest.approx([1, 1, 1, 1])  # no size measured whole: the nearest window's rate


def test_a_job_that_reads_other_shards_waits_for_their_jobs():
    """A basin job reads two search shards run by one batch job: on two cores the ETA is no shorter than
    that job and then the basin job, one after the other, though two cores would halve their sum."""
    searches = [
        replace(shard("redblack", "exhaustive", "k9", n, 1000, "deals"), job="batch", estimate_s=10.0) for n in range(2)
    ]
    basin = replace(
        shard("redblack", "basin", "basins", 0, 1, "basin job", main=False),
        estimate_s=10.0,
        reads=tuple(f for s in searches for f in s.files),
    )
    free = replace(basin, reads=())
    chained = model(replace(snap([*searches, basin], run_started=0.0), cores=2)).estimate
    alone = model(replace(snap([*searches, free], run_started=0.0), cores=2)).estimate
    assert chained.job_seconds == pytest.approx(alone.job_seconds)  # the same work
    assert chained.seconds > alone.seconds  # but one after the other
    # the chain: the batch's two searches and its start-up, then the basin's start-up and its estimate
    assert chained.seconds - finishing(replace(snap([basin]), cores=2), chained.slowdown) == pytest.approx(
        chained.job_seconds, rel=0.05
    )
