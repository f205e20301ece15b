# Thin glue: Snakemake's `snakemake` object -> engines.pipeline.steps (all logic lives in engines/).
from engines.pipeline.steps import run

run(snakemake)  # noqa: F821 (injected by Snakemake)
