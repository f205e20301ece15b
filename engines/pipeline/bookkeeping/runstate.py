"""Whether a run goes in this directory: the run lock and a campaign run's note.

A cardlab snakemake keeps an flock on ``.snakemake/cardlab-run.lock`` while it runs, and writes its
pid and start time in it (:func:`hold_run_lock` takes it, :func:`run_alive` probes it, :func:`run_start`
reads it, :func:`lock_refusal` says who holds it: the one refusal of a second run, whoever refuses; a
refused run is noted beside the lock, :func:`record_refusal`, so that whoever started it can tell).
A ``cardlab redblack campaign K --run N`` writes a note beside its run config (how it was started, the
config, its shards' files) so that ``cardlab status`` shows the run's shards while it goes
(:func:`running_campaign`).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from ...core.bookkeeping import parsed
from ...core.layout import RUN_LOCK

RUN_LOG = "results/logs/snakemake.log"  # `cardlab run`'s snakemake output
REFUSED = ".refused"  # beside the run lock: the last process it refused (:func:`record_refusal`)
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
    return _lock_record(RUN_LOCK if lock_path is None else lock_path)[1]


def lock_refusal(lock_path: str | None = None) -> str | None:
    """Why a run cannot go here, in the lock's words (the holder's pid and start, from its record); None if
    no run holds the lock."""
    lock_path = RUN_LOCK if lock_path is None else lock_path
    if not run_alive(lock_path):
        return None
    pid, started = _lock_record(lock_path)
    who = [f"pid {pid}"] * (pid is not None)
    who += [f"started {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(started))}"] * (started is not None)
    stop = f"stop it (`kill {pid}`)" if pid is not None else "stop it"
    return (
        f"another snakemake run is working in this directory ({'; '.join([*who, f'it holds {lock_path}'])}): "
        f"wait for it to end (`cardlab status` shows it), or {stop}, then run again"
    )


def record_refusal(line: str, lock_path: str = RUN_LOCK) -> None:
    """The lock's note that it refused this process, and in which words (:func:`refusal_of` reads it)."""
    note = lock_path + REFUSED
    temp = f"{note}.{os.getpid()}.tmp"  # two refused runs never write one file
    try:
        with open(temp, "w") as out:
            json.dump({"pid": os.getpid(), "at": time.time(), "refusal": line}, out)
        os.replace(temp, note)
    except OSError:  # a courtesy to the caller: the refusal itself is said all the same
        pass


def refusal_of(pid: int, since: float, lock_path: str | None = None) -> str | None:
    """The words the run lock refused process ``pid`` with, if it did since ``since`` (a run that ended
    non-zero is told apart from one refused by the lock by the lock's own note, not by Snakemake's words)."""
    data = _read("refusal note", (RUN_LOCK if lock_path is None else lock_path) + REFUSED)
    return data["refusal"] if data and data["pid"] == pid and data["at"] >= since else None


def _lock_record(lock_path: str) -> tuple[int | None, float | None]:
    """The pid and start the lock's holder wrote (:func:`hold_run_lock`); None for what is missing or not a number."""
    data = _read("lock record", lock_path) or {}
    started = data.get("started")
    return data.get("pid"), None if started is None else float(started)


def _read(kind: str, path: str | os.PathLike) -> dict | None:
    """A run-state file's fields through its schema (engines/core/bookkeeping.py); None when it is missing,
    being written or fails (such a file counts as absent)."""
    try:
        raw = Path(path).read_bytes()
    except OSError:
        return None
    data, _ = parsed(kind, raw)
    return data  # type: ignore[return-value]


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
        data = _read("run note", note)
        if data is None:
            continue  # being written, or not ours
        if _alive(data["pid"]) and os.path.isfile(data["config"]):
            return RunNote(data["command"], data["config"], frozenset(data["targets"]))
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True
