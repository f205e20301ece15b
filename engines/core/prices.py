"""What work costs before a run measures it: engines/prices.yaml, measured data read here.

The kinds price their shards (``Schedule.batch_cpu_s``, ``compile_cpu_s``) and the live view its
run's start-up and steps from that file; none of it is code, so no engine's version covers it."""

from __future__ import annotations

from functools import cache
from pathlib import Path

PRICES = Path(__file__).resolve().parent.parent / "prices.yaml"


@cache
def _prices() -> dict:
    from .yamlfile import read_yaml

    return read_yaml(PRICES, "prices file", "restore it with `git checkout -- engines/prices.yaml`")


def kind_price(key: str, name: str, default: float | None = None) -> float | None:
    """A kind's price ``name`` (per_unit, shard, compile) under ``key`` (game/kind[/what]); ``default``
    where the file names none."""
    value = (_prices()["kinds"].get(key) or {}).get(name)
    return default if value is None else float(value)


def run_price(name: str) -> float:
    """What a run costs beside its shards (job_start, compile, report, index, warehouse, ...)."""
    return float(_prices()["run"][name])
