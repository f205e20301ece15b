"""Bookkeeping: the files that describe a run, each with its one writer and reader.

Owns: each job's timing record (``records``), the run lock, its refusal note and a campaign run's
note (``runstate``); their schemas are engines/core/bookkeeping.py's.  Imports: engines/core, the
games' engines (a shard's kind), nothing else of the pipeline.
"""
