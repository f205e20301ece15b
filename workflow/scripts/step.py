# Thin glue: Snakemake's `snakemake` object -> engines.pipeline.running.steps (all logic lives in engines/).
from engines.pipeline.running.steps import run

run(snakemake)  # noqa: F821 (injected by Snakemake)
