"""Compute: one planned shard computed by its kind and written with its provenance and timing
record (``jobs``), on the GPU its scheduler granted or a free one (``devices``).

Owns: a shard's run.  Imports: engines/core, the games' engines, planning, bookkeeping.
"""
