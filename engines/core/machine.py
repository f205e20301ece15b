"""What a job ran on: the kind of CPU, and the process's peak memory.

CPU seconds compare only between jobs on the same kind of CPU: a campaign spans working sessions,
and a session may get a machine of another kind (the same name hides a CPU generation 2.5 times
slower), so a rate measured on one never prices work on the other.  Jobs, steps, recomputations and
bench runs all name the machine this one way.
"""

from __future__ import annotations

import platform
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def machine() -> str:
    """The kind of CPU this process runs on, e.g. ``AMD EPYC (x86_64, family 25, model 1)``."""
    fields = {}
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            key, sep, val = line.partition(":")
            if not sep:
                if fields:
                    break  # the first processor's block is enough
                continue
            fields.setdefault(key.strip(), val.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or "unknown CPU"
    detail = [platform.machine() or "unknown architecture"]
    if "cpu family" in fields and "model" in fields:
        detail += [f"family {fields['cpu family']}", f"model {fields['model']}"]
    return f"{name} ({', '.join(detail)})"


def peak_mb() -> float | None:
    """This process's peak resident memory in MB: its own high-water mark (``ru_maxrss`` would be inherited
    across exec from the process that forked it, Snakemake's), None where the system does not say."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return None
