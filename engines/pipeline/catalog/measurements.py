"""Kept measurements: figures a bench run measured on a machine the pipeline never runs on.

A GPU is lent to some working sessions only, and a bench run there (bench/redblack_gpu.py) is
the only measurement of that device: its record is kept under results/measurements/<game>/
(tracked, like a campaign's ledger) and loaded into the warehouse as ``measurements``, one row
per figure, so that the reports price work on that device from data, never from typed numbers.

A record is JSON: ``bench``, ``device``, ``host`` (the CPU beside it), ``measured_on`` (a date)
and ``metrics``, a list of {metric, value, low, high, unit, detail} (low and high: a 95 %
interval, or null).
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa

from ...core.bookkeeping import measurement
from ...core.layout import measurement_files

MEASUREMENT_SCHEMA = pa.schema(
    [
        ("game", pa.string()),
        ("record", pa.string()),
        ("bench", pa.string()),
        ("device", pa.string()),
        ("host", pa.string()),
        ("measured_on", pa.string()),
        ("metric", pa.string()),
        ("value", pa.float64()),
        ("low", pa.float64()),
        ("high", pa.float64()),
        ("unit", pa.string()),
        ("detail", pa.string()),
    ]
)
HEAD = ("bench", "device", "host", "measured_on")
FIGURE = ("metric", "value", "low", "high", "unit", "detail")


def measurements_table(results: str | os.PathLike) -> pa.Table:
    """Every kept measurement under a results tree, one row per figure; a record that fails its schema
    (engines/core/bookkeeping.py) is left out, and `cardlab verify` names it."""
    rows = [row for f in measurement_files(results) for row in measurement_rows(f)]
    return pa.Table.from_pylist(rows, schema=MEASUREMENT_SCHEMA)


def measurement_rows(path: str | os.PathLike) -> list[dict]:
    """One kept record's rows (none for a record that fails its schema)."""
    record, _problem = measurement(path)
    if record is None:
        return []
    head = {k: record[k] for k in HEAD}
    figures = [{k: m.get(k) for k in FIGURE} for m in record["metrics"]]
    for m in figures:
        m["unit"], m["detail"] = m["unit"] or "", m["detail"] or ""
    return [{"game": Path(path).parent.name, "record": Path(path).stem, **head, **m} for m in figures]
