"""numba's on-disk cache of compiled kernels, kept true to the code it was compiled from."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numba


def drop_stale_caches(package: Path, modules: Sequence[str]) -> None:
    """Remove numba's cached kernels of `modules` (files of the folder `package`) when any of
    their files changed since the caches were written (a mark file beside them holds their hash).

    numba checks a cached kernel against the file of its entry point only, not against the
    modules it calls or inlines: after an edit of one of those the kernel would load stale.
    Under ``NUMBA_CACHE_DIR`` numba keeps the caches in subfolders this does not check."""
    folder = Path(numba.config.CACHE_DIR or package / "__pycache__")
    h = hashlib.sha256()
    for module in modules:
        h.update((package / f"{module}.py").read_bytes())
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
