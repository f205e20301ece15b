# Shared helpers for every game's rules: the validated config, the shard plan
# of each game, and the paths and params every shard rule uses.
from snakemake.exceptions import WorkflowError

from engines import GAMES
from engines.config import validate_config
from engines.errors import CardlabError
from engines.jobs import engine, find_spec, log_pattern, resume_after_kill, shard_path, shard_pattern
from engines.provenance import engine_version, files_version


try:
    CFG = validate_config(config, "config")
    # game -> list of shard specs (empty when the config has no section for it); a plan can
    # still refuse a combination the schema cannot express (e.g. a continuous shoe of inf decks)
    PLANS = {g: (engine(g).plan(CFG[g]) if CFG.get(g) else []) for g in GAMES}
except CardlabError as exc:
    raise WorkflowError(str(exc)) from None

# A plain `snakemake --cores all` resumes after a kill (SIGKILL, power loss): stale
# Snakemake locks are cleared when no other snakemake holds this directory, and jobs
# marked incomplete are rerun (as with --rerun-incomplete). Safe because every output
# is written atomically and recomputing a shard gives the same bytes. docs/scaling.md.
resume_after_kill(workflow)

WAREHOUSE = "results/warehouse.duckdb"

# Files each game adds to the warehouse, and the report files each game's
# report job writes (filled in by the game's rules file).
WAREHOUSE_INPUTS = {g: [] for g in GAMES}
REPORT_FILES = []


def shard_outputs(game):
    """Named outputs of a game's shard rule: one Parquet file per table."""
    return {t: shard_pattern(game, t) for t in engine(game).TABLES}


def planned_files(game):
    mod = engine(game)
    return [shard_path(game, t, s) for s in PLANS[game] for t in mod.TABLES]


def threads_of(game):
    """Input function: a shard's threads from the engine's ``shard_threads(section, spec)`` hook, else 1.

    Threads stay out of the spec: they never change results, so changing them reruns nothing."""
    hook = getattr(engine(game), "shard_threads", None)
    if hook is None:
        return 1
    return lambda w: hook(CFG.get(game), find_spec(PLANS[game], w.experiment, w.variant, w.shard))


def spec_of(game):
    """Input function: the planned spec of the shard named by the wildcards."""
    return lambda w: find_spec(PLANS[game], w.experiment, w.variant, w.shard)
