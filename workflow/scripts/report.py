# Thin glue: Snakemake's `snakemake` object -> engines.report (all logic lives in engines/).
from engines.report import run_from_snakemake

run_from_snakemake(snakemake)  # noqa: F821 (injected by Snakemake)
