"""The config's plan as files: which config files a run plans from, every shard file a config
plans, and the spec behind a shard's name.  (Only what ``cardlab --help`` may import: no YAML.)"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..core.errors import CardlabError
from ..core.layout import RESULTS, shard_path
from ..registry import GAMES, engine


def planned(config: dict, results: str = RESULTS) -> dict[str, tuple[str, str, dict]]:
    """path -> (game, table, spec) for every file the config plans."""
    out = {}
    for game in GAMES:
        if not config.get(game):
            continue
        eng = engine(game)
        for spec in eng.plan(config[game]):
            for table in eng.spec_tables(spec):
                out[shard_path(game, table, spec, root=results)] = (game, table, spec)
    return out


def find_spec(plan: Sequence[dict], experiment: str, variant: str, shard: str | int) -> dict:
    """The planned spec a shard's wildcards name."""
    for spec in plan:
        if spec["experiment"] == experiment and spec["variant"] == variant and int(spec["shard"]) == int(shard):
            return spec
    raise CardlabError(f"no planned shard {experiment}/{variant}/{shard} in the config")


def shard_priority(order: str | None, shard: int, last: int) -> int:
    """Snakemake's priority of a shard job (a larger one starts sooner) under the config's
    ``shard_order``: a run stopped part way then leaves its finished shards in one block of
    numbers (but for shards that ran side by side), not scattered over its range.  Positive:
    the ILP scheduler's objective adds them up."""
    if order == "descending":
        return shard + 1
    if order == "ascending":
        return last + 1 - shard
    return 0


DEFAULT_CONFIG = "config.yaml"


def snakemake_executable() -> str:
    """The snakemake beside this Python (the project's environment), else the one on PATH."""
    here = Path(sys.executable).with_name("snakemake")
    return str(here) if here.exists() else "snakemake"


def run_config_files(given: Sequence[str | Path] = ()) -> list[str]:
    """The config files a run reads: the ``--configfile`` files when any are given (only
    those, merged in order), else config.yaml.  The Snakefile, ``cardlab verify``,
    ``status`` and ``recompute`` all plan from this one rule (docs/config.md)."""
    return [str(p) for p in given] or [DEFAULT_CONFIG]


def add_plan_options(parser) -> None:
    """``--results DIR`` and ``--config FILE`` (repeatable, see :func:`run_config_files`) for a
    command that checks a results tree against what a run plans."""
    parser.add_argument("--results", default=RESULTS, help="results tree (default: %(default)s)")
    parser.add_argument(
        "--config",
        action="append",
        metavar="FILE",
        help=f"config file; several are merged in order, as by `snakemake --configfile A B` (default: {DEFAULT_CONFIG})",
    )


def snakemake_config_files(argv: Sequence[str]) -> list[str]:
    """The config files a snakemake command line makes a run read (``--configfile A B``,
    ``--configfiles``, ``--configfile=A``), by :func:`run_config_files`."""
    given: list[str] = []
    taking = False
    for arg in argv:
        name, eq, value = arg.partition("=")
        if name in ("--configfile", "--configfiles"):
            taking = not eq
            given += [value] if eq else []
        elif taking and not arg.startswith("-"):
            given.append(arg)
        else:
            taking = False
    return run_config_files(given)
