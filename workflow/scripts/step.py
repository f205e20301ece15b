# Thin glue: Snakemake's `snakemake` object -> engines.pipeline.snakemake.steps (all logic lives in engines/).
from engines.pipeline.snakemake.steps import run

run(snakemake)  # noqa: F821 (injected by Snakemake)
