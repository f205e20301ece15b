"""A recorded campaign for the live view's tests: record one, replay its frames.

Recording (``python tests/live_recording.py OUT.json [--config small.yaml]``) runs
``snakemake`` on a small config in a temporary copy of the project and polls every
half second: each shard file's modification time (when it appeared) and each log
line, stamped with its log's modification time at the poll that first saw it.
The fixture keeps the plan, those stamps (and when each log appeared: a job's
first line may come only at its end) and the poll times, relative to the
start, so a frame at any recorded time is rebuilt exactly (:func:`frames`) and the
known answers come from the recording itself (its last shard's time).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engines.pipeline.live import LogFile, PlannedShard, Snapshot  # noqa: E402

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


def record(out: Path, config_text: str, poll_s: float = 0.5, cores: int = 2) -> None:
    import yaml

    from engines.pipeline.plan import Plan
    from engines.pipeline.status import planned_shards

    work = Path(tempfile.mkdtemp(prefix="cardlab-live-rec-"))
    try:
        for name in ("Snakefile", "workflow", "profiles", "engines", "pyproject.toml"):
            src = ROOT / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, work / name)
        (work / "config.yaml").write_text(config_text)
        os.chdir(work)
        plan, units = planned_shards(Plan.build(yaml.safe_load(config_text), "config"))
        snakemake = str(Path(sys.executable).with_name("snakemake"))
        env = {**os.environ, "PYTHONPATH": str(work)}
        t0 = time.time()
        proc = subprocess.Popen(
            [snakemake, "--cores", str(cores), "--quiet", "all"],
            stdout=open(work / "snakemake.out", "w"),
            stderr=subprocess.STDOUT,
            env=env,
        )
        files: dict[str, float] = {}
        opened: dict[str, float] = {}  # when each log appeared: a job has started (its first line comes later)
        lines: dict[str, list[tuple[float, str]]] = {}
        polls: list[float] = []
        while True:
            ended = proc.poll() is not None
            for s in plan:
                for f in s.files:
                    if f not in files and os.path.exists(f):
                        files[f] = round(os.stat(f).st_mtime - t0, 3)
                if os.path.exists(s.log):
                    stamp = round(os.stat(s.log).st_mtime - t0, 3)
                    opened.setdefault(s.log, stamp)
                    text = Path(s.log).read_text(errors="replace").splitlines()
                    seen = lines.setdefault(s.log, [])
                    seen += [(stamp, ln) for ln in text[len(seen) :]]
            polls.append(round(time.time() - t0, 3))
            if ended:
                break
            time.sleep(poll_s)
        if proc.returncode != 0:
            raise SystemExit(f"snakemake failed: {(work / 'snakemake.out').read_text()[-3000:]}")
        fixture = {
            "config": config_text,
            "cores": cores,
            "ended": polls[-1],
            "units": units,
            "plan": [s.__dict__ | {"files": list(s.files)} for s in plan],
            "files": files,
            "opened": opened,
            "logs": lines,
            "polls": polls,
        }
        out.write_text(json.dumps(fixture, separators=(",", ":")))
    finally:
        os.chdir(ROOT)
        shutil.rmtree(work, ignore_errors=True)


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def snapshot_at(rec: dict, t: float) -> Snapshot:
    """The campaign's files as they were ``t`` seconds after the recorded run began."""
    plan = tuple(PlannedShard(**(s | {"files": tuple(s["files"])})) for s in rec["plan"])
    files = frozenset(f for f, when in rec["files"].items() if when <= t)
    logs = {}
    for log, opened in rec["opened"].items():
        seen = [(when, ln) for when, ln in rec["logs"].get(log, []) if when <= t]
        if seen:
            logs[log] = LogFile("\n".join(ln for _, ln in seen) + "\n", seen[-1][0])
        elif opened <= t:
            logs[log] = LogFile("", opened)
    return Snapshot(plan, rec["units"], files, logs, t < rec["ended"], t, run_started=0.0)


def frames(rec: dict) -> Iterator[tuple[float, Snapshot]]:
    """A snapshot at every recorded poll."""
    for t in rec["polls"]:
        yield t, snapshot_at(rec, t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--config", type=Path, help="config file (default: the small one above)")
    ap.add_argument("--cores", type=int, default=2)
    args = ap.parse_args()
    record(args.out.resolve(), args.config.read_text() if args.config else CONFIG, cores=args.cores)


if __name__ == "__main__":
    main()
