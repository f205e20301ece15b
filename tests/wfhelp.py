"""Helpers for the end-to-end robustness, determinism and cluster tests.

Every workflow run here uses a private snapshot of the engines (taken once per test
session, numba caches included): other people edit engines/ while tests run, and a
changed engine between two runs would change provenance and defeat byte comparisons.

The snapshot and the reference runs are built once per test session, whichever pytest-xdist
worker asks first, under a file lock in the session's shared folder (tests/conftest.py names it);
the other workers wait on the lock and read the same trees, which no test changes (a test that
changes a tree works on its own copy).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))

# Small enough for a loaded 2-core machine, big enough for several jobs per game;
# redblack exhaustive shards ask for 2 threads so 1 vs 2 cores also varies numba threads.
CONFIG = """
narcotic:
  experiments:
    - {name: seed, rules: seed, games: 4000, shards: 4, seed: 11}
redblack:
  exhaustive: {k_min: 1, k_max: 6, deals_per_shard: 1000, threads: 2}
  basins: true
  experiments:
    - {name: sample26, k: 26, deals: 300, shards: 2, seed: 3, balanced: true}
blackjack:
  exact: {decks: [1, inf], soft17: [stand], peek: ["no"]}
  experiments:
    - {name: fresh2, shoe: fresh, decks: 2, hands_per_upcard: 3000, shards: 2, seed: 4}
    - {name: cont1, shoe: continuous, decks: 1, hands_per_upcard: 3000, shards: 2, seed: 5}
"""

WAREHOUSE = "results/warehouse.duckdb"  # the catalog users query
# Snakemake target that builds it: the warehouse rule (its declared output is a manifest, so
# Snakemake never deletes the catalog before or after a rebuild)
WAREHOUSE_RULE = "warehouse"
_SHARED: list[Path] = []  # the session's folder shared by its workers (share_trees_in), made on first use
_SNAPSHOT: Path | None = None
_REFERENCE: dict[int, dict[str, str]] = {}


def share_trees_in(folder: Path) -> None:
    """Build the session's trees (the engines snapshot, the reference runs, the tiny run) in ``folder``,
    which every worker of the session names alike."""
    folder.mkdir(parents=True, exist_ok=True)
    _SHARED[:] = [folder]


def shared_folder() -> Path:
    if not _SHARED:  # wfhelp used outside pytest: a private folder, removed at exit
        folder = Path(tempfile.mkdtemp(prefix="cardlab-trees-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _SHARED.append(folder)
    return _SHARED[0]


def built_once(name: str, build: Callable[[Path], None]) -> Path:
    """The tree ``name`` of this session, built by ``build(path)`` in the first process that asks; the
    others block on the lock until it is complete (a build that failed is tried again by the next one)."""
    folder = shared_folder()
    tree, done = folder / name, folder / f"{name}.done"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not done.exists():
            shutil.rmtree(tree, ignore_errors=True)
            build(tree)
            done.touch()
    return tree


def _build_snapshot(base: Path) -> None:
    compile_kernels(CONFIG)
    # copy2 keeps mtimes, so numba's on-disk caches (keyed by source stamp) stay valid
    shutil.copytree(ROOT / "engines", base / "engines", copy_function=shutil.copy2)


def engines_snapshot() -> Path:
    """A directory holding a copy of engines/ (schemas, SQL views and numba caches included), for PYTHONPATH."""
    global _SNAPSHOT
    if _SNAPSHOT is None:
        _SNAPSHOT = built_once("engines-snapshot", _build_snapshot)
    return _SNAPSHOT


def compile_kernels(config: str) -> None:
    """Every shard of ``config`` computed in this process, so that numba's cache under engines/
    holds each kernel its jobs use before the snapshot copies it: the workflow tests' jobs load
    what the in-process tests compile anyway (RedBlack's kernels: about a minute on 2 loaded cores)."""
    import numba
    import yaml

    threads = numba.get_num_threads()  # a shard sets numba's threads for the whole process
    with tempfile.TemporaryDirectory(prefix="cardlab-kernels-") as tmp:
        for game, section in yaml.safe_load(config).items():
            planned_shards(game, section, Path(tmp) / game)
    numba.set_num_threads(threads)


def env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a workflow run: the engines snapshot first on PYTHONPATH, unless ``extra`` says otherwise."""
    return {**os.environ, "PYTHONPATH": str(engines_snapshot()), **(extra or {})}


def workdir(dest: Path, config: str | None = CONFIG) -> Path:
    """A fresh workflow directory: Snakefile, workflow/, the profile every run in a checkout picks up
    (profiles/default: how a killed run resumes) and (unless None) config.yaml."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Snakefile", dest / "Snakefile")
    shutil.copytree(ROOT / "workflow", dest / "workflow", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "profiles", dest / "profiles", dirs_exist_ok=True)
    if config is not None:
        (dest / "config.yaml").write_text(config)
    return dest


def snakemake(
    cwd: Path, *args: str, check: bool = True, timeout: float = 600, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True, env=env(env_extra), timeout=timeout
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def cardlab_here(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The cardlab command run in this process from ``cwd``, its exit code and output captured as a
    process's would be (no interpreter to start: where the process itself is not what a test checks).
    It reads the engines this process imported, so a tree it checks is one the snapshot built from the
    same source (`make test` edits no engine)."""
    from engines.cli import main

    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as stop:  # argparse's exits
                code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(["cardlab", *args], code, out.getvalue(), err.getvalue())


def cardlab(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The cardlab command with the snapshot engines, in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "engines.cli", *args], cwd=cwd, capture_output=True, text=True, env=env(), timeout=300
    )


def start(cwd: Path, *args: str, env_extra: dict[str, str] | None = None) -> subprocess.Popen:
    """snakemake in its own process group, so the whole run (jobs included) can be killed."""
    return subprocess.Popen(
        [SNAKEMAKE, *args],
        cwd=cwd,
        env=env(env_extra),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=60)


def wait_for(predicate, proc: subprocess.Popen, timeout: float = 300, poll: float = 0.01) -> bool:
    """Poll until ``predicate()`` is true; False if the run ended first."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        if proc.poll() is not None:
            return bool(predicate())
        time.sleep(poll)
    raise AssertionError("timed out waiting for the workflow")


def parquet_files(wd: Path) -> list[Path]:
    return sorted((wd / "results").rglob("*.parquet"))


def digests(wd: Path) -> dict[str, str]:
    """sha256 of every Parquet file's bytes, by path under the work dir."""
    return {str(p.relative_to(wd)): hashlib.sha256(p.read_bytes()).hexdigest() for p in parquet_files(wd)}


def reference(cores: int) -> dict[str, str]:
    """Digests of an uninterrupted run of CONFIG with ``cores`` cores (once per session)."""
    if cores not in _REFERENCE:
        _REFERENCE[cores] = digests(reference_dir(cores))
    return _REFERENCE[cores]


def reference_dir(cores: int) -> Path:
    """The finished run of CONFIG with ``cores`` cores, shared by the session's tests: read it, or copy it."""

    def run(wd: Path) -> None:
        snakemake(workdir(wd), WAREHOUSE_RULE, "--cores", str(cores), "--quiet", "all")

    return built_once(f"reference-{cores}", run)


def job_logs(wd: Path, game: str) -> list[str]:
    return [p.read_text() for p in sorted((wd / "results" / "logs" / game).rglob("*.log"))]


def planned_jobs(output: str) -> dict[str, int]:
    """Job counts from the 'Job stats' table of a dry run."""
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", output, re.M)}
    counts.pop("total", None)
    return counts


def planned_stages(output: str) -> set[str]:
    """The rules of a dry run's jobs, a batch job's (``<game>_<stage>_<group>_<hash>_batchN``) named by its
    stage's rule (game and stage names hold no underscore)."""
    return {re.sub(r"^([a-z]+_[a-z]+)_\w*_[0-9a-f]{6}_batch\d+$", r"\1", r) for r in planned_jobs(output)}


def planned_shards(game: str, section: dict, root: Path) -> list[str]:
    """Every planned shard of ``section`` computed in-process (no Snakemake); the files written."""
    from engines.core.layout import shard_path
    from engines.pipeline.compute.jobs import run_shard
    from engines.registry import engine

    eng = engine(game)
    specs = eng.plan(section)
    files = []
    for spec in specs:
        outputs = {t: shard_path(game, t, spec, root=str(root)) for t in eng.kind_of(spec).tables}
        inputs = [shard_path(game, t, s, root=str(root)) for t, s in eng.kind_of(spec).inputs(spec, specs)]
        run_shard(game, spec, outputs, threads=1, inputs=inputs, log=str(root / "log.txt"))
        files += outputs.values()
    return files


def shards_warehouse(game: str, section: dict, root: Path) -> Path:
    """Every planned shard of ``section`` computed in-process (no Snakemake), then the warehouse."""
    from engines.pipeline.catalog.warehouse import build

    files = planned_shards(game, section, root)
    db = root / "warehouse.duckdb"
    with open(root / "wh.log", "w") as log:
        build(files, db, log=log)
    return db


def bound_record(files: list[str], shard: int, **fields) -> dict:
    """A check record line for ``shard`` of the kept campaign whose files are ``files``, bound to the
    data hashes its files have now (as `cardlab verify --recompute` writes it); ``fields`` override."""
    from engines.core.layout import parse_shard_path
    from engines.core.store import HASH_KEY, read_meta

    metas = [read_meta(f) for f in files if parse_shard_path(f)[1].shard == shard]
    hashes = {m["table"]: m[HASH_KEY] for m in metas}
    line = {
        "shard": shard,
        "matched": True,
        "files": hashes,
        "recomputed": hashes,
        "engine_version": metas[0]["engine_version"],
        "date": "2026-12-01",
        "machine": "Test CPU (x86_64)",
        "cpu_s": 75.0,
    }
    return {**line, **fields}
