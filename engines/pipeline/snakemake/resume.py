"""One run at a time in a directory, and a deleted shard recomputed: checked before a real run starts.

Resuming after a kill is Snakemake's own, by the profiles' settings: ``rerun-incomplete``
reruns the jobs a killed run had in flight, and ``nolock`` leaves out Snakemake's lock
files, which a SIGKILLed run leaves behind and the next run refuses to start over.  In
their place the Snakefile's main process holds an flock for the run's life
(:func:`engines.pipeline.bookkeeping.runstate.hold_run_lock`): the kernel drops it when its holder dies, so it is never
stale, and a second run in the same directory stops at once.  What Snakemake does not
do: a planned shard deleted under a newer warehouse is not recomputed ("Nothing to be
done"), so a missing one removes the warehouse's manifest (:func:`rebuild_what_is_missing`).
Only when the command line asks Snakemake to run jobs
(:func:`engines.pipeline.snakemake.options.runs_jobs`, read with Snakemake's own parser): a dry
run, a summary, a graph and the like change no file.  docs/scaling.md.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from ...core.errors import CardlabError
from ...core.fmt import listed
from ...core.layout import RUN_LOCK, catalog_of
from ..bookkeeping.runstate import hold_run_lock, lock_refusal, record_refusal
from ..catalog.warehouse import loaded_files, manifest_current


def prepare_run(planned_files: Sequence[str], manifest: str, lock_path: str = RUN_LOCK) -> None:
    """Before a real run: refuse when another run is alive here (it holds the run lock), else make
    missing shards rebuild (:func:`rebuild_what_is_missing`)."""
    if not hold_run_lock(lock_path):
        # the holder may end between the two looks: then the plain words
        refusal = lock_refusal(lock_path) or f"another snakemake run held {lock_path} a moment ago: run again"
        record_refusal(refusal, lock_path)  # for `cardlab run`, which started this process and shows the view
        raise CardlabError(refusal)
    rebuild_what_is_missing(planned_files, manifest)


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
    # Only a file the catalog was built from: one it never loaded (planned by a config change) is a new
    # input of the warehouse job, which reruns by itself; removing the manifest then would rerun every
    # game's report too (they read the catalog as `ancient`), which `snakemake -n` never lists.
    loaded = loaded_files(manifest)
    gone = [f for f in missing if f in loaded]
    if not manifest_current(manifest):
        gone.append(catalog_of(manifest))
        missing.append(catalog_of(manifest))
    if gone:
        os.unlink(manifest)
        print(f"cardlab: missing {listed(gone)}: recomputing it and rebuilding the warehouse", file=sys.stderr)
    return missing
