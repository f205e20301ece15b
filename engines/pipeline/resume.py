"""Resuming after a killed run: stale Snakemake state cleared before a real run starts.

A SIGKILLed Snakemake leaves its lock files and "incomplete" markers behind, and the
next run refuses to start (LockException, IncompleteFilesException); a planned shard
deleted under a newer warehouse is not recomputed ("Nothing to be done").  Snakemake
checks locks and markers while it builds the DAG, before any rule or ``onstart``
handler runs, so this clean-up runs just before: from ``cardlab run`` before it starts
snakemake, and from the Snakefile only when the command line asks Snakemake to run
jobs (:func:`asks_for_a_run`).  A dry run (``-n``), ``--summary``, ``--dag`` and the
like change no file.  docs/scaling.md.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from ..core.fmt import listed
from ..core.layout import RUN_LOCK, catalog_of
from .warehouse import manifest_current

# Held open for the life of the process that runs the campaign: the kernel drops an flock
# when its holder dies (SIGKILL included), so holding it proves no other run is alive.
_RUN_LOCK: int | None = None

# Snakemake options after which it runs no job (or runs none of ours): no clean-up then.
NO_RUN_OPTIONS = frozenset(
    "-n --dry-run --dryrun -t --touch -S --summary -D --detailed-summary -l --list --list-rules "
    "--list-target-rules --lt --lint --dag --rulegraph --filegraph --d3dag --report --report-stylesheet "
    "--unlock --cleanup-metadata --cm --cleanup-shadow --delete-all-output --delete-temp-output "
    "--list-changes --lc --list-input-changes --li --list-params-changes --lp --list-code-changes "
    "--list-untracked --lu --print-compilation --export-cwl --archive --containerize --conda-create-envs-only "
    "--conda-cleanup-envs --generate-unit-tests --debug-dag-output -h --help --version -v".split()
)


def asks_for_a_run(argv: Sequence[str]) -> bool:
    """Whether a snakemake command line asks to run jobs (not a dry run, a listing, a report...)."""
    for arg in argv[1:]:
        name = arg.split("=", 1)[0]
        # the letters of combined short flags, up to a value (-pn, -nc2): an n among them is -n,
        # so a dry run never clears or rebuilds anything (and never says it does)
        short_flags = re.match(r"-([A-Za-z]*)", name).group(1) if re.match(r"-[^-]", name) else ""
        if name in NO_RUN_OPTIONS or "n" in short_flags:
            return False
    return True


def hold_run_lock(lock_path: str = RUN_LOCK) -> bool:
    """Take the exclusive run lock for the life of this process; False if another run holds it."""
    global _RUN_LOCK
    import fcntl

    if _RUN_LOCK is not None:
        return True
    os.makedirs(os.path.dirname(lock_path) or ".", exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # another run is alive here: its locks and markers are real
        os.close(fd)
        return False
    _RUN_LOCK = fd
    return True


def prepare_run(planned_files: Sequence[str], manifest: str, lock_path: str = RUN_LOCK) -> bool:
    """Before a real run: when no other run is alive here, clear what a killed one left
    (:func:`resume_after_kill`) and make missing shards rebuild (:func:`rebuild_what_is_missing`).
    Returns whether this process holds the run lock (and so did the clean-up)."""
    if not hold_run_lock(lock_path):
        return False
    resume_after_kill(Path(lock_path).parent)
    rebuild_what_is_missing(planned_files, manifest)
    return True


def resume_after_kill(state: Path) -> None:
    """Remove stale Snakemake locks, and the outputs of the jobs that were running with their
    "incomplete" markers, so they are simply rerun (what ``--rerun-incomplete`` does;
    recomputing gives the same bytes).  Only call it while holding the run lock."""
    locks = sorted((state / "locks").glob("*.lock")) if (state / "locks").is_dir() else []
    for f in locks:
        f.unlink(missing_ok=True)
    rerun = clear_incomplete(state / "incomplete")
    if locks or rerun:
        print(
            f"cardlab: resuming after a killed run: removed {len(locks)} stale lock file(s); "
            f"{len(rerun)} output(s) of interrupted jobs will be recomputed",
            file=sys.stderr,
        )


def rebuild_what_is_missing(planned_files: Sequence[str], manifest: str) -> list[str]:
    """Make this run recompute planned shard files that are missing.

    Snakemake reruns a job whose output is missing only when something downstream needs
    to run: a deleted shard whose warehouse is newer stays deleted ("Nothing to be done").
    So when a planned file is missing, a dangling symbolic link stands in its place (it is
    removed), or the catalog is not the one the warehouse manifest records (deleted or
    replaced), the manifest is removed: the warehouse job then runs and needs every shard.
    The catalog itself stays queryable until the rebuild replaces it.  Returns what was
    found missing (dangling links and the catalog included)."""
    missing = []
    for f in planned_files:
        if os.path.islink(f) and not os.path.exists(f):
            os.unlink(f)  # a dangling link where a shard belongs: the rerun writes the file
            missing.append(f)
        elif not os.path.lexists(f):
            missing.append(f)
    if not os.path.exists(manifest):  # no warehouse built yet (or being rebuilt anyway)
        return missing
    if not manifest_current(manifest):
        missing.append(catalog_of(manifest))
    if missing:
        os.unlink(manifest)
        print(f"cardlab: missing {listed(missing)}: recomputing it and rebuilding the warehouse", file=sys.stderr)
    return missing


def clear_incomplete(markers: Path) -> list[str]:
    """Delete every output Snakemake marked incomplete, and its marker; returns the outputs.

    Markers are files named by the urlsafe base64 of the output path, cut into
    '@'-prefixed directory names when long (snakemake/persistence/file.py).
    """
    from base64 import urlsafe_b64decode

    outputs: list[str] = []
    if not markers.is_dir():
        return outputs
    for dirpath, _, names in os.walk(markers):
        for name in names:
            marker = Path(dirpath, name)
            rel = marker.relative_to(markers)
            try:
                output = urlsafe_b64decode("".join(p.lstrip("@") for p in rel.parts)).decode()
            except (ValueError, UnicodeDecodeError):
                continue  # not a marker (e.g. snakemake's own migration flag)
            if os.path.isfile(output):
                os.unlink(output)
            marker.unlink(missing_ok=True)
            outputs.append(output)
    return sorted(outputs)
