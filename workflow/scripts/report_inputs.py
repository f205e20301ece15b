# Thin glue: the list of what a game's report reads (workflow/rules/reports.smk).  A `script:`, not a
# `run:` block: Snakemake spawns a whole Snakemake (the Snakefile parsed, the plan built) for each `run:`
# job, 3.6 s here on an idle machine; this plain interpreter imports nothing of cardlab.
snakemake = snakemake  # noqa: F821 (injected by Snakemake)
files = sorted(map(str, snakemake.input))
with open(snakemake.output[0], "w") as out:
    out.write("\n".join([f"views {snakemake.params.views}", f"report {snakemake.params.report}", *files]) + "\n")
with open(snakemake.log[0], "w") as out:
    out.write(f"{len(files)} input(s) of the report listed in {snakemake.output[0]}\n")
