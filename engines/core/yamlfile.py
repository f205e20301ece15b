"""Reading a YAML file strictly, with one-line errors naming the file and line.

Every YAML file cardlab reads (config files, a game's config schema, engines/prices.yaml, a
campaign's run config) is read here: a key given twice in one mapping is refused (PyYAML keeps the
last silently), text that is not UTF-8 and YAML syntax are said in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import CardlabError

CONFIG_HINT = "run in the project directory or name one with --config"

# libyaml's parser where PyYAML was built with it: the live view reads the config while a run goes
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class UniqueKeyLoader(_SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (YAML says keys are unique;
    PyYAML keeps the last silently, so ``games: 6000`` then ``games: 60`` would run 60)."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node.start_mark)
                except TypeError:  # an unhashable key: the base class reports it
                    continue
                if first is not key_node.start_mark:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"duplicate key {key!r} (first given on line {first.line + 1}); keep one",
                        key_node.start_mark,
                    )
        return super().construct_mapping(node, deep)


def read_yaml(path: str | Path, what: str = "config file", hint: str = CONFIG_HINT) -> Any:
    """A YAML file's data; one-line errors for a missing file, text that is not UTF-8,
    YAML syntax and duplicate keys (each naming the file and line)."""
    path = Path(path)
    if not path.is_file():
        where = "" if path.is_absolute() else f" (looked in {Path.cwd()})"
        raise CardlabError(f"{path}: {what} not found{where}; {hint}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CardlabError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise CardlabError(
            f"{path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}, column {column}); save it as UTF-8"
        ) from None
    try:
        return yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise CardlabError(f"{path}: {where}{exc.problem}") from None
    except yaml.YAMLError as exc:
        raise CardlabError(f"{path}: not valid YAML ({' '.join(str(exc).split())})") from None
