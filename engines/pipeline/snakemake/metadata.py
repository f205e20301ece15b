"""Snakemake's record of the files it found in place: kept campaign files it did not write.

Snakemake keeps metadata (its rule, params, input, times) for each output a job of its wrote, under
``.snakemake/metadata``.  A kept campaign's shard files come with the repository, so a clone has none
for them: ``snakemake --report`` then warns "Missing metadata" once per kept file (about 2,000), and
Snakemake cannot tell whether their params changed.  After a run succeeds, the Snakefile's
``onsuccess`` handler has Snakemake record them as it does for a job it ran
(``workflow.persistence.finished``): a job of the run's DAG whose outputs all exist, none with a record,
and which the run did not need (so they are what the plan asks for now).  Snakemake writes its own
files; cardlab never does.
"""

from __future__ import annotations

import os


def record_found_outputs(workflow) -> int:
    """Have Snakemake record the jobs whose outputs it found in place without a record; how many."""
    persistence, dag = workflow.persistence, workflow.dag
    found = [
        job
        for job in dag.jobs
        if not dag.needrun(job)
        and job.output
        and all(os.path.exists(f) for f in job.output)
        and not any(persistence.metadata(f) for f in job.output)
    ]
    for job in found:
        workflow.async_run(persistence.finished(job))
    return len(found)
