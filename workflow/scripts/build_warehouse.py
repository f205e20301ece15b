# Thin glue: Snakemake's `snakemake` object -> engines.warehouse (all logic lives in engines/).
from engines.warehouse import run_from_snakemake

run_from_snakemake(snakemake)  # noqa: F821 (injected by Snakemake)
