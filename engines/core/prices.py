"""What work costs before a run measures it: engines/prices.yaml, measured data read here.

The kinds price their shards (``Schedule.cpu_estimate_s``, ``compile_cpu_s``) and the live view its
run's start-up and steps from that file; none of it is code, so no engine's version covers it.
The file is checked against :data:`SCHEMA` when read: a price of the wrong shape is one line naming
the file and the key, never a traceback in whatever first asked for a price."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

from .errors import CardlabError

PRICES = Path(__file__).resolve().parent.parent / "prices.yaml"
RESTORE = "restore it with `git checkout -- engines/prices.yaml`"
MAX_PRICE = 1e9
"""CPU seconds: no price comes near a CPU-year per unit; a larger one is a typo (and the bound keeps
infinity out, which JSON schema's ``minimum`` alone lets through)."""

_PRICE = {"type": "number", "minimum": 0, "maximum": MAX_PRICE}
SCHEMA = {
    "type": "object",
    "required": ["kinds", "run"],
    "additionalProperties": False,
    "properties": {
        "kinds": {
            "type": "object",
            "propertyNames": {"pattern": r"^[a-z0-9_]+/[a-z0-9_]+(/[a-z0-9_]+)?$"},
            "additionalProperties": {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": False,
                "properties": {"per_unit": _PRICE, "shard": _PRICE, "compile": _PRICE},
            },
        },
        "run": {"type": "object", "additionalProperties": _PRICE},
    },
}
"""kinds -> {game/kind[/what]: {per_unit, shard, compile}}, run -> {name: price}: CPU seconds, finite, >= 0."""


@cache
def _prices() -> dict:
    from .yamlfile import read_yaml

    data = read_yaml(PRICES, "prices file", RESTORE)
    problem = price_problem(data)
    if problem is not None:
        raise CardlabError(f"{PRICES}: {problem}; {RESTORE}")
    return data


def price_problem(data: Any) -> str | None:
    """Why ``data`` is not a prices file (the first problem, at its key), else None."""
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        at = ".".join(map(str, errors[0].path))
        return f"{at + ': ' if at else ''}{errors[0].message}"
    for section, entries in data.items():  # NaN passes every JSON schema bound: refused here
        for key, value in entries.items():
            for name, price in value.items() if isinstance(value, dict) else [("", value)]:
                if not math.isfinite(price):
                    where = ".".join(p for p in (section, key, name) if p)
                    return f"{where}: {price} is not a finite number of CPU seconds"
    return None


def kind_price(key: str, name: str, default: float | None = None) -> float | None:
    """A kind's price ``name`` (per_unit, shard, compile) under ``key`` (game/kind[/what]); ``default``
    where the file names none."""
    value = (_prices()["kinds"].get(key) or {}).get(name)
    return default if value is None else float(value)


def run_price(name: str) -> float:
    """What a run costs beside its shards (job_start, compile, report, index, warehouse, ...)."""
    try:
        return float(_prices()["run"][name])
    except KeyError:
        raise CardlabError(f"{PRICES}: run.{name}: no such price; {RESTORE}") from None
