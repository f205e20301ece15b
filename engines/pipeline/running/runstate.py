"""Whether a run goes in this directory: the run lock's probe and a campaign run's note.

A cardlab snakemake keeps an flock on ``.snakemake/cardlab-run.lock`` while it runs, and writes
its start time in it (:func:`run_alive` probes it, :func:`run_start` reads it).  A ``cardlab redblack campaign K --run N`` writes a note
beside its run config (how it was started, the config, its shards' files) so that
``cardlab status`` shows the run's shards while it goes (:func:`running_campaign`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ...core.layout import RUN_LOCK

RUN_LOG = "results/logs/snakemake.log"  # `cardlab run`'s snakemake output
RUN_DIR = ".snakemake"  # a campaign run's config and its note live here while it goes, beside Snakemake's files


def run_start(lock_path: str | None = None) -> float | None:
    """When the run holding (or last holding) this directory's run lock began: it writes its start
    there when it takes the lock (engines/pipeline/running/resume.py); None if no run has."""
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
