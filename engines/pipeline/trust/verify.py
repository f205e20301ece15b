"""``cardlab verify``: check a results tree against the current config and engines.

Every planned shard file must be present once, readable, with cardlab provenance
from the current engine version and the planned spec, and hold the planned number
of rows.  Files nobody planned (a removed experiment, a changed shard count, a
stray copy), temporaries left by killed jobs, check record lines that do not describe
the kept files as they are now (engines/pipeline/catalog/check_records.py: stale, orphan, invalid
or mismatched), timing records and kept measurements that fail their schema (engines/core/bookkeeping.py:
left out of the warehouse, so named here) and a warehouse that is older than its shards (their data hashes) or its
check records are reported too.  Any problem gives a non-zero exit code.

A sound shard file of a kind with a pinned result version (a finished RedBlack search
campaign, e.g. the one the repository keeps) is *kept* whatever the config plans: it
is listed, not a problem.  ``cardlab clean`` removes the files no plan owns.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...core.bookkeeping import left_out
from ...core.errors import CardlabError
from ...core.fmt import listed
from ...core.layout import RESULTS, is_temp, parse_shard_path, warehouse_path
from ...core.store import read_meta
from ...registry import GAMES, engine
from ..catalog.check_records import judge_records, kept_now
from ..catalog.warehouse import FileProblem, check_file, connect
from ..planning.plan import DEFAULT_CONFIG, load_plan, run_config_files
from .recompute import cmd_recompute
from .repair import damaged_hint

FIX = "rerun `snakemake --cores all`"


@dataclass
class Report:
    """What verify found: planned files checked and every problem, one line each."""

    checked: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)  # (kind, message)
    kept: list[Path] = field(default_factory=list)  # unplanned, sound, of a pinned result version
    unplanned: list[str] = field(default_factory=list)  # notes: files no plan owns (never loaded)

    def add(self, kind: str, message: str) -> None:
        self.problems.append((kind, message))

    @property
    def ok(self) -> bool:
        return not self.problems

    def counts(self) -> Counter:
        return Counter(kind for kind, _ in self.problems)


def check_planned(path: str, game: str, table: str, spec: dict, report: Report) -> dict | None:
    """One planned file: present and everything :func:`engines.pipeline.catalog.warehouse.load_file`
    checks against the plan (sound, undamaged, current, the shard its path names, planned rows)."""
    if not os.path.lexists(path) or (os.path.islink(path) and not os.path.exists(path)):
        report.add("missing", f"{path}: missing; {FIX} to compute it")
        return None
    try:
        meta = check_file(path, (game, table, spec))
    except FileProblem as exc:
        report.add(exc.kind, f"{exc}; {damaged_hint(path)}" if exc.kind == "damaged" else str(exc))
        return None
    report.checked += 1
    return meta


def scan_tree(results: str) -> list[Path]:
    """Every Parquet file and temporary under results/<game>/."""
    found = []
    for game in GAMES:
        base = Path(results) / game
        if base.is_dir():
            found += [p for p in base.rglob("*") if p.is_file()]
    return sorted(found)


@dataclass
class Unplanned:
    """The files under results/<game>/ that a plan does not name, sorted into what they are."""

    kept: list[Path] = field(default_factory=list)  # sound shards of a pinned result version
    orphans: list[Path] = field(default_factory=list)  # any other file: no plan owns it
    leftovers: list[Path] = field(default_factory=list)  # temporaries of interrupted writes


def is_kept(path: Path) -> bool:
    """Whether an unplanned file is a kept campaign file: a shard file passing every check of
    :func:`engines.pipeline.catalog.warehouse.check_file` (its path, bytes and current version) whose
    kind pins its result version, so its results outlive any config (engines/kinds.py)."""
    try:
        meta = check_file(str(path))
        return engine(meta["game"]).kind_of(meta.get("spec") or {}).result_version is not None
    except (FileProblem, CardlabError):
        return False


def unplanned(results: str, plan: dict) -> Unplanned:
    planned_paths = {os.path.normpath(p) for p in plan}
    found = Unplanned()
    for p in scan_tree(results):
        if is_temp(p):
            found.leftovers.append(p)
        elif os.path.normpath(p) not in planned_paths:
            (found.kept if is_kept(p) else found.orphans).append(p)
    return found


def check_unexpected(results: str, plan: dict, report: Report) -> None:
    found = unplanned(results, plan)
    for p in found.leftovers:
        report.add(
            "leftover",
            f"{p}: temporary file of an interrupted write (never read as a result); "
            "delete it (`cardlab clean --remove`), or rerun the workflow, which removes it",
        )
    # The warehouse loads planned files only, so a file no plan owns cannot change an answer (an
    # experiment edited and the edit undone leaves the edited run's files): said, not a failure.
    for p in found.orphans:
        report.unplanned.append(
            f"unexpected: {p}: not a planned shard of this config (removed or edited experiment, "
            "changed shard count, or a stray file); never loaded, so no answer uses it; `cardlab clean` "
            "lists such files, `--remove` deletes them"
        )
    report.kept = found.kept


def kept_line(kept: list[Path]) -> str:
    """One line for the kept campaign files: how many, and of which experiments."""
    places = sorted({f"{p.game} {p.experiment}/{p.variant}" for _, p in filter(None, map(parse_shard_path, kept))})
    shown = listed(places, 6)
    return (
        f"kept: {len(kept)} campaign file(s) this config does not plan, sound and of a pinned "
        f"result version ({shown}); left as they are"
    )


def check_duplicates(metas: dict[str, dict], results: str, report: Report) -> None:
    """The same shard recorded in two files (e.g. a copy under another experiment directory)."""
    keys: dict[tuple, list[str]] = {}
    for p in scan_tree(results):
        if p.suffix != ".parquet":
            continue
        meta = metas.get(str(p))
        if meta is None:
            try:
                meta = read_meta(p)
            except (CardlabError, ValueError):
                continue  # reported elsewhere when planned; unplanned files are reported as unexpected
        key = tuple(str(meta.get(k)) for k in ("game", "table", "experiment", "variant", "shard"))
        keys.setdefault(key, []).append(str(p))
    for key, paths in sorted(keys.items()):
        if len(paths) > 1:
            report.add(
                "duplicate",
                f"shard {'/'.join(key)} is present {len(paths)} times: {', '.join(paths)}; "
                "keep the planned path, move the others out of results/",
            )


def record_fix(j, opts: str) -> str:
    """A fix that works for a check record line that is not ``matched`` (engines/pipeline/catalog/check_records.py)."""
    delete = f"delete line {j.line} of {j.record_file}"
    restore = f"`git checkout -- {j.record_file}` if the record was edited by mistake"
    if not j.line:  # the file itself cannot be read (a folder in its place)
        return f"fix: remove it (`rm -r {j.record_file}`), or {restore}"
    if j.status in ("invalid", "orphan"):
        return f"fix: {delete} (it speaks for no kept file), or {restore}"
    paths = sorted(j.kept.paths.values())
    recheck = f"`cardlab verify --recompute {paths[0]}{opts}` checks the files as they are now"
    if j.status == "mismatched":
        return (
            f"fix: `cardlab recompute {' '.join(paths)}` computes the shard again (the line is then stale: "
            f"{recheck}); or, if the files are right and the checking machine was at fault, {delete}"
        )
    return (
        f"fix: {recheck} (a later matched line supersedes this one), or `git checkout -- {' '.join(paths)}` "
        f"if the files were changed by mistake, or {delete} if it was never theirs (a copied line)"
    )


def check_records(results: str, metas: dict[str, dict], kept: list[Path], report: Report, opts: str = "") -> None:
    """Every check record line judged against the kept files now: one not matched (nor superseded by
    a later line) is a problem naming its file:line and a fix."""
    current = dict(metas)
    for p in kept:  # sound kept files the config does not plan (is_kept checked every byte)
        current[str(p)] = read_meta(p)
    for j in judge_records(results, kept_now(current)):
        if j.status not in ("matched", "superseded"):
            report.add("check record", f"{j.where}: {j.status}: {j.problem}; {record_fix(j, opts)}")


def check_bookkeeping(results: str, report: Report) -> None:
    """Every timing record and kept measurement that fails its schema (engines/core/bookkeeping.py): the
    warehouse and the cost models leave it out, so it is named here with the fix.  Check record lines
    are judged by :func:`check_records`."""
    for bad in left_out(results):
        if bad.kind != "check record":
            report.add(bad.kind, bad.message())


PROVENANCE_KEYS = ("game", "table", "experiment", "variant", "shard", "engine_version", "rows", "data_sha256")
PROVENANCE_SQL = (
    "SELECT game, table_name, experiment, variant, shard, engine_version, rows, data_sha256 FROM provenance"
)
CHECKS_SQL = "SELECT game, experiment, variant, line, status FROM recompute_checks"


def check_warehouse(db: Path, metas: dict[str, dict], results: str, report: Report) -> None:
    """The warehouse must hold exactly the current shards (same engine versions, rows and data hashes)
    and the check records as they read now."""
    if not db.exists():
        report.add("warehouse", f"{db}: no warehouse yet; {FIX}")
        return
    try:
        con = connect(db)
        rows, checks = con.execute(PROVENANCE_SQL).fetchall(), con.execute(CHECKS_SQL).fetchall()
        con.close()
    except Exception as exc:  # a damaged or foreign catalog, or one built before these columns
        report.add(
            "warehouse", f"{db}: cannot read its provenance table ({str(exc).splitlines()[0]}); delete it and {FIX}"
        )
        return
    have = Counter(tuple(map(str, r)) for r in rows)
    want = Counter(tuple(str(m.get(k)) for k in PROVENANCE_KEYS) for m in metas.values())
    if have != want:
        report.add(
            "warehouse",
            f"{db}: out of date ({sum((want - have).values())} shard(s) not in it, "
            f"{sum((have - want).values())} it should not hold); {FIX}",
        )
        return
    judged = Counter(
        (j.game, j.experiment, j.variant, j.line, j.status) for j in judge_records(results, kept_now(metas))
    )
    if Counter(map(tuple, checks)) != judged:
        report.add("warehouse", f"{db}: out of date (its check records differ from {results}/checks/ now); {FIX}")


def verify(results: str = RESULTS, config: str | Sequence[str] = DEFAULT_CONFIG) -> Report:
    """Check ``results`` against the plan of ``config`` and the current engines."""
    plan = load_plan(config, results).files
    report = Report()
    metas = {}
    for path, (game, table, spec) in sorted(plan.items()):
        meta = check_planned(path, game, table, spec, report)
        if meta is not None:
            metas[path] = meta
    check_unexpected(results, plan, report)
    check_duplicates(metas, results, report)
    check_records(results, metas, report.kept, report, plan_opts(results, config))
    check_bookkeeping(results, report)
    if report.ok:  # the warehouse can only be current when every shard is
        check_warehouse(Path(warehouse_path(results)), metas, results, report)
    return report


def plan_opts(results: str, config: str | Sequence[str]) -> str:
    """The options naming a results tree and config other than the defaults, for a command to run."""
    configs = [config] if isinstance(config, str) else list(config)
    opts = f" --results {results}" if os.path.normpath(results) != os.path.normpath(RESULTS) else ""
    if configs != [DEFAULT_CONFIG]:
        opts += "".join(f" --config {c}" for c in configs)
    return opts


def cmd_verify(args) -> int:
    if args.recompute:
        return cmd_recompute(args, load_plan(run_config_files(args.config or ()), args.results))
    report = verify(args.results, run_config_files(args.config or ()))
    for kind, message in report.problems:
        print(f"{kind}: {message}")
    for line in report.unplanned:
        print(line)
    if report.kept:
        print(kept_line(report.kept))
    if report.ok:
        extra = f"; {len(report.unplanned)} unplanned file(s) left as they are" if report.unplanned else ""
        print(f"verify: {report.checked} planned file(s) present, sound and current; warehouse current{extra}")
        return 0
    summary = ", ".join(f"{n} {kind}" for kind, n in sorted(report.counts().items()))
    print(f"error: verify found {len(report.problems)} problem(s): {summary}", file=sys.stderr)
    return 1
