"""Which GPU a shard job computes on: the one its scheduler granted, or a free one of this machine's.

Under SLURM a job granted a GPU (its rule's ``gpu`` resource: the executor plugin's ``--gpus``) sees
only what it was granted: slurmd sets ``CUDA_VISIBLE_DEVICES`` from the generic resource, and the job
uses it as it is.  A local run with ``--resources gpu=N`` runs at most N GPU jobs at once but tells
none of them which device: each claims the first free device of this machine (those
``CUDA_VISIBLE_DEVICES`` lists, else one per ``/proc/driver/nvidia/gpus`` entry), an flock on
``.snakemake/cardlab-gpu-<device>.lock`` held for the job's life (the kernel drops it when the job
dies, so a claim is never stale), and sees only that device (``CUDA_VISIBLE_DEVICES`` set before
numba-cuda starts).  With every device claimed, a job waits for the first to come free.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_DIR = ".snakemake"
_CLAIMED: tuple[str, int] | None = None  # (device, lock fd) of this process, held until it exits


def machine_devices() -> list[str]:
    """This machine's GPUs as CUDA numbers them: the visible ones when the environment says, else the driver's."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [d.strip() for d in visible.split(",") if d.strip()]
    gpus = Path("/proc/driver/nvidia/gpus")
    count = len(list(gpus.iterdir())) if gpus.is_dir() else 0
    return [str(i) for i in range(max(count, 1))]


def granted_by_scheduler() -> bool:
    """A SLURM job whose devices SLURM chose: they are its own, nothing to claim."""
    return bool(os.environ.get("SLURM_JOB_ID")) and os.environ.get("CUDA_VISIBLE_DEVICES") is not None


def claim_device(lock_dir: str | os.PathLike = LOCK_DIR) -> str:
    """The device this job computes on, claimed for the process's life (a second call returns it again)."""
    global _CLAIMED
    if _CLAIMED is not None:
        return _CLAIMED[0]
    if granted_by_scheduler():
        device = os.environ["CUDA_VISIBLE_DEVICES"]
        _CLAIMED = (device, -1)
        return device
    devices = machine_devices()
    Path(lock_dir).mkdir(parents=True, exist_ok=True)
    fds = {d: os.open(Path(lock_dir, f"cardlab-gpu-{d}.lock"), os.O_RDWR | os.O_CREAT, 0o644) for d in devices}
    chosen = next((d for d in devices if _try_lock(fds[d])), None)
    if chosen is None:  # every device busy (more GPU jobs than devices): wait for the first one
        chosen = devices[0]
        fcntl.flock(fds[chosen], fcntl.LOCK_EX)
    for d, fd in fds.items():
        if d != chosen:
            os.close(fd)
    os.environ["CUDA_VISIBLE_DEVICES"] = chosen
    _CLAIMED = (chosen, fds[chosen])
    return chosen


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True
