"""The config's plan as files: every shard file a config plans, and the spec behind a shard's name."""

from __future__ import annotations

from collections.abc import Sequence

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
