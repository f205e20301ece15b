"""The pipeline: what Snakemake runs and what reads the results it leaves.

Each folder is one layer and imports only the folders above it in this list (and engines/core,
the games, engines/report): tests/test_layers.py takes a module's layer from its folder.

* :mod:`.planning` — the config checked and planned into shards and the jobs that run them.
* :mod:`.bookkeeping` — the files that describe a run: timing records, the run lock, a campaign run's note.
* :mod:`.compute` — one shard computed and written with its provenance, on its device.
* :mod:`.catalog` — the warehouse: every planned shard file checked and loaded into DuckDB, with
  timings, check records and kept measurements.
* :mod:`.trust` — ``cardlab verify`` (and ``--recompute``), ``recompute`` (repair) and ``clean``.
* :mod:`.progress` — what the work left costs and the pure model of the time left.
* :mod:`.snakemake` — the one door to Snakemake: its options, its process, its messages, its job object.
* :mod:`.commands` — ``cardlab run``, ``cardlab status`` and the live view, a campaign's work a run would redo.
"""
