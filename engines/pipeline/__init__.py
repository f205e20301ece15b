"""The pipeline: what Snakemake runs and what reads the results it leaves, in four rooms.

* :mod:`.running` — running jobs: the config validated and planned into shards and batches, each
  job's step (a shard's tables written with provenance, its timing record), ``cardlab run``, one run
  at a time in a directory, a failure said in one line.
* :mod:`.progress` — where a run stands and what is left costs (measured rates, the prices in
  engines/prices.yaml), the model of the time left, the live view and ``cardlab status`` (rich).
* :mod:`.trust` — whether the results are what they say: ``cardlab verify`` (every byte, the plan,
  check records of recomputed samples), ``--recompute``, repair and clean.
* :mod:`.catalog` — the warehouse: every planned shard file checked and loaded into one DuckDB catalog,
  with the timings and kept measurements beside them.
"""
