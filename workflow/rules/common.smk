# Shared helpers for the rules: the validated config, every game's shard plan (from the
# engine registry), and the paths, params and threads each shard rule uses.
from snakemake.exceptions import WorkflowError

from engines.core.errors import CardlabError
from engines.core.provenance import files_version
from engines.pipeline.config import validate_config
from engines.pipeline.jobs import (
    find_spec,
    log_pattern,
    rebuild_what_is_missing,
    resume_after_kill,
    shard_path,
    shard_pattern,
)
from engines.pipeline.warehouse import manifest_of
from engines.registry import GAMES, engine

try:
    CFG = validate_config(config, "config")
    # game -> its shard specs (empty when the config has no section for it)
    PLANS = {g: (engine(g).plan(CFG[g]) if CFG.get(g) else []) for g in GAMES}
except CardlabError as exc:
    raise WorkflowError(str(exc)) from None

# A plain `snakemake --cores all` resumes after a kill (SIGKILL, power loss): stale
# Snakemake locks are cleared when no other snakemake holds this directory, and jobs
# marked incomplete are rerun (as with --rerun-incomplete). Safe because every output
# is written atomically and recomputing a shard gives the same bytes. docs/scaling.md.
HOLDS_RUN_LOCK = resume_after_kill(workflow)

# The catalog users query; the warehouse rule declares its manifest as output, so a
# rebuild (or a failed one) never deletes the catalog (engines/pipeline/warehouse.py).
WAREHOUSE = "results/warehouse.duckdb"
WAREHOUSE_MANIFEST = manifest_of(WAREHOUSE)
# The games the config runs: each gets shard rules, a report and a section of the index.
RUN_GAMES = [g for g in GAMES if PLANS[g]]


def planned_files(game):
    """Every shard file the config plans for a game (what the warehouse loads)."""
    eng = engine(game)
    return [shard_path(game, t, s) for s in PLANS[game] for t in eng.spec_tables(s)]


# Snakemake does not recompute a deleted shard while the outputs built from it are newer:
# a planned file missing (or a dangling link in its place), or a catalog that is not the one
# the manifest records, makes this run rebuild it and the warehouse (docs/scaling.md).
if HOLDS_RUN_LOCK:
    rebuild_what_is_missing([f for g in GAMES for f in planned_files(g)], WAREHOUSE_MANIFEST)


def spec_of(game):
    """Input function: the planned spec of the shard named by the wildcards."""
    return lambda w: find_spec(PLANS[game], w.experiment, w.variant, w.shard)


def version_of(game):
    """Input function: the result version a shard must carry (an edit that changes it reruns the shard)."""
    return lambda w: engine(game).result_version(find_spec(PLANS[game], w.experiment, w.variant, w.shard))


def threads_of(game):
    """Input function: a shard's numba threads (kept out of the spec: they never change results)."""
    return lambda w: engine(game).shard_threads(CFG.get(game), find_spec(PLANS[game], w.experiment, w.variant, w.shard))


def inputs_of(game):
    """Input function: the shard files a second-stage shard reads (RedBlack's basins)."""

    def inputs(w):
        spec = find_spec(PLANS[game], w.experiment, w.variant, w.shard)
        return [shard_path(game, t, s) for t, s in engine(game).shard_inputs(spec, PLANS[game])]

    return inputs


def report_outputs(game):
    """Named outputs of a game's report rule; tables and figures carry a caption for snakemake --report."""
    eng = engine(game)
    out = {}
    for f in eng.report_outputs:
        key = f.name.replace(".", "_")
        out[key] = (
            f.path if f.caption is None else report(f.path, caption=f"../report/{f.caption}.rst", category=eng.title)
        )
    return out


def warehouse_version():
    views = [f"{g}/views.sql" for g in GAMES if (engine(g).directory / "views.sql").exists()]
    return files_version(["pipeline/warehouse.py", "core/store.py"] + views)
