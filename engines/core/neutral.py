"""The engines modules a shard job imports that no result version hashes, each with why it cannot
change a result value.

A shard's result version (engines/interface.py ``source_version``) hashes the core's
``CORE_FILES`` (engines/core/provenance.py) and its game's ``result_files``; every other engines
module a shard job imports must be listed here.  tests/test_versions.py runs a tiny shard job of
every kind of every game and fails on a module in neither set, so a new module that a job
imports is either hashed or declared here, with its reason.  This list lives outside the
hashed files on purpose: editing it reruns no shard.

Paths are relative to engines/; ``<game>/`` stands for every game's package.  A module that plans
shards is neutral because what it plans is the spec, which every shard file records and the
warehouse compares with the plan (a changed spec is a stale shard, whatever its version).
"""

from __future__ import annotations

NEUTRAL_FILES: dict[str, str] = {
    "__init__.py": "the package's docstring and the registry's game names",
    "registry.py": "maps a game's name to its engine class",
    "interface.py": "dispatches a spec to its kind and names its version: computes no value",
    "kinds.py": "the kind base class: declarations, scheduling hints and backend dispatch (a backend never "
    "changes results); what a shard computes is its kind's run(), hashed with its game",
    "core/__init__.py": "a docstring",
    "core/argtypes.py": "command options' domains and bounds of bookkeeping numbers",
    "core/bookkeeping.py": "reads and checks bookkeeping files (timing records, notes)",
    "core/errors.py": "the error type and its one-line messages",
    "core/grid.py": "plans shard ranges on a grid: the spec, recorded and compared",
    "core/kernel_cache.py": "where numba caches compiled kernels and a lock while they compile",
    "core/layout.py": "paths of the results tree",
    "core/lazy.py": "lazy re-exports of a game package's public names",
    "core/ledger.py": "which shards a campaign keeps: plans specs, computes no value",
    "core/machine.py": "names the CPU and peak memory for the timing record",
    "core/prices.py": "measured prices (engines/prices.yaml) for scheduling and the ETA",
    "core/progress.py": "progress lines and readings for the timing record",
    "core/runs.py": "interval arithmetic over shard numbers, for ledgers and messages",
    "pipeline/__init__.py": "a docstring",
    "pipeline/bookkeeping/__init__.py": "a docstring",
    "pipeline/bookkeeping/records.py": "writes timing records, never a result value",
    "pipeline/compute/__init__.py": "a docstring",
    "pipeline/compute/devices.py": "claims a GPU for a gpu-backend job: which device, never what it computes",
    "pipeline/compute/jobs.py": "runs a kind on a spec and writes what it returns through core/store.py (hashed)",
    "<game>/__init__.py": "lazy exports of the game's public names",
    "<game>/kinds/__init__.py": "a docstring",
    "<game>/reference.py": "the plain reference the tests compare the kernels with; no shard runs it",
}
"""Path under engines/ -> why the module, though a shard job imports it, changes no result value."""

GAME = "<game>/"


def neutral_files(game: str) -> dict[str, str]:
    """:data:`NEUTRAL_FILES` with ``<game>/`` spelt as ``game``'s package."""
    return {path.replace(GAME, f"{game}/", 1): why for path, why in NEUTRAL_FILES.items()}
