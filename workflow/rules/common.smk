# Shared helpers for the rules: the validated config, every game's shard plan (from the
# engine registry), and the paths, params and threads each shard rule uses.
import sys

from snakemake.exceptions import WorkflowError

from engines.core.errors import CardlabError
from engines.core.layout import WAREHOUSE, log_path, log_pattern, manifest_of, shard_path, shard_pattern
from engines.core.provenance import files_version
from engines.pipeline.batches import batch_limit, plan_batches
from engines.pipeline.config import validate_config
from engines.pipeline.plan import find_spec, shard_priority
from engines.pipeline.resume import asks_for_a_run, prepare_run
from engines.registry import GAMES, engine

try:
    CFG = validate_config(config, "config")
    # game -> its shard specs (empty when the config has no section for it)
    PLANS = {g: (engine(g).plan(CFG[g]) if CFG.get(g) else []) for g in GAMES}
    # game -> the jobs that compute several small shards each (engines/pipeline/batches.py);
    # every other shard is a job of its own under its stage's rule
    BATCHES = {g: plan_batches(engine(g), PLANS[g], batch_limit(CFG)) for g in GAMES}
except CardlabError as exc:
    raise WorkflowError(str(exc)) from None

# The catalog users query is WAREHOUSE; the warehouse rule declares its manifest as output,
# so a rebuild (or a failed one) never deletes the catalog (engines/pipeline/warehouse.py).
WAREHOUSE_MANIFEST = manifest_of(WAREHOUSE)
# The games the config runs: each gets shard rules, a report and a section of the index.
RUN_GAMES = [g for g in GAMES if PLANS[g]]


def planned_files(game):
    """Every shard file the config plans for a game (what the warehouse loads)."""
    eng = engine(game)
    return [shard_path(game, t, s) for s in PLANS[game] for t in eng.spec_tables(s)]


# A plain `snakemake --cores all` resumes after a kill (SIGKILL, power loss) and recomputes a
# deleted shard: when no other run holds this directory, stale locks and the outputs of
# interrupted jobs are removed, and a missing planned file (or a catalog the manifest does
# not describe) removes the manifest so the warehouse rebuilds. Snakemake checks locks and
# markers before any rule or onstart handler runs, so this happens here, and only in the
# main process of a command that runs jobs: a dry run (-n) changes no file. docs/scaling.md.
if workflow.is_main_process and asks_for_a_run(sys.argv):
    prepare_run([f for g in GAMES for f in planned_files(g)], WAREHOUSE_MANIFEST)


def spec_of(game):
    """Input function: the planned spec of the shard named by the wildcards."""
    return lambda w: find_spec(PLANS[game], w.experiment, w.variant, w.shard)


def version_of(game):
    """Input function: the result version a shard must carry (an edit that changes it reruns the shard)."""
    return lambda w: engine(game).result_version(find_spec(PLANS[game], w.experiment, w.variant, w.shard))


def threads_of(game):
    """Input function: a shard's numba threads (kept out of the spec: they never change results)."""
    return lambda w: engine(game).shard_threads(CFG.get(game), find_spec(PLANS[game], w.experiment, w.variant, w.shard))


def priority_of(game):
    """Priority function: the config's shard_order, by shard number within the game's plan."""
    last = max((int(s["shard"]) for s in PLANS[game]), default=0)
    return lambda w: shard_priority(CFG.get("shard_order"), int(w.shard), last)


def inputs_of(game):
    """Input function: the shard files a second-stage shard reads (RedBlack's basins)."""

    def inputs(w):
        spec = find_spec(PLANS[game], w.experiment, w.variant, w.shard)
        return [shard_path(game, t, s) for t, s in engine(game).shard_inputs(spec, PLANS[game])]

    return inputs


def batch_outputs(batch):
    """Every table file of every shard of a batch job."""
    eng = engine(batch.game)
    return [shard_path(batch.game, t, s) for s in batch.specs for t in eng.spec_tables(s)]


def batch_logs(batch):
    """One log per shard of a batch job, where a job of its own would write it."""
    return [log_path(batch.game, s["experiment"], s["variant"], int(s["shard"])) for s in batch.specs]


def batch_threads(batch):
    """The most numba threads any shard of the batch asks for."""
    return max(engine(batch.game).shard_threads(CFG.get(batch.game), s) for s in batch.specs)


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
