"""Whether a run goes in this directory: the run lock and a campaign run's note.

A cardlab snakemake keeps an flock on ``.snakemake/cardlab-run.lock`` while it runs, and writes its
start time in it (:func:`hold_run_lock` takes it, :func:`run_alive` probes it, :func:`run_start`
reads it).  A ``cardlab redblack campaign K --run N`` writes a note
beside its run config (how it was started, the config, its shards' files) so that
``cardlab status`` shows the run's shards while it goes (:func:`running_campaign`).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from ...core.layout import RUN_LOCK

RUN_LOG = "results/logs/snakemake.log"  # `cardlab run`'s snakemake output
RUN_DIR = ".snakemake"  # a campaign run's config and its note live here while it goes, beside Snakemake's files


# Held open for the life of the process that runs the workflow: the kernel drops an flock
# when its holder dies (SIGKILL included), so holding it proves no other run is alive.
_RUN_LOCK: int | None = None


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
    # when this run began, for `cardlab status` and the failure report (:func:`run_start`)
    os.ftruncate(fd, 0)
    os.write(fd, json.dumps({"pid": os.getpid(), "started": time.time()}).encode())
    return True


def run_start(lock_path: str | None = None) -> float | None:
    """When the run holding (or last holding) this directory's run lock began: it writes its start
    there when it takes the lock (:func:`hold_run_lock`); None if no run has."""
    try:
        return float(json.loads(Path(RUN_LOCK if lock_path is None else lock_path).read_text())["started"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def run_alive(lock_path: str | None = None) -> bool:
    """Whether a cardlab snakemake holds this directory (it keeps an flock on .snakemake/cardlab-run.lock)."""
    import fcntl

    lock_path = RUN_LOCK if lock_path is None else lock_path
    if not os.path.exists(lock_path):
        return False
    fd = os.open(lock_path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


@dataclass(frozen=True)
class RunNote:
    """A campaign run going in this directory: how it was started, its config, its shards' files."""

    command: str
    config: str
    targets: frozenset[str]


def write_run_note(note: str, run: RunNote) -> None:
    """The note `cardlab status` finds a campaign run by (engines/campaign/shards.py writes it)."""
    with open(note, "w") as out:
        json.dump(
            {"pid": os.getpid(), "command": run.command, "config": run.config, "targets": sorted(run.targets)}, out
        )


def running_campaign(state_dir: str = RUN_DIR) -> RunNote | None:
    """The campaign run going in this directory, from the note beside its config; None if none is
    (a note whose process is gone, left by a run killed outright, is stale and passed over)."""
    for note in sorted(Path(state_dir).glob("cardlab-run-*.json")):
        try:
            data = json.loads(note.read_text())
            pid = int(data["pid"])
            config = str(data["config"])
            run = RunNote(str(data["command"]), config, frozenset(map(str, data["targets"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # being written, or not ours
        if _alive(pid) and os.path.isfile(config):
            return run
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True
