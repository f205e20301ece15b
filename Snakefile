# cardlab: batch pipeline with a result warehouse.
#   snakemake --cores all          run what is missing or stale
# Reads config.yaml (validated before any job starts), fans out seeded shards for every
# game in the engine registry, builds results/warehouse.duckdb, writes reports/.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


wildcard_constraints:
    experiment=r"[A-Za-z0-9][A-Za-z0-9_.-]*",
    variant=r"[A-Za-z0-9][A-Za-z0-9_.=+-]*",
    shard=r"\d{4,7}",


include: "workflow/rules/common.smk"
include: "workflow/rules/shards.smk"
include: "workflow/rules/warehouse.smk"
include: "workflow/rules/reports.smk"


rule all:
    default_target: True
    input:
        WAREHOUSE,
        REPORT_FILES,
