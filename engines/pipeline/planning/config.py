"""Validating config.yaml: every field checked before any job starts.

The schema is one JSON-schema file per game, ``engines/<game>/config.schema.yaml``
(plus the top-level keys here); errors name the field's path and the allowed values.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from ...core.errors import CardlabError
from ...core.yamlfile import read_yaml
from ...interface import config_schema_of
from ...registry import GAMES, engine

SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
SAFE_HINT = "use letters, digits, '_', '-', '.' (max 64, not starting with '.', '-' or '_')"


def full_schema() -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "results": {"type": "string", "description": "ignored; results always go to results/"},
            "batch_cpu_s": {
                "type": "number",
                "minimum": 0,
                "description": "small shards share a job of at most this many estimated CPU seconds; 0: a job each",
            },
            "allow_campaign_work": {
                "type": "boolean",
                "description": "let a run recompute more than a core-hour of shards that only a campaign's ledger "
                "plans (engines/pipeline/commands/campaign_work.py); `snakemake --config allow_campaign_work=True`",
            },
            "shard_order": {
                "enum": ["ascending", "descending"],
                "description": "start the shards in this order of their numbers (absent: Snakemake's own order)",
            },
            **{g: config_schema_of(engine(g)) for g in GAMES},
        },
    }


def field_path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def describe(error) -> str:
    """One line per schema violation: the field's path, the value, what is allowed."""
    where = field_path(error.absolute_path)
    v = error.validator
    if v == "enum":
        allowed = ", ".join(map(repr, error.validator_value))
        return f"{where}: {error.instance!r} is not allowed; allowed values: {allowed}"
    if v == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = [k for k in error.instance if k not in allowed] if isinstance(error.instance, dict) else []
        hints = [f"{k!r}: did you mean {m[0]!r}?" for k in extra if (m := get_close_matches(str(k), allowed, n=1))]
        return (
            f"{where}: {error.message}; "
            + ("; ".join(hints) + "; " if hints else "")
            + f"allowed keys: {', '.join(allowed)}"
        )
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"{where}: {error.message}"
    if v == "type":
        return f"{where}: {short(error.instance)} has the wrong type; expected {error.validator_value}"
    if v == "pattern" and where.endswith(".name"):
        return f"{where}: {error.instance!r} is not safe as a path part; {SAFE_HINT}"
    if v == "not":
        return f"{where}: {describe_not(error.validator_value, error.instance)}"
    if v in ("oneOf", "anyOf"):
        context = list(error.context or [])
        # a value of the right shape for one form, wrong inside it: the inner problem is the one to fix
        # (the other forms' "wrong type" would only repeat the whole value)
        inner = [e for e in context if len(e.absolute_path) > len(error.absolute_path)]
        if inner:
            return "; ".join(sorted({describe(e) for e in inner})[:4])
        hints = sorted({describe(e) for e in context})
        return f"{where}: {short(error.instance)} fits none of the forms allowed here" + (
            "; " + " | ".join(hints[:4]) if hints else ""
        )
    return f"{where}: {error.message}"


def short(value: Any, most: int = 60) -> str:
    """A value as the config gave it, cut where a whole list or mapping would fill the line."""
    text = repr(value)
    return text if len(text) <= most else text[: most - 4] + " ..."


def describe_not(forbidden: dict, instance: Any) -> str:
    """Words for a schema's ``not``: reserved names and keys that exclude each other."""
    if "const" in forbidden:
        return f"{instance!r} is reserved; choose another name"
    if "pattern" in forbidden:
        return f"{instance!r} is reserved (names matching {forbidden['pattern']}); choose another name"
    groups = [forbidden] if "required" in forbidden else forbidden.get("anyOf", [])
    pairs = [g["required"] for g in groups if "required" in g]
    if pairs and isinstance(instance, dict):
        given = [p for p in pairs if all(k in instance for k in p)]
        shown = given[0] if given else pairs[0]
        return f"give either {shown[0]!r} or {' / '.join(repr(p[1]) for p in pairs)}, not both"
    return f"{instance!r} is not allowed here"


def check_shards(config: dict) -> list[str]:
    """Every shard of an experiment gets at least one game, deal or hand."""
    problems = []
    for game in GAMES:
        field_name = engine(game).sharded_field
        if field_name is None:
            continue
        for i, exp in enumerate((config.get(game) or {}).get("experiments") or []):
            work, shards = exp.get(field_name), exp.get("shards", 1)
            if isinstance(work, int) and isinstance(shards, int) and shards > work:
                problems.append(
                    f"{game}.experiments[{i}].shards: {shards} is more than {field_name} "
                    f"({work}); each shard needs at least one"
                )
    return problems


def check_names(config: dict) -> list[str]:
    """Experiment names: unique per game and safe as a path part."""
    problems = []
    for game in GAMES:
        section = config.get(game) or {}
        seen = set()
        for i, exp in enumerate(section.get("experiments", []) or []):
            name = exp.get("name") if isinstance(exp, dict) else None
            if not isinstance(name, str):
                continue
            where = f"{game}.experiments[{i}].name"
            if not SAFE_NAME.match(name):
                problems.append(f"{where}: {name!r} is not safe as a path part; {SAFE_HINT}")
            if name in seen:
                problems.append(f"{where}: duplicate experiment name {name!r}")
            seen.add(name)
    return problems


def check_config(config: Any, source: str = "config") -> dict:
    """The config if every field is valid; otherwise a CardlabError listing every problem.

    What only a game's planner can judge (e.g. a continuous shoe of infinitely many decks)
    is checked when the plan is built (:meth:`engines.pipeline.planning.plan.Plan.build`), which
    plans once and reports in the same form."""
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise CardlabError(f"{source}: the top level must be a mapping of game sections, got {type(config).__name__}")
    from jsonschema import Draft202012Validator  # 25 ms: only when a config is checked

    validator = Draft202012Validator(full_schema())
    errors = list(validator.iter_errors(config))
    # a misspelt key also fails the section's "one of these keys is required": say the first only
    misspelt = {tuple(e.absolute_path) for e in errors if e.validator == "additionalProperties"}
    errors = [e for e in errors if not (e.validator in ("oneOf", "anyOf") and tuple(e.absolute_path) in misspelt)]
    problems = sorted({describe(e) for e in errors})
    # later checks assume a schema-valid config
    for check in (check_names, check_shards):
        if not problems:
            problems = check(config)
    if problems:
        raise invalid(source, problems)
    return config


def invalid(source: str, problems: Sequence[str]) -> CardlabError:
    lines = "\n  ".join(problems)
    return CardlabError(f"{source} is invalid:\n  {lines}")


def check_config_files(paths) -> None:
    """What Snakemake's own config loading lets through or turns into a traceback (text that
    is not UTF-8, duplicate keys): checked in the Snakefile before ``configfile:``."""
    for path in paths:
        if Path(path).is_file():
            read_yaml(path)


def merge_config(base: dict, update: dict) -> dict:
    """``update`` merged into ``base`` the way Snakemake merges config files: mappings key by
    key, recursively; any other value (a list included) replaced."""
    out = dict(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge_config(out[key], value)
        else:
            out[key] = value
    return out


def read_config(paths: str | Path | Sequence[str | Path]) -> tuple[Any, str]:
    """(data, source) of one config file, or of several merged in order (as ``--configfile A B``);
    the source names the file(s) in messages.  Not yet validated."""
    files = [paths] if isinstance(paths, (str, Path)) else list(paths)
    merged: dict = {}
    for path in files:
        data = read_yaml(path)
        if not isinstance(data, dict) and data is not None:
            return data, str(path)  # names the file whose top level is wrong
        merged = merge_config(merged, data or {})
    return merged, " + ".join(map(str, files))
