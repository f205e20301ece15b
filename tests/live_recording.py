"""A recorded campaign for the live view's tests: record one, replay its frames.

Recording (``python tests/live_recording.py OUT.json [--config small.yaml] [--warm WARM.json]``)
runs ``snakemake`` on a small config in a temporary copy of the project without its compiled
kernels (a cold run, as from a fresh clone) and polls every half second: each shard file's
modification time (when it appeared), each log line, stamped with its log's modification time
at the poll that first saw it (a log written anew, as a job run again writes it, is recorded as
a reset and its lines again), the step logs' lines (warehouse, reports, index: their timing
lines), when each of them appeared, and the machine's load average.  The fixture keeps the plan
(with each shard's kind estimate, batch job and kernels), those stamps (and when each log
appeared: a job's first line may come only at its end) and the poll times, relative to the
start, so a frame at any recorded time is rebuilt exactly (:func:`frames`) and the known answers
come from the recording itself (its end).  ``--warm`` then removes every other shard's files and
records the next run: the files left are kept (negative times), the logs of the first run its
previous timings.  tests/data/live_cold.json and live_warm.json were recorded so on the 2-core
machine under load (175 s and 70 s), before logs written anew, step logs and loads were recorded:
their warm runs show none of their own jobs until each one's files appear.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines.core.layout import timing_of  # noqa: E402
from engines.pipeline.bookkeeping.records import step_cpu, step_record  # noqa: E402
from engines.pipeline.progress.model import PlannedShard, RecordFile, Snapshot  # noqa: E402

# Recordings made before job records (format "logs") hold their jobs' log lines: a start line per attempt,
# progress lines, a timing line at the end.  A replay turns them into the record the job would have written.
START_TAG = ": numba threads "
TIMING_TAG = "cardlab-timing "
PROGRESS_LINE = re.compile(
    r"(?:^|: )(?P<done>[\d,]+)/(?P<total>[\d,]+) (?P<unit>.+?) \([\d.]+%\), (?P<rate>[\d,]+) .+?/s, "
    r"elapsed (?P<elapsed>[\d,]+) s, ETA "
)

# Several groups of different cost per game, a few minutes on a loaded 2-core machine.
CONFIG = """
narcotic:
  experiments:
    - {name: seed, rules: seed, games: 400000, shards: 4, seed: 11}
redblack:
  exhaustive:
    - {k_min: 1, k_max: 12, method: brute, deals_per_shard: 400000}
    - {k: [26], method: owner, ranks: [0, 400000], deals_per_shard: 200000}
  basins: true
  experiments:
    - {name: sample26, k: 26, deals: 20000, shards: 2, seed: 3, balanced: true}
blackjack:
  exact: {decks: [1, 2, inf], soft17: [stand], peek: ["no"]}
  experiments:
    - {name: fresh2, shoe: fresh, decks: 2, hands_per_upcard: 2000000, shards: 3, seed: 4}
"""


STEP_LOGS = ("results/logs/warehouse.log", "results/logs/reports")  # the jobs after the shards: when each began


def record(
    out: Path,
    config_text: str | None,
    poll_s: float = 0.5,
    cores: int = 2,
    warm: Path | None = None,
    clone: Path | None = None,
) -> None:
    """Record a cold run (no numba cache, no results) into ``out``; with ``warm``, then remove every other
    shard's files (their logs stay: the previous run's timings) and the warehouse, and record that run too.
    With ``clone`` (a fresh clone of the project), record `cardlab run` there instead, as `make run` runs it:
    the clone's config.yaml (``config_text`` None) and its kept results, which stay kept."""
    import yaml

    from engines.pipeline.planning.plan import Plan
    from engines.pipeline.progress.snapshot import planned_shards

    work = clone or fresh_copy()
    try:
        if config_text is None:
            config_text = (work / "config.yaml").read_text()
        else:
            (work / "config.yaml").write_text(config_text)
        os.chdir(work)
        plan, units = planned_shards(Plan.build(yaml.safe_load(config_text), "config"))
        fixture = {"config": config_text, "cores": cores, "units": units}
        fixture["plan"] = [s.__dict__ | {"files": list(s.files), "reads": list(s.reads)} for s in plan]
        command = cardlab_run(cores) if clone else snakemake_run(cores)
        save(out, fixture | recorded_run(work, plan, command, poll_s))
        if warm is not None:
            for s in plan[::2]:
                for f in s.files:
                    Path(f).unlink(missing_ok=True)
            recorded = recorded_run(work, plan, command, poll_s)
            save(warm, fixture | recorded)
    finally:
        os.chdir(ROOT)
        if clone is None:
            shutil.rmtree(work, ignore_errors=True)


def fresh_copy() -> Path:
    """The project's code in a temporary directory without its compiled kernels (a cold run compiles them, as a
    fresh clone does)."""
    work = Path(tempfile.mkdtemp(prefix="cardlab-live-rec-"))
    for name in ("Snakefile", "workflow", "profiles", "engines", "pyproject.toml"):
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, work / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, work / name)
    return work


def snakemake_run(cores: int) -> list[str]:
    return [str(Path(sys.executable).with_name("snakemake")), "--cores", str(cores), "--quiet", "all"]


def cardlab_run(cores: int) -> list[str]:
    """`make run`'s command (its set-up step records Snakemake's metadata of the kept files first)."""
    return [sys.executable, "-m", "engines.cli", "run", "--cores", str(cores)]


def recorded_run(work: Path, plan, command: list[str], poll_s: float) -> dict:
    """Run ``command`` in ``work`` and poll it: when each shard file and step log appeared (files there before the
    run: negative times), and each log line with its log's modification time at the poll that first saw it."""
    env = {**os.environ, "PYTHONPATH": str(work)}
    t0 = time.time()
    proc = subprocess.Popen(
        command,
        stdout=open(work / "snakemake.out", "w"),
        stderr=subprocess.STDOUT,
        env=env,
    )
    files: dict[str, float] = {}
    opened: dict[str, float] = {}  # when each log appeared: a job has started (its first line comes later)
    steps: dict[str, float] = {}
    lines: dict[str, list[tuple[float, str | None]]] = {}
    step_lines: dict[str, list[tuple[float, str | None]]] = {}  # the step logs' (with their timing lines)
    current: dict[str, list[str]] = {}  # each log's lines as last read
    polls: list[float] = []
    loads: list[float] = []
    while True:
        ended = proc.poll() is not None
        for s in plan:
            for f in s.files:
                if f not in files and os.path.exists(f):
                    files[f] = round(os.stat(f).st_mtime - t0, 3)
            record = timing_of(s.log)
            if os.path.exists(record):
                stamp = round(os.stat(record).st_mtime - t0, 3)
                opened.setdefault(s.log, stamp)
                read_lines(s.log, stamp, lines, current, record)
        reports = [str(p) for p in Path(STEP_LOGS[1]).glob("*.log") if not p.name.endswith(".inputs.log")]
        for log in [STEP_LOGS[0], *reports]:
            if os.path.exists(log) and log not in steps and os.stat(log).st_mtime >= t0:
                steps[log] = round(time.time() - t0, 3)  # a step's log appears as it begins
            record = timing_of(log)
            if os.path.exists(record):  # this run's and, until it rewrites them, the previous run's timings
                read_lines(log, round(os.stat(record).st_mtime - t0, 3), step_lines, current, record)
        polls.append(round(time.time() - t0, 3))
        loads.append(round(os.getloadavg()[0], 2))  # the machine's run queue: how much of a CPU a job gets
        if ended:
            break
        time.sleep(poll_s)
    if proc.returncode != 0:
        raise SystemExit(f"snakemake failed: {(work / 'snakemake.out').read_text()[-3000:]}")
    recorded = {"ended": polls[-1], "files": files, "opened": opened, "steps": steps, "logs": lines, "polls": polls}
    recorded["format"] = "records"  # "logs" holds each job's record, a version a line, by its log's path
    return recorded | {"step_logs": step_lines, "loads": loads, "cpus": os.cpu_count()}


def read_lines(log: str, stamp: float, lines: dict, current: dict, path: str | None = None) -> None:
    """Record the new lines of ``path`` (default: the log) under ``log``, stamped ``stamp``; a file written anew (a
    job's record each time, a job run again rewrites its log) is recorded as a reset (a line None) and its lines
    again."""
    text = Path(path or log).read_text(errors="replace").splitlines()
    seen = lines.setdefault(log, [])
    before = current.get(log, [])
    if text[: len(before)] != before:
        seen.append((stamp, None))
        before = []
    seen += [(stamp, ln) for ln in text[len(before) :]]
    current[log] = text


def lines_at(recorded: list, t: float) -> list[tuple[float, str]]:
    """A recorded log's lines at ``t``: those since its latest rewrite before ``t``."""
    seen = [(when, ln) for when, ln in recorded if when <= t]
    resets = [i for i, (_, ln) in enumerate(seen) if ln is None]
    return seen[resets[-1] + 1 :] if resets else seen


def save(path: Path, recording: dict) -> None:
    """Write a recording, gzipped where ``path`` ends in .gz."""
    text = json.dumps(recording, separators=(",", ":"))
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode(), 9))
    else:
        path.write_text(text)


def load(path: Path) -> dict:
    """A recording; gzipped where its name ends in .gz (a run of the default config, with its kept files)."""
    if path.suffix == ".gz":
        return json.loads(gzip.decompress(path.read_bytes()))
    return json.loads(path.read_text())


_TODAY: dict[str, dict[tuple, dict]] = {}
FILLED = ("kernels", "compile_s", "reads")  # what a plan recorded before they existed takes from today's


def recorded_plan(rec: dict) -> tuple[PlannedShard, ...]:
    """The recorded plan; a recording made before the plan said which kernels a shard loads, what compiling
    them costs or which shards' files it reads takes them from the plan of its config today (the same
    kinds, measured since)."""
    key = id(rec["plan"])
    if key not in _PLANS:
        missing = any(name not in s for s in rec["plan"] for name in FILLED)
        today = _today(rec["config"]) if missing else {}
        plan = []
        for s in rec["plan"]:
            fields = today.get(shard_key(s), {}) | s
            plan.append(PlannedShard(**(fields | {"files": tuple(fields["files"]), "reads": tuple(fields["reads"])})))
        _PLANS[key] = (rec["plan"], tuple(plan))  # the list kept alive: its id is not reused
    return _PLANS[key][1]


_PLANS: dict[int, tuple[list, tuple[PlannedShard, ...]]] = {}


def _today(config: str) -> dict[tuple, dict]:
    if config not in _TODAY:
        import yaml

        from engines.pipeline.planning.plan import Plan
        from engines.pipeline.progress.snapshot import planned_shards

        today, _units = planned_shards(Plan.build(yaml.safe_load(config), "config"))
        _TODAY[config] = {shard_key(p.__dict__): {name: getattr(p, name) for name in FILLED} for p in today}
    return _TODAY[config]


def shard_key(s: dict) -> tuple:
    return (s["game"], s["kind"], s["experiment"], s["variant"], s["shard"])


def snapshot_at(rec: dict, t: float) -> Snapshot:
    """The campaign's files as they were ``t`` seconds after the recorded run began."""
    plan = recorded_plan(rec)
    files = frozenset(f for f, when in rec["files"].items() if when <= t)
    logs = {}
    for log, opened in rec["opened"].items():
        recorded = [(when, ln) for when, ln in rec["logs"].get(log, []) if when <= t]
        seen = lines_at(recorded, t)
        if seen:
            logs[log] = RecordFile(record_text(rec, [ln for _, ln in seen]), seen[-1][0])
        elif recorded:  # written anew by a job run again, no line yet
            logs[log] = RecordFile("", recorded[-1][0])
        elif opened <= t:
            logs[log] = RecordFile("", opened)
    alive = t < rec["ended"]
    kept = frozenset(f for f, when in rec["files"].items() if when < 0) if alive else frozenset()
    steps, since = steps_at(rec, t) if alive else ((), None)
    texts = {
        log: record_text(rec, [ln for _, ln in lines_at(seen, t)]) for log, seen in rec.get("step_logs", {}).items()
    }
    return Snapshot(
        plan,
        rec["units"],
        files,
        logs,
        alive,
        t,
        0.0,
        kept=kept,
        cores=rec["cores"],
        steps=steps,
        steps_since=since,
        step_cpu=step_cpu(texts),
        load=load_at(rec, t),
    )


def record_text(rec: dict, lines: list[str]) -> str:
    """A job's record as it was, from what the recording holds of it: its latest version (format "records"), or
    the lines of its log (an older recording), as the job would have written its record then."""
    if rec.get("format") == "records":
        return "\n".join(lines)
    return _record_of_log(tuple(lines))


@functools.cache  # a replay asks for every log at every frame, and most logs have not changed since the last
def _record_of_log(lines: tuple[str, ...]) -> str:
    data: dict = {}
    for line in lines:
        progress = PROGRESS_LINE.search(line)
        if line.startswith(TIMING_TAG):
            data = {"state": "done", **json.loads(line[len(TIMING_TAG) :])}
        elif START_TAG in line and progress is None or progress is not None:
            if data.get("state") == "done":  # a new attempt after a finished one: its timing stays as "last"
                data = {"state": "running", "last": {k: v for k, v in data.items() if k != "state"}}
            elif START_TAG in line and progress is None:  # a new attempt: nothing done in it yet
                data = {"state": "running", **({"last": data["last"]} if "last" in data else {})}
            data["state"] = "running"
            if progress is not None:
                n = {k: int(progress.group(k).replace(",", "")) for k in ("done", "total", "rate", "elapsed")}
                data["reading"] = {"done": n["done"], "total": n["total"], "rate": float(n["rate"])}
                data["reading"] |= {"unit": progress.group("unit"), "elapsed_s": float(n["elapsed"])}
    return json.dumps(data) if data else ""


def load_at(rec: dict, t: float) -> float | None:
    """The machine's load average per CPU at the last poll by ``t`` (recordings before loads: not known)."""
    if "loads" not in rec:
        return None
    polls = [i for i, when in enumerate(rec["polls"]) if when <= t]
    return rec["loads"][polls[-1] if polls else 0] / rec["cpus"]


def steps_at(rec: dict, t: float) -> tuple[tuple[str, ...], float | None]:
    """The steps after the shards not finished at ``t``, and since when the first of them has been under way
    (the latest of the steps finished and the last shard; recordings before steps: none).  A step has
    finished once its log, written in this run, ends with its timing line (recordings with the step logs'
    lines); in older ones, once its log appeared, but for the warehouse, whose log appeared as its build
    began: it had finished by the first report's end."""
    if "steps" not in rec:
        return (), None
    every = ["warehouse"] + ["report"] * len(rec["units"]) + ["index"]
    if "step_logs" in rec:
        ended = []
        for log, recorded in rec["step_logs"].items():
            seen = lines_at(recorded, t)
            if seen and seen[-1][0] >= 0 and step_record(record_text(rec, [ln for _, ln in seen])):
                ended.append((seen[-1][0], step_kind(log)))
    else:
        logs = {log: when for log, when in rec["steps"].items() if not log.endswith(".inputs.log")}  # a list, no step
        ended = [(when, step_kind(log)) for log, when in logs.items() if when <= t and step_kind(log) != "warehouse"]
        ended += [(min(when for when, _ in ended), "warehouse")] if ended else []
    for _, k in ended:
        every.remove(k)
    files = [rec["files"].get(f) for s in rec["plan"] for f in s["files"]]
    shards_done = max(files) if all(when is not None and when <= t for when in files) else None
    since = max([when for when, _ in ended] + ([shards_done] if shards_done is not None else []), default=None)
    return tuple(every), since


def step_kind(log: str) -> str:
    return "warehouse" if log.endswith("warehouse.log") else "index" if log.endswith("index.log") else "report"


def frames(rec: dict) -> Iterator[tuple[float, Snapshot]]:
    """A snapshot at every recorded poll."""
    for t in rec["polls"]:
        yield t, snapshot_at(rec, t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--config", type=Path, help="config file (default: the small one above)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--warm", type=Path, help="then record a warm run here (every other shard removed)")
    ap.add_argument(
        "--clone", type=Path, help="record `cardlab run` in this fresh clone (its config.yaml, kept results)"
    )
    args = ap.parse_args()
    warm = args.warm.resolve() if args.warm else None
    clone = args.clone.resolve() if args.clone else None
    config = args.config.read_text() if args.config else None if clone else CONFIG
    record(args.out.resolve(), config, cores=args.cores, warm=warm, clone=clone)


if __name__ == "__main__":
    main()
