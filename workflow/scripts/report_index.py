# Thin glue: Snakemake's `snakemake` object -> engines.report_index (all logic lives in engines/).
from engines.report_index import run_from_snakemake

run_from_snakemake(snakemake)  # noqa: F821 (injected by Snakemake)
