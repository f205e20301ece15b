"""Running jobs: the validated config planned into shards (``plan``, ``config``, ``batches``), the one
entry point of every Snakemake job (``steps``) and a shard's run (``jobs``), each job's timing record
(``records``: its one writer and reader), the device a GPU shard computes on (``devices``), ``cardlab run``
and its runner, one run at a time in a directory (``resume``, ``runstate``), and a failure said where the
user looks (``failures``, ``terminal``)."""
