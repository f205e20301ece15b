"""numba's on-disk cache of compiled kernels: true to the code it was compiled from, and
written once per machine however many shard jobs start together."""

from __future__ import annotations

import fcntl
import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numba

ENGINES = Path(__file__).resolve().parents[1]


def cache_folder(package: Path) -> Path:
    """Where numba caches the kernels of the modules of ``package``."""
    return Path(numba.config.CACHE_DIR or package / "__pycache__")


def drop_stale_caches(package: Path, modules: Sequence[str], extra: Sequence[str] = ()) -> None:
    """Remove numba's cached kernels of `modules` (files of the folder `package`) when any of
    their files, or of `extra` (paths under engines/, such as "core/rng.py"), changed since the
    caches were written (a mark file beside them holds their hash).

    numba checks a cached kernel against the file of its entry point only, not against the
    modules it calls or inlines: after an edit of one of those the kernel would load stale.
    Under ``NUMBA_CACHE_DIR`` numba keeps the caches in subfolders this does not check."""
    folder = cache_folder(package)
    h = hashlib.sha256()
    for path in [package / f"{m}.py" for m in modules] + [ENGINES / e for e in extra]:
        h.update(path.read_bytes())
    version = h.hexdigest()[:16]
    mark = folder / f"{package.name}-kernels.version"
    try:
        if mark.exists() and mark.read_text() == version:
            return
        for module in modules:
            for cached in (*folder.glob(f"{module}.*.nbi"), *folder.glob(f"{module}.*.nbc")):
                cached.unlink(missing_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        mark.write_text(version)
    except OSError:  # a read-only checkout: numba caches elsewhere then
        return


@contextmanager
def compiling_alone(
    kernels: Sequence[object], package: Path, modules: Sequence[str] = (), extra: Sequence[str] = ()
) -> Iterator[None]:
    """Hold the package's compile lock (beside numba's cache) while `kernels` may compile here.

    Shard jobs of one rule start together on a fresh machine; without the lock each compiles
    the same kernel (up to a minute of CPU each).  With it the first compiles and writes
    numba's cache, and the others wait, then load it.  Inside the lock, stale caches of
    `modules` (and `extra`) are dropped first (:func:`drop_stale_caches`).  A process whose
    kernels are all compiled already takes no lock."""
    if all(getattr(k, "overloads", None) for k in kernels):
        yield
        return
    folder = cache_folder(package)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = open(folder / f"{package.name}-compile.lock", "a")  # noqa: SIM115 (held across the yield)
    except OSError:  # a read-only checkout: numba caches elsewhere, and compiling twice is only slower
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if modules:
            drop_stale_caches(package, modules, extra)
        yield
