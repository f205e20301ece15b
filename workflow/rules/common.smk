# Shared helpers for the rules: the plan of the validated config (engines/pipeline/planning/plan.py),
# built once, and the paths, params and threads each shard rule reads from it.
import sys

from engines.core.errors import CardlabError
from engines.core.layout import (
    WAREHOUSE,
    check_record_files,
    log_pattern,
    manifest_of,
    report_inputs_path,
    shard_pattern,
)
from engines.core.provenance import files_version
from engines.interface import report_outputs_of, report_version, stages_of
from engines.kinds import GPU_BACKEND, chosen_backend
from engines.pipeline.commands.campaign_work import check_snakemake_run
from engines.pipeline.planning.plan import Plan, run_config_files, shard_priority
from engines.pipeline.snakemake.options import runs_jobs
from engines.pipeline.snakemake.resume import prepare_run
from engines.registry import GAMES, engine

# A config that cannot be planned stops the run in its own words, one line a problem, naming
# the file(s) (Snakemake's WorkflowError would add its own location lines around them).
try:
    PLAN = Plan.build(config, " + ".join(run_config_files(workflow.overwrite_configfiles)))
    CFG = PLAN.config
    # game -> the jobs that compute several small shards each (engines/pipeline/planning/batches.py);
    # every other shard is a job of its own under its stage's rule
    BATCHES = {g: PLAN.batches.get(g, []) for g in GAMES}
except CardlabError as exc:
    print(f"error: {exc}", file=sys.stderr)
    sys.exit(1)

# The catalog users query is WAREHOUSE; the warehouse rule declares its manifest as output,
# so a rebuild (or a failed one) never deletes the catalog (engines/pipeline/catalog/warehouse.py).
WAREHOUSE_MANIFEST = manifest_of(WAREHOUSE)
# The games the config runs: each gets shard rules, a report and a section of the index.
RUN_GAMES = PLAN.games


def planned_files(game):
    """Every shard file the config plans for a game (what the warehouse loads)."""
    return PLAN.game_files(game)


# A plain `snakemake --cores all` resumes after a kill (the profiles' rerun-incomplete) and
# recomputes a deleted shard: only one run at a time goes in a directory (cardlab's flock in
# place of Snakemake's lock files, which a killed run leaves behind: the profiles' nolock),
# and a missing planned file (or a catalog the manifest does not describe) removes the
# manifest so the warehouse rebuilds. Only in the main process of a command that runs jobs, as
# Snakemake's own parser reads its command line: a dry run changes no file. (This must come before
# Snakemake builds its DAG, so not in `onstart:`, which runs after it.) engines/pipeline/snakemake/
# resume.py and options.py, docs/scaling.md.
# A run that would recompute more than a core-hour of shards only a campaign's ledger plans (their files
# missing) stops first, unless `--config allow_campaign_work=True` (engines/pipeline/commands/campaign_work.py).
if workflow.is_main_process and runs_jobs(sys.argv):
    try:
        check_snakemake_run(PLAN)
        prepare_run([f for g in GAMES for f in planned_files(g)], WAREHOUSE_MANIFEST)
    except CardlabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)


def planned_shard(game, w):
    """The planned shard Snakemake's wildcards name."""
    return PLAN.shard(game, w.experiment, w.variant, w.shard)


def spec_of(game):
    """Input function: the planned spec of the shard named by the wildcards."""
    return lambda w: planned_shard(game, w).spec


def version_of(game):
    """Input function: the result version a shard must carry (an edit that changes it reruns the shard)."""
    return lambda w: planned_shard(game, w).version


def threads_of(game):
    """Input function: a shard's numba threads (kept out of the spec: they never change results)."""
    return lambda w: (s := planned_shard(game, w)).kind.schedule(CFG.get(game) or {}, s.spec).threads


def gpus_of(game):
    """Resource function: one GPU for a shard the config computes on the gpu backend (the SLURM plugin asks
    for it, `--gpus=1`; a local `--resources gpu=N` runs at most N at once), none for every other shard."""
    return lambda w: shard_gpus(planned_shard(game, w))


def shard_gpus(s):
    return int(chosen_backend(s.kind, CFG.get(s.game) or {}, s.spec) == GPU_BACKEND)


def batch_gpus(batch):
    """A batch job holds a GPU when any of its shards computes on one."""
    return max(shard_gpus(s) for s in batch_shards(batch))


def priority_of(game):
    """Priority function: the config's shard_order, by shard number within the game's plan."""
    last = max((s.shard for s in PLAN.shards.get(game, ())), default=0)
    return lambda w: shard_priority(CFG.get("shard_order"), int(w.shard), last)


def inputs_of(game):
    """Input function: the shard files a second-stage shard reads (RedBlack's basins)."""
    return lambda w: PLAN.input_files(planned_shard(game, w))


def batch_shards(batch):
    return [PLAN.shard(batch.game, s["experiment"], s["variant"], s["shard"]) for s in batch.specs]


def batch_outputs(batch):
    """Every table file of every shard of a batch job."""
    return [path for s in batch_shards(batch) for path in s.files.values()]


def batch_logs(batch):
    """One log per shard of a batch job, where a job of its own would write it."""
    return [s.log for s in batch_shards(batch)]


def batch_threads(batch):
    """The most numba threads any shard of the batch asks for."""
    return max(s.kind.schedule(CFG.get(batch.game) or {}, s.spec).threads for s in batch_shards(batch))


def report_outputs(game):
    """Named outputs of a game's report rule; tables and figures carry a caption for snakemake --report."""
    eng = engine(game)
    out = {}
    for f in report_outputs_of(eng):
        key = f.name.replace(".", "_")
        out[key] = (
            f.path if f.caption is None else report(f.path, caption=f"../report/{f.caption}.rst", category=eng.title)
        )
    return out


def game_check_records(game):
    """The check records of a game's kept campaigns (results/checks/<game>/): its report shows them."""
    return [f for f in check_record_files() if f.split("/")[-3] == game]


# the loader, and what judges the check records the catalog holds (table recompute_checks, view campaign_checks)
WAREHOUSE_CODE = [
    "pipeline/catalog/warehouse.py",
    "pipeline/catalog/check_records.py",
    "pipeline/catalog/campaign_checks.sql",
    "core/store.py",
]


def report_code(game):
    """What a game's report writes with: its declared report's modules and views, and the shared report code."""
    from engines.report import code_version as report_code_version

    return report_version(engine(game)) + report_code_version(game)


def views_version(game):
    """What a game's tables in the warehouse depend on beyond its shards: the loader and its views."""
    from engines.interface import game_directory

    views = [f"{game}/views.sql"] if (game_directory(engine(game)) / "views.sql").exists() else []
    return files_version(WAREHOUSE_CODE + views)


def warehouse_version():
    from engines.interface import game_directory

    views = [f"{g}/views.sql" for g in GAMES if (game_directory(engine(g)) / "views.sql").exists()]
    return files_version(WAREHOUSE_CODE + views)
