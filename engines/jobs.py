"""Running one planned shard: the glue between Snakemake and a game engine.

Every game module offers the same small interface (see docs/engines.md):

* ``GAME``: its name; ``TABLES``: the tables a shard writes, name -> pyarrow schema;
* ``plan(section) -> list[dict]``: the shard specs of its config section, each
  with ``experiment``, ``variant`` and ``shard`` (int) plus the game's own
  parameters, JSON-serialisable;
* ``run_shard(spec, progress, inputs) -> dict[table, columns]``: compute one shard.

This module turns a spec into file paths, runs the engine, and writes each
table atomically with the provenance record.
"""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Sequence

from .errors import CardlabError
from .progress import Progress
from .provenance import provenance
from .shards import shard_name
from .store import write_parquet

RESULTS = "results"


def engine(game: str) -> ModuleType:
    from . import GAMES

    if game not in GAMES:
        raise CardlabError(f"unknown game {game!r}; known: {', '.join(GAMES)}")
    return importlib.import_module(f"engines.{game}")


def shard_path(game: str, table: str, spec: dict, root: str = RESULTS) -> str:
    """Where a shard's table lives: results/<game>/<table>/<experiment>/<variant>/shard=NNNN.parquet."""
    return f"{root}/{game}/{table}/{spec['experiment']}/{spec['variant']}/{shard_name(int(spec['shard']))}.parquet"


def shard_pattern(game: str, table: str, root: str = RESULTS) -> str:
    """The same path as a Snakemake output pattern with wildcards."""
    return f"{root}/{game}/{table}/{{experiment}}/{{variant}}/shard={{shard}}.parquet"


def log_pattern(game: str, root: str = RESULTS) -> str:
    return f"{root}/logs/{game}/{{experiment}}/{{variant}}/shard={{shard}}.log"


def find_spec(plan: Sequence[dict], experiment: str, variant: str, shard: str | int) -> dict:
    for spec in plan:
        if spec["experiment"] == experiment and spec["variant"] == variant and int(spec["shard"]) == int(shard):
            return spec
    raise CardlabError(f"no planned shard {experiment}/{variant}/{shard} in the config")


def set_threads(threads: int) -> None:
    """Numba follows the job's thread count (Snakemake only caps OMP/BLAS)."""
    import numba

    n = max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(n)


def run_shard(game: str, spec: dict, outputs: dict[str, str], threads: int = 1,
              inputs: Sequence[str] = (), log: str | None = None) -> None:
    """Compute one shard and write every table it produces, each atomically."""
    mod = engine(game)
    set_threads(threads)
    stream = open(log, "a") if log else sys.stderr
    try:
        progress = Progress(spec.get("work", 0) or 1, getattr(mod, "WORK_UNIT", "items"),
                            label=f"{game} {spec['experiment']}/{spec['variant']}/{spec['shard']}",
                            stream=stream)
        tables = mod.run_shard(spec, progress, list(inputs))
        progress.close()
        missing = set(outputs) - set(tables)
        if missing:
            raise CardlabError(f"{game}.run_shard did not produce tables {sorted(missing)}")
        for table, path in outputs.items():
            columns = tables[table]
            rows = len(next(iter(columns.values()))) if len(columns) else 0
            meta = provenance(game, table=table, experiment=spec["experiment"],
                              variant=spec["variant"], shard=int(spec["shard"]), spec=spec, rows=rows)
            write_parquet(path, columns, meta, schema=mod.TABLES[table])
        print(f"wrote {len(outputs)} table(s) for {game} {spec['experiment']}/{spec['variant']}/"
              f"{spec['shard']}", file=stream)
    finally:
        if log:
            stream.close()


def run_from_snakemake(smk) -> None:
    """Entry point for workflow/scripts/run_shard.py (``smk`` is Snakemake's ``snakemake`` object)."""
    outputs = {name: str(path) for name, path in smk.output.items()}
    log = str(smk.log[0]) if len(smk.log) else None
    try:
        run_shard(smk.params.game, dict(smk.params.spec), outputs, threads=smk.threads,
                  inputs=[str(p) for p in smk.input], log=log)
    except CardlabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
