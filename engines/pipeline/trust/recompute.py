"""``cardlab verify --recompute``: trust a shard because it was computed twice, not because it is well formed.

A shard's hashes prove that its file is what its writer wrote, not that the writer computed
right: a faulty core, a bad port or a forged file can write one wrong number with every hash
right.  Every shard is deterministic (its spec fixes its seed or its ranks), so it can be
checked the way volunteer-computing searches check their work units: compute it again,
independently, from the spec and version its file records, in a scratch directory, and
compare the two, table by table: the rows, and the provenance but for the package versions.
``results/`` is never written, except the record of the check (below).

A kept campaign shard (of a kind with a pinned result version) gets a line in its campaign's
check record, ``results/checks/<game>/<experiment>/<variant>.jsonl`` (when, on which kind of
CPU, at what cost, whether it matched, and the data hash of each file compared): the warehouse
loads the records (table ``recompute_checks``), the reports say how much of each campaign was
checked, and plain ``cardlab verify`` names a line that no longer describes the files
(engines/pipeline/catalog/check_records.py).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from ...core.errors import CardlabError
from ...core.fmt import duration
from ...core.layout import check_record_path, log_path, parse_shard_path, shard_path
from ...core.machine import machine
from ...core.store import HASH_KEY, read_verified
from ...interface import source_version
from ...registry import engine
from ..bookkeeping.records import cpu_priced, timing_of_log
from ..catalog.warehouse import FileProblem, load_file
from ..compute.jobs import run_shard
from ..planning.plan import Plan
from .options import ALLOW_UNPRICED

IGNORED_META = ("packages", "data_sha256")
"""Provenance fields a recomputation may change without changing a result: the versions of the
installed packages, and the hash of the bytes they encode the rows into."""


@dataclass(frozen=True)
class Target:
    """One shard to recompute: the files it has under results/, and the spec and version they record."""

    game: str
    spec: dict
    version: str
    files: dict[str, str]  # table -> path under results/
    inputs: tuple[str, ...]  # files the shard reads (a basin job's search shards)
    estimate_s: float | None  # CPU seconds its job took, from its timing record
    unpriced: str = ""  # why ``estimate_s`` is None: no timing record, or a device computed it

    @property
    def name(self) -> str:
        return f"{self.game} {self.spec['experiment']}/{self.spec['variant']}/{int(self.spec['shard'])}"

    @property
    def kept(self) -> bool:
        """A kept campaign shard: its kind pins its result version, so it outlives edits and is never
        recomputed by a run (the reason to check it independently)."""
        return engine(self.game).kind_of(self.spec).result_version is not None


@dataclass
class Outcome:
    """What one recomputation found."""

    target: Target
    mismatches: list[str] = field(default_factory=list)
    cpu_s: float = 0.0
    error: str | None = None
    files: dict[str, str] = field(default_factory=dict)  # table -> data_sha256 of the kept file compared
    recomputed: dict[str, str] = field(default_factory=dict)  # table -> data_sha256 of its recomputation

    @property
    def matched(self) -> bool:
        return not self.mismatches and self.error is None


def target_of(path: str, plan: Plan) -> Target:
    """The shard a file belongs to, as its provenance records it (every table of it is recomputed)."""
    parsed = parse_shard_path(path)
    if parsed is None:
        raise CardlabError(
            f"{path}: not a shard file (results/<game>/<table>/<experiment>/<variant>/shard=NNNN.parquet)"
        )
    root, _ = parsed
    try:
        meta, _ = load_file(path)
    except FileProblem as exc:
        raise CardlabError(
            f"{exc} (a file that fails plain `cardlab verify` cannot be recomputed to compare)"
        ) from None
    game, spec = meta["game"], dict(meta["spec"])
    kind = engine(game).kind_of(spec)
    files = {t: shard_path(game, t, spec, root=root) for t in kind.tables}
    read = kind.inputs(spec, plan.specs(game))
    timing = timing_of_log(log_path(game, spec["experiment"], spec["variant"], int(spec["shard"]), root=root))
    cpu_s = cpu_priced(timing)
    return Target(
        game,
        spec,
        meta["engine_version"],
        files,
        tuple(shard_path(game, t, s, root=root) for t, s in read),
        cpu_s,
        "" if cpu_s is not None else unpriced_why(timing),
    )


def unpriced_why(timing: dict | None) -> str:
    """Why a shard's timing record gives no CPU price, in a user's words."""
    if not timing:
        return "no timing record"
    if timing.get("cpu_s") is None:
        return "no CPU time in its timing record"
    return "computed on a GPU (its CPU time only waited on the device)"


def choose(
    plan: Plan, results: str, what: Sequence[str], seed: int, max_cpu_s: float | None
) -> tuple[list[Target], list[Target]]:
    """(chosen, left out by the CPU budget): the shards ``what`` names: ``all``, a number drawn at
    random (seeded) from the plan's shards present under ``results``, or shard files.  Under a budget,
    a shard that cannot be priced counts as over it (a GPU shard's CPU time says nothing of its cost
    on a CPU: one was a CPU-day); :func:`cmd_recompute` asks about those, or names them."""
    if len(what) == 1 and (what[0] == "all" or what[0].isdigit()):
        present = [s for s in plan if all(os.path.exists(p) for p in s.files.values())]
        if what[0] != "all":
            random.Random(seed).shuffle(present)
            present = present[: int(what[0])]
        paths = [next(iter(s.files.values())) for s in present]
    else:
        paths = list(what)
    targets, seen = [], set()
    for p in paths:
        t = target_of(p, plan)
        if t.name not in seen:
            seen.add(t.name)
            targets.append(t)
    if max_cpu_s is None:
        return targets, []
    chosen, over, spent = [], [], 0.0
    for t in targets:
        fits = t.estimate_s is not None and spent + t.estimate_s <= max_cpu_s
        (chosen if fits else over).append(t)
        spent += t.estimate_s if fits else 0.0
    return chosen, over


def unpriced_refusal(unpriced: Sequence[Target]) -> str:
    """The one line that names the shards a budget cannot cover, why, and how to recompute them."""
    whys = sorted({t.unpriced for t in unpriced})
    return (
        f"{len(unpriced)} shard(s) cannot be priced ({'; '.join(whys)}: "
        f"{', '.join(t.name for t in unpriced[:3])}{'...' if len(unpriced) > 3 else ''}), so --max-cpu-s "
        f"cannot cover them and they are left out; {ALLOW_UNPRICED} recomputes them anyway"
    )


def accept_unpriced(unpriced: Sequence[Target], allowed: bool, ask=input, interactive: bool | None = None) -> bool:
    """Whether to recompute the shards a budget cannot price: given leave, or asked y/N on a terminal."""
    if allowed or not unpriced:
        return allowed
    if not (sys.stdin.isatty() if interactive is None else interactive):
        return False
    print(f"recompute: {unpriced_refusal(unpriced)}.", flush=True)
    try:
        return ask("Recompute them, whatever they cost? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def recompute(target: Target) -> Outcome:
    """Compute the shard again in a scratch directory and compare it with its files (run in a worker)."""
    out = Outcome(target)
    current = engine(target.game).kind_of(target.spec).result_version or source_version(engine(target.game))
    if current != target.version:
        out.error = f"written by version {target.version}, the code is {current}: a rerun recomputes it anyway"
        return out
    scratch = Path(tempfile.mkdtemp(prefix="cardlab-recompute-"))
    try:
        outputs = {t: str(scratch / f"{t}.parquet") for t in target.files}
        log = str(scratch / "job.log")
        try:
            run_shard(target.game, target.spec, outputs, threads=1, inputs=list(target.inputs), log=log)
        except CardlabError as exc:
            out.error = str(exc)
            return out
        out.cpu_s = float((timing_of_log(log) or {}).get("cpu_s", 0.0))
        for table, path in target.files.items():
            kept_meta, kept = read_verified(path)
            new_meta, new = read_verified(outputs[table])
            out.files[table], out.recomputed[table] = kept_meta[HASH_KEY], new_meta[HASH_KEY]
            out.mismatches += compare(path, kept_meta, kept, new_meta, new)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out


def compare(path: str, kept_meta: dict, kept, new_meta: dict, new) -> list[str]:
    """What differs between a file's table and its recomputation: provenance fields, then columns."""
    found = []
    for key in sorted((set(kept_meta) | set(new_meta)) - set(IGNORED_META)):
        if kept_meta.get(key) != new_meta.get(key):
            found.append(f"{path}: provenance {key!r} is {kept_meta.get(key)!r}, recomputed {new_meta.get(key)!r}")
    if kept.schema != new.schema:
        return [*found, f"{path}: columns {kept.schema.names}, recomputed {new.schema.names}"]
    if kept.num_rows != new.num_rows:
        return [*found, f"{path}: {kept.num_rows:,} rows, recomputed {new.num_rows:,}"]
    for name in kept.schema.names:
        a, b = kept.column(name).to_pylist(), new.column(name).to_pylist()
        if a != b:
            row = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
            found.append(f"{path}: column {name!r} row {row}: {a[row]!r}, recomputed {b[row]!r}")
    return found


def record(outcome: Outcome, results: str) -> None:
    """One line in the campaign's check record (kept shards only: other shards are recomputed by any
    edit of their game, so a record of them would not outlive the next change).  The line names the
    data hash of each file compared (``files``) and of its recomputation (``recomputed``), so it speaks
    for those bytes only: a file changed after its check makes the line stale
    (engines/pipeline/catalog/check_records.py)."""
    t = outcome.target
    if not t.kept or outcome.error is not None:
        return
    path = Path(check_record_path(t.game, t.spec["experiment"], t.spec["variant"], results))
    path.parent.mkdir(parents=True, exist_ok=True)
    line = {
        "shard": int(t.spec["shard"]),
        "matched": outcome.matched,
        "files": dict(sorted(outcome.files.items())),
        "recomputed": dict(sorted(outcome.recomputed.items())),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": machine(),
        "cpu_s": round(outcome.cpu_s, 3),
        "engine_version": t.version,
    }
    with open(path, "a") as fh:  # appended whole lines: a record is never rewritten
        fh.write(json.dumps(line, sort_keys=True) + "\n")


def run_all(targets: Sequence[Target], cores: int, said: Callable[[Outcome], None]) -> list[Outcome]:
    """Every target recomputed, ``cores`` at a time in fresh processes (each kernel on one thread)."""
    if cores <= 1 or len(targets) <= 1:
        outcomes = []
        for t in targets:
            outcomes.append(recompute(t))
            said(outcomes[-1])
        return outcomes
    outcomes = []
    with ProcessPoolExecutor(max_workers=cores, mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(recompute, t) for t in targets]
        for f in as_completed(futures):
            outcomes.append(f.result())
            said(outcomes[-1])
    return sorted(outcomes, key=lambda o: o.target.name)


def outcome_line(o: Outcome) -> str:
    if o.error is not None:
        return f"not compared: {o.target.name}: {o.error}"
    if o.matched:
        return f"matched: {o.target.name} ({duration(o.cpu_s)} of CPU)"
    wrong = [p for p in o.target.files.values() if any(m.startswith(f"{p}: ") for m in o.mismatches)]
    lines = [f"MISMATCH: {o.target.name}: the files under results/ are not what the code computes"]
    lines += [f"  {m}" for m in o.mismatches[:5]]
    if len(o.mismatches) > 5:
        lines.append(f"  and {len(o.mismatches) - 5} more difference(s)")
    lines.append(f"  fix: cardlab recompute {' '.join(wrong)}  (moves it aside, computes it again)")
    return "\n".join(lines)


def cmd_recompute(args: Any, plan: Plan) -> int:
    """``cardlab verify --recompute ...``: returns the exit status."""
    targets, over = choose(plan, args.results, args.recompute, args.seed, args.max_cpu_s)
    unpriced = [t for t in over if t.estimate_s is None]
    if accept_unpriced(unpriced, getattr(args, "allow_unpriced", False)):
        targets += unpriced
        over = [t for t in over if t.estimate_s is not None]
    elif unpriced:
        print(f"recompute: {unpriced_refusal(unpriced)}", flush=True)
    if not targets:
        if over:
            print(f"recompute: nothing recomputed: {len(over)} shard(s) left out by --max-cpu-s")
            return 1
        print("recompute: nothing to recompute: no planned shard is present")
        return 0
    estimate = sum(t.estimate_s or 0 for t in targets)
    unpriced = sum(t.estimate_s is None for t in targets)
    print(
        f"recompute: {len(targets)} shard(s), about {duration(estimate)} of CPU by their timing records"
        + (f" ({unpriced} not priced: no CPU timing, e.g. computed on a GPU)" if unpriced else "")
        + f", on {args.cores} core(s); {len(over)} left out by --max-cpu-s"
        + (f" ({', '.join(t.name for t in over[:3])}...)" if over else ""),
        flush=True,
    )

    def said(o: Outcome) -> None:
        print(outcome_line(o), flush=True)
        if not args.no_record:
            record(o, args.results)

    outcomes = run_all(targets, args.cores, said)
    bad = [o for o in outcomes if not o.matched and o.error is None]
    skipped = [o for o in outcomes if o.error is not None]
    spent = sum(o.cpu_s for o in outcomes)
    print(
        f"recompute: {len(outcomes) - len(bad) - len(skipped)} matched, {len(bad)} mismatched, "
        f"{len(skipped)} not compared, {duration(spent)} of CPU"
    )
    if bad or skipped:
        print(f"error: recompute found {len(bad)} mismatch(es), {len(skipped)} not compared", file=sys.stderr)
        return 1
    return 0
