# Thin glue: Snakemake's `snakemake` object -> engines.jobs (all logic lives in engines/).
from engines.jobs import run_from_snakemake

run_from_snakemake(snakemake)  # noqa: F821 (injected by Snakemake)
