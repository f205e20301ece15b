# cardlab: batch pipeline with a result warehouse.
#   snakemake --cores all          run what is missing or stale
# Reads config.yaml (validated before any job starts), fans out seeded shards for every
# game in the engine registry, builds results/warehouse.duckdb, writes reports/.
from snakemake.utils import min_version

min_version("9.0")

import sys

from engines.core.errors import CardlabError
from engines.core.layout import WILDCARDS
from engines.pipeline.planning.config import check_config_files
from engines.pipeline.snakemake.failures import report_failures
from engines.pipeline.snakemake.metadata import record_found_outputs
from engines.pipeline.planning.plan import DEFAULT_CONFIG, run_config_files
from engines.pipeline.snakemake.terminal import install_terminal_filter

# a dry run's "Job stats" once, and a hint that points at what the profile shows
install_terminal_filter(logger)

# Snakemake's loader accepts duplicate keys and gives a traceback for text that is not
# UTF-8: refuse both in one line naming the file, before it reads them.
try:
    check_config_files(run_config_files(workflow.overwrite_configfiles))
except CardlabError as exc:
    print(f"error: {exc}", file=sys.stderr)
    sys.exit(1)


# `--configfile my.yaml` runs what my.yaml says, and only that: config.yaml is read only when
# no config file is given (Snakemake would merge the given files over it, so my.yaml would
# inherit e.g. config.yaml's redblack.audit). `cardlab verify --config my.yaml` plans the same.
if not workflow.overwrite_configfiles:

    configfile: DEFAULT_CONFIG


report: "workflow/report/workflow.rst"


# experiment, variant and shard: the results layout's own rules (engines/core/layout.py)
wildcard_constraints:
    **WILDCARDS,


include: "workflow/rules/common.smk"
include: "workflow/rules/shards.smk"
include: "workflow/rules/warehouse.smk"
include: "workflow/rules/reports.smk"


# When a job fails, its one-line cause and fix (the `error:` line of its log) at the end of the
# terminal, where Snakemake says only that a script returned status 1.
onerror:
    report_failures(log)


# Snakemake's own record of the files it found in place (kept campaign files after a clone), so that
# `snakemake --report` finds metadata for every output (engines/pipeline/snakemake/metadata.py).
onsuccess:
    record_found_outputs(workflow)


rule all:
    default_target: True
    input:
        WAREHOUSE_MANIFEST,
        REPORT_FILES,
