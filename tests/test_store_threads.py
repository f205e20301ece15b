"""Reading a cardlab file starts no Arrow thread pool: a process that has used those pools aborts
at exit now and then ("terminate called without an active exception", apache/arrow#34314), which
fails a shard job after its files were written (measured: 5 of 100 processes that wrote
and read one small file, 0 of 200 once reads used one thread)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

JOB = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from engines.core.store import read_meta, read_table, read_verified, write_parquet

def threads():
    with open("/proc/self/status") as f:
        return int(f.read().split("Threads:")[1].split()[0])

path = write_parquet(sys.argv[2], {"a": np.arange(1000), "b": ["x"] * 1000}, {"engine_version": "t"})
before = threads()
table = read_table(path)
meta, again = read_verified(path)
print(before, threads(), table.num_rows, again.equals(table), read_meta(path) == meta)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="counts threads in /proc (Linux)")
def test_reading_a_cardlab_file_starts_no_thread(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", JOB, str(ROOT), str(tmp_path / "t.parquet")], capture_output=True, text=True, check=True
    )
    before, after, rows, same, meta = out.stdout.split()
    assert (after, rows, same, meta) == (before, "1000", "True", "True")
