"""Shard jobs hide pandas, which pyarrow would import (0.5 CPU-s) only to ask whether a column is a pandas object."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

JOB = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from engines.core.store import read_table, without_pandas, write_parquet
without_pandas()
without_pandas()  # a second call changes nothing
path = write_parquet(sys.argv[2], {"a": np.arange(3), "b": ["x", "y", "z"]}, {"engine_version": "t"})
print(sorted(read_table(path).column_names), "pandas" in sys.modules)
try:
    import pandas  # noqa: F401
except ModuleNotFoundError as exc:
    print("hidden:", "without_pandas" in str(exc))
"""


def test_a_shard_job_writes_parquet_without_importing_pandas(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", JOB, str(ROOT), str(tmp_path / "t.parquet")], capture_output=True, text=True, check=True
    )
    assert out.stdout.splitlines() == ["['a', 'b'] False", "hidden: True"]
