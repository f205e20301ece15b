"""The one entry point of every Snakemake job (workflow/scripts/step.py): run a step, fail in one line.

Each rule names its step in ``params.step``; the step's function does the work
through the engines and the pipeline modules.  A CardlabError ends the job with
``error: <reason>`` on stderr (and in the job's log) and exit status 1.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def _steps() -> dict[str, Callable]:
    from ..report.common import report_from_snakemake
    from ..report.index import index_from_snakemake
    from .jobs import shard_from_snakemake
    from .warehouse import warehouse_from_snakemake

    return {
        "shard": shard_from_snakemake,
        "warehouse": warehouse_from_snakemake,
        "game_report": report_from_snakemake,
        "index": index_from_snakemake,
    }


def catalog_inputs(smk) -> None:
    """A step reading the warehouse is given the catalog, not the manifest the warehouse rule
    declares (Snakemake deletes declared outputs; the catalog is swapped in by the job)."""
    from .warehouse import MANIFEST_SUFFIX, catalog_of

    for i, f in enumerate(smk.input):
        if str(f).endswith(MANIFEST_SUFFIX):
            smk.input[i] = catalog_of(f)
    for name, value in list(smk.input.items()):
        if isinstance(value, str) and value.endswith(MANIFEST_SUFFIX):
            setattr(smk.input, name, catalog_of(value))


def run(smk) -> None:
    from ..core.errors import CardlabError

    try:
        if smk.params.step != "warehouse":
            catalog_inputs(smk)
        _steps()[smk.params.step](smk)
    except CardlabError as exc:
        message = f"error: {exc}"
        print(message, file=sys.stderr)
        if len(smk.log):
            with open(smk.log[0], "a") as log:
                print(message, file=log)
        sys.exit(1)
