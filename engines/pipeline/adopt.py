"""Kept campaign files get Snakemake's provenance records, so its runs stop warning about them.

The repository keeps finished campaign shards (RedBlack k = 16..23, the first full-deck
ranks, Narcotic's exhaustive tables and tallies): a fresh clone has the files but not the
records Snakemake writes when a job finishes (``.snakemake/metadata``), so every
``snakemake -n`` said ``N jobs have missing provenance/metadata``.  Before a run, ``cardlab
run`` records them, once per set of kept files (a mark file in ``.snakemake`` lists the ones
adopted), in two ways:

* from the tracked index ``results/kept-metadata.json`` of the records Snakemake itself wrote
  for the kept files (:func:`write_index`): what they share, and per file its bytes' sha256
  and a stamp of the rule, input, log and params Snakemake recorded, which the plan gives
  again.  A file's record is written only where it is current: the same Snakemake version,
  the same bytes, the same stamp of what the plan gives the file now.  A stale entry is never
  trusted; 1,700 files take a second or two;
* for the rest, Snakemake's own ``--touch`` (which records what a finished job records and
  changes no byte): about 0.12 s a file here, whatever the CPU, as its scheduler waits
  between jobs.

Either way the caller's ``tick`` sees the step's progress (the live view shows it).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from base64 import urlsafe_b64encode
from collections.abc import Callable
from pathlib import Path

from ..core.layout import RESULTS
from .plan import Plan, PlannedShard, load_plan
from .progress_model import Setup
from .runner import follow

MARK = Path(".snakemake/cardlab-kept-adopted")
METADATA = Path(".snakemake/metadata")
INDEX = Path(RESULTS) / "kept-metadata.json"
STEP = "recording Snakemake's metadata of the kept files"
TOUCH_S = 0.12  # Snakemake's --touch, a file (its scheduler's pace): the step's estimate until measured
COPY_S = 0.001
CHECKED = ("rule", "input", "log", "params")  # what a record must say of the file under the plan now
VOLATILE = ("starttime", "endtime", "job_hash")  # the job's own times: the file's modification time stands in

Tick = Callable[[Setup], None]


def tracked_results(results: str = RESULTS) -> set[str]:
    """The files under ``results`` that git tracks (the kept campaign files); none outside a git checkout."""
    try:
        res = subprocess.run(["git", "ls-files", "-z", results], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {p for p in res.stdout.decode(errors="replace").split("\0") if p} if res.returncode == 0 else set()


def kept_shards(plan: Plan, results: str = RESULTS) -> dict[str, PlannedShard]:
    """Planned shard files that git keeps and that are present, with their shard."""
    tracked = tracked_results(results)
    return {f: s for s in plan for f in sorted(s.files.values()) if f in tracked and Path(f).is_file()}


def kept_outputs(config, results: str = RESULTS) -> list[str]:
    """Planned shard files that git keeps and that are present."""
    return sorted(kept_shards(load_plan(config, results), results))


def snakemake_version() -> str:
    from importlib.metadata import version

    return version("snakemake")


def expected_record(plan: Plan, shard: PlannedShard) -> dict:
    """What Snakemake records of a shard job's file: the rule, inputs, log(s) and params (each by its repr,
    sorted) of its stage's rule or of the batch job it shares (workflow/rules/shards.smk)."""
    batch = batch_of(plan, shard)
    if batch is None:
        rule, logs, inputs = f"{shard.game}_{shard.kind.stage}", [shard.log], plan.input_files(shard)
        params = ["shard", shard.game, shard.spec, shard.version]
    else:
        members = [plan.shard(shard.game, s["experiment"], s["variant"], s["shard"]) for s in batch.specs]
        rule, logs, inputs = batch.rule, [m.log for m in members], []
        params = ["batch", shard.game, list(batch.specs), [m.version for m in members]]
    return {"rule": rule, "input": sorted(inputs), "log": sorted(logs), "params": sorted(repr(p) for p in params)}


def batch_of(plan: Plan, shard: PlannedShard):
    """The batch job a shard shares, if any (engines/pipeline/batches.py)."""
    for batch in plan.batches.get(shard.game, []):
        if any((s["experiment"], s["variant"], int(s["shard"])) == shard.key[1:] for s in batch.specs):
            return batch
    return None


def record_path(path: str) -> Path:
    """Where Snakemake keeps a file's record: its path in URL-safe base64, cut into names of at most 254."""
    b64 = urlsafe_b64encode(path.encode()).decode()
    parts = [b64[i : i + 254] for i in range(0, len(b64), 254)]
    return METADATA.joinpath(*(["@" + p for p in parts[:-1]] + [parts[-1]]))


def sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def stamp(expected: dict) -> str:
    """A short hash of what Snakemake records of a file's job (:func:`expected_record`)."""
    return hashlib.sha256(json.dumps(expected, sort_keys=True).encode()).hexdigest()[:20]


def copy_from_index(plan: Plan, kept: dict[str, PlannedShard], index: Path, tick: Tick, started: float) -> list[str]:
    """Write the records of the kept files the index holds current entries for (the same Snakemake, the
    same bytes, the same stamp of what the plan gives the file now); the files left."""
    try:
        data = json.loads(index.read_text())
        common, files = dict(data["common"]), dict(data["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return list(kept)
    if data.get("snakemake") != snakemake_version():
        return list(kept)
    left = []
    for i, (path, shard) in enumerate(kept.items()):
        expected = expected_record(plan, shard)
        if files.get(path) != [sha256(path), stamp(expected)]:
            left.append(path)
            continue
        when = os.stat(path).st_mtime
        out = record_path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(common | expected | {"starttime": when, "endtime": when, "job_hash": 0}))
        if i % 100 == 0:
            tick(Setup(STEP, i, len(kept), started, COPY_S))
    return left


def touch(snakemake: str, config: list[str], files: list[str], log, tick: Tick, done: int, total: int) -> bool:
    """Snakemake's --touch of ``files`` (their records, no byte changed), its progress to ``tick``."""
    # the targets first: --configfile and --quiet take every word after them
    cmd = [snakemake, *files, "--touch", "--force", "--cores", "1", "--configfile", *config, "--quiet", "all"]
    started = time.time()
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)

    def progress(ended: bool) -> bool:
        recorded = sum(record_path(f).is_file() for f in files)
        tick(Setup(STEP, done + recorded, total, started - done * TOUCH_S, TOUCH_S))
        return False

    return follow(proc, progress, 1.0) == 0


def adopt_kept(snakemake: str, config: list[str], log, tick: Tick | None = None, index: Path = INDEX) -> int:
    """Record Snakemake metadata for the kept shards of the plan (once per set): current entries of the
    index copied, the rest by Snakemake's --touch; returns how many files were recorded."""
    tick = tick or (lambda setup: None)
    plan = load_plan(config)
    kept = kept_shards(plan)
    digest = hashlib.sha256("\n".join(kept).encode()).hexdigest()
    if not kept or (MARK.is_file() and MARK.read_text() == digest):
        return 0
    started = time.time()
    log.write(f"cardlab run: recording Snakemake metadata for {len(kept)} kept campaign file(s)\n")
    tick(Setup(STEP, 0, len(kept), started, COPY_S if index.is_file() else TOUCH_S))
    left = copy_from_index(plan, kept, index, tick, started)
    log.write(f"cardlab run: {len(kept) - len(left)} from {index}, {len(left)} by snakemake --touch\n")
    log.flush()
    if left and not touch(snakemake, config, left, log, tick, len(kept) - len(left), len(kept)):
        return 0  # only a warning is at stake: the run itself says what is wrong, if anything
    MARK.parent.mkdir(parents=True, exist_ok=True)
    MARK.write_text(digest)
    return len(kept)


def write_index(config: list[str], index: Path = INDEX) -> int:
    """The index of the kept files' records as Snakemake wrote them (run after `cardlab run` recorded
    them, e.g. when a campaign keeps new shards): what every record shares once, and per file its bytes'
    sha256 and the stamp of its job (:func:`stamp`), where its record says what the plan gives it and
    shares the rest; returns how many files it holds."""
    plan = load_plan(config)
    common: dict | None = None
    files = {}
    for path, shard in kept_shards(plan).items():
        try:
            record = json.loads(record_path(path).read_text())
        except (OSError, ValueError):
            continue
        expected = expected_record(plan, shard)
        rest = {k: v for k, v in record.items() if k not in VOLATILE and k not in CHECKED}
        common = rest if common is None else common
        if rest == common and all(record.get(k) == v for k, v in expected.items()):
            files[path] = [sha256(path), stamp(expected)]
    data = {"snakemake": snakemake_version(), "common": common or {}, "files": files}
    index.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    return len(files)


if __name__ == "__main__":
    import sys

    from .plan import run_config_files

    n = write_index(run_config_files(sys.argv[1:]))
    print(f"{INDEX}: the records of {n} kept file(s)")
