"""Every bookkeeping file cardlab reads, its schema and its one reading: a bad one is left out, never believed.

A result file (a Parquet shard) that is bad stops what depends on it (engines/pipeline/catalog/warehouse.py).
A bookkeeping file only describes results: a job's timing record (``results/timings/**.json``,
engines/pipeline/bookkeeping/records.py), a line of a check record (``results/checks/*/*/*.jsonl``,
engines/pipeline/catalog/check_records.py) or a kept device measurement (``results/measurements/*/*.json``,
engines/pipeline/catalog/measurements.py).  Each kind has a JSON Schema here (types; numbers finite,
non-negative where they count and bounded: seconds below ten years, integers within the warehouse's
columns; dates that exist) and is parsed by :func:`strict_json` (UTF-8, no NaN or Infinity, which Python's
json would accept).  A file that fails is left out of the warehouse and of every estimate, and
:func:`left_out` names it with what is wrong and the fix (``cardlab verify``, ``cardlab status``).
The run lock's record, its refusal note and a campaign run's note (engines/pipeline/bookkeeping/runstate.py)
are read through :func:`parsed` too: one that fails counts as absent.  Ledgers are checked against
their grid by engines/core/ledger.py, engines/prices.yaml by engines/core/prices.py.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from .argtypes import INT64_MAX, TEN_YEARS_S
from .layout import MAX_SHARD, check_record_files, measurement_files, timings_dir

MAX_PEAK_MB = 2**30  # a petabyte: no job's memory comes near it
MAX_FIGURE = 1e18  # a measured figure (rates of deals a second are some 1e10)
EPOCH_MAX = 2**33  # seconds since 1970: the year 2242

SECONDS = {"type": "number", "minimum": 0, "maximum": TEN_YEARS_S}
COUNT = {"type": "integer", "minimum": 0, "maximum": INT64_MAX}
NAME = {"type": ["string", "null"]}
TIMING = {
    "type": "object",
    "properties": {
        "work": COUNT,
        "unit": {"type": "string"},
        "wall_s": SECONDS,
        "cpu_s": SECONDS,
        "threads": {"type": "integer", "minimum": 0, "maximum": 2**20},
        "machine": NAME,
        "cpu": NAME,
        "device": NAME,
        "device_id": NAME,
        "peak_mb": {"type": ["number", "null"], "minimum": 0, "maximum": MAX_PEAK_MB},
        "step": {"type": "string", "minLength": 1},
        "started": {"type": "number", "minimum": 0, "maximum": EPOCH_MAX},
    },
}
READING = {
    "type": "object",
    "required": ["done", "total", "unit", "rate", "elapsed_s"],
    "properties": {
        "done": COUNT,
        "total": COUNT,
        "unit": {"type": "string"},
        "rate": {"type": "number", "minimum": 0, "maximum": MAX_FIGURE},
        "elapsed_s": SECONDS,
    },
    "additionalProperties": False,
}
TIMING_RECORD = {
    "type": "object",
    "required": ["state"],
    "properties": {
        **TIMING["properties"],
        "state": {"enum": ["running", "done", "failed"]},
        "reading": READING,
        "last": {**TIMING, "type": ["object", "null"]},  # the attempt before (null: none finished)
        "error": {"type": "string"},  # a failed job's cause (engines/pipeline/snakemake/failures.py)
        "log": {"type": "string"},
    },
}
"""A job's timing record: ``running`` (started, its latest reading, the attempt before as ``last``),
``done`` with its timing (engines/pipeline/bookkeeping/records.py) or ``failed`` with its cause.  A field
not recorded (an older record's) is NULL in the warehouse, so none is required but the state."""

HASH = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
HASHES = {"type": "object", "minProperties": 1, "additionalProperties": HASH}
CHECK_RECORD = {
    "type": "object",
    "required": ["shard", "matched", "engine_version", "date", "machine", "cpu_s"],
    "properties": {
        "shard": {"type": "integer", "minimum": 0, "maximum": MAX_SHARD},
        "matched": {"type": "boolean"},
        "files": HASHES,  # table -> data_sha256 of the kept file checked
        "recomputed": HASHES,  # table -> data_sha256 of its recomputation
        "engine_version": {"type": "string", "minLength": 1},
        "date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "format": "date"},
        "machine": {"type": "string"},
        "cpu_s": SECONDS,
        "bound_by": {"type": "string", "minLength": 1},  # who bound an older line to its files
    },
    "dependentRequired": {"recomputed": ["files"], "bound_by": ["files"]},
    "additionalProperties": False,
}
"""A check record line: booleans are JSON booleans, integers are not booleans."""

FIGURE_VALUE = {"type": "number", "minimum": -MAX_FIGURE, "maximum": MAX_FIGURE}
MEASUREMENT = {
    "type": "object",
    "required": ["bench", "device", "host", "measured_on", "metrics"],
    "properties": {
        **dict.fromkeys(("bench", "device", "host"), {"type": "string", "minLength": 1}),
        "measured_on": CHECK_RECORD["properties"]["date"],
        "metrics": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["metric", "value"],
                "properties": {
                    "metric": {"type": "string", "minLength": 1},
                    "value": FIGURE_VALUE,
                    "low": {"anyOf": [FIGURE_VALUE, {"type": "null"}]},
                    "high": {"anyOf": [FIGURE_VALUE, {"type": "null"}]},
                    "unit": NAME,
                    "detail": NAME,
                },
            },
        },
    },
}
"""A kept device measurement (engines/pipeline/catalog/measurements.py)."""

PID = {"type": "integer", "minimum": 1, "maximum": 2**22}  # Linux's pid_max at most
RUN_NOTE = {
    "type": "object",
    "required": ["pid", "command", "config", "targets"],
    "properties": {
        "pid": PID,
        "command": {"type": "string"},
        "config": {"type": "string", "minLength": 1},
        "targets": {"type": "array", "items": {"type": "string"}},
    },
}
"""A campaign run's note beside its run config (engines/pipeline/bookkeeping/runstate.py): what ``cardlab
status`` shows while it goes.  A note that fails is passed over, as one being written is."""
LOCK_RECORD = {
    "type": "object",
    "properties": {"pid": PID, "started": {"type": "number", "minimum": 0, "maximum": EPOCH_MAX}},
}
"""What the run lock's holder writes in it (its pid and start); a field that fails is not said."""
REFUSAL_NOTE = {
    "type": "object",
    "required": ["pid", "at", "refusal"],
    "properties": {"pid": PID, "at": LOCK_RECORD["properties"]["started"], "refusal": {"type": "string"}},
}
"""The run lock's note of the last process it refused, and its words."""

SCHEMAS = {
    "timing record": TIMING_RECORD,
    "check record": CHECK_RECORD,
    "measurement": MEASUREMENT,
    "run note": RUN_NOTE,
    "lock record": LOCK_RECORD,
    "refusal note": REFUSAL_NOTE,
}
FIXES = {
    "timing record": "delete it: the next run of its job writes it again (`git checkout -- {path}` if git tracks it)",
    "check record": "delete line {line} of {path}, or `git checkout -- {path}` if it was edited by mistake",
    "measurement": "`git checkout -- {path}` restores a kept measurement; else delete it",
}
WHOLE_FILE_FIX = "remove it (`rm -r {path}`), or `git checkout -- {path}` if git tracks it"
TYPE_WORDS = {
    "number": "a number",
    "integer": "a whole number",
    "string": "text",
    "object": "an object",
    "array": "a list",
    "boolean": "true or false",
    "null": "null",
}


def strict_json(raw: bytes | str) -> object:
    """JSON as the files are written: UTF-8, finite numbers only; a ValueError saying why not."""
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw  # UnicodeDecodeError is a ValueError

    def no_constant(name: str):
        raise ValueError(f"{name} is not a JSON number")

    def finite(s: str) -> float:
        value = float(s)
        if not math.isfinite(value):
            raise ValueError(f"{s} is beyond any finite number")
        return value

    return json.loads(text, parse_constant=no_constant, parse_float=finite)


@cache
def validator(kind: str):
    import jsonschema

    cls = jsonschema.Draft202012Validator
    return cls(SCHEMAS[kind], format_checker=cls.FORMAT_CHECKER)


def shown(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def said(error) -> str:
    """One schema error as a person reads it: ``cpu_s: 'abc' is not a number``."""
    at = "/".join(map(str, error.absolute_path))
    where = f"{at}: " if at else ""
    rule, limit, value = error.validator, error.validator_value, error.instance
    if rule == "required":
        return f"{where}{error.message}"  # "'cpu_s' is a required property"
    if rule == "type":
        kinds = [limit] if isinstance(limit, str) else limit
        return f"{where}{shown(value)} is not {' or '.join(TYPE_WORDS.get(k, k) for k in kinds)}"
    if rule in ("minimum", "maximum"):
        return f"{where}{shown(value)} is {'below' if rule == 'minimum' else 'above'} {limit:,.12g}"
    if rule == "format":
        return f"{where}{shown(value)} is not a {limit} that exists"
    return f"{where}{error.message}"


def problem_of(kind: str, data: object) -> str | None:
    """Why parsed JSON is not a ``kind`` (a key of :data:`SCHEMAS`); None when it is one."""
    errors = sorted(validator(kind).iter_errors(data), key=lambda e: (len(e.absolute_path), list(map(str, e.path))))
    return said(errors[0]) if errors else None


def parsed(kind: str, raw: bytes | str) -> tuple[object | None, str | None]:
    """(the data, None) for a ``kind`` file's text, or (None, what is wrong)."""
    try:
        data = strict_json(raw)
    except ValueError as exc:
        return None, f"not JSON ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    problem = problem_of(kind, data)
    return (None, problem) if problem else (data, None)


@lru_cache(maxsize=8192)  # the live view reads every record each second; most have not changed
def timing_record(text: str) -> tuple[dict | None, str | None]:
    """A timing record's fields, or what is wrong with it.  An empty record is a job that has started and
    written nothing yet: ({}, None)."""
    if not text.strip():
        return {}, None
    return parsed("timing record", text)  # type: ignore[return-value]


def check_lines(path: str | os.PathLike) -> list[tuple[int, dict | None, str | None]]:
    """(line number, record, problem) of each line of a check record file; a file that cannot be read
    (a folder in its place, say) is one line 0 with the problem."""
    try:
        pieces = Path(path).read_bytes().split(b"\n")
    except OSError as exc:
        return [(0, None, unreadable(path, exc))]
    if pieces[-1] == b"":
        pieces.pop()  # the file's final newline
    out = []
    for n, raw in enumerate(pieces, 1):
        record, problem = parsed("check record", raw)
        out.append(
            (
                n,
                record,
                problem if problem is None or problem.startswith("not JSON") else f"not a check record: {problem}",
            )
        )
    return out  # type: ignore[return-value]


def measurement(path: str | os.PathLike) -> tuple[dict | None, str | None]:
    """A kept measurement's record, or what is wrong with it."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        return None, unreadable(path, exc)
    return parsed("measurement", raw)  # type: ignore[return-value]


def unreadable(path: str | os.PathLike, exc: OSError) -> str:
    return "a folder, not a file" if os.path.isdir(path) else f"unreadable ({exc.strerror or exc})"


@dataclass(frozen=True)
class LeftOut:
    """A bookkeeping file (or a line of one: ``line`` > 0) every reader leaves out, and why."""

    kind: str  # a key of SCHEMAS
    path: str
    problem: str
    line: int = 0

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    @property
    def fix(self) -> str:
        if self.kind == "check record" and not self.line:
            return WHOLE_FILE_FIX.format(path=self.path)
        if self.problem == "a folder, not a file":
            return WHOLE_FILE_FIX.format(path=self.path)
        return FIXES[self.kind].format(path=self.path, line=self.line)

    def message(self) -> str:
        """`cardlab verify`'s line: where, what is wrong, the fix."""
        return f"{self.where}: left out of the warehouse and every estimate ({self.problem}); fix: {self.fix}"


_SEEN: dict[str, tuple[tuple[int, int], list[LeftOut]]] = {}


def file_problems(kind: str, path: str) -> list[LeftOut]:
    """What is wrong with one bookkeeping file, read again only when it changed (the live view asks each second)."""
    try:
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        return []
    if path in _SEEN and _SEEN[path][0] == stamp:
        return _SEEN[path][1]
    if kind == "timing record":
        found = timing_file_problem(path)
        out = [LeftOut(kind, path, found)] if found else []
    elif kind == "check record":
        out = [LeftOut(kind, path, p, n) for n, _, p in check_lines(path) if p is not None]
    else:
        out = [LeftOut(kind, path, p)] if (p := measurement(path)[1]) else []
    if len(_SEEN) > 100_000:
        _SEEN.clear()
    _SEEN[path] = (stamp, out)
    return out


def timing_file_problem(path: str) -> str | None:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        return unreadable(path, exc)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not JSON (not UTF-8 text)"
    return timing_record(text)[1]


def left_out(results: str | os.PathLike) -> list[LeftOut]:
    """Every bookkeeping file (or line) under a results tree that fails its schema: the warehouse, the
    reports, the cost models and the campaign listings leave each out; `cardlab verify` names them."""
    timings = sorted(str(p) for p in Path(timings_dir(results)).rglob("*.json"))
    found = [("timing record", p) for p in timings]
    found += [("check record", p) for p in check_record_files(results)]
    found += [("measurement", p) for p in measurement_files(results)]
    return [bad for kind, path in found for bad in file_problems(kind, path)]
