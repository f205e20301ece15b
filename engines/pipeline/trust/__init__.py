"""Trust: ``cardlab verify`` (every shard byte for byte, the plan's files, nothing extra), shards
recomputed to compare (``recompute``), damaged files moved aside for the next run (``repair``, the
``cardlab recompute`` command) and what no plan owns (``clean``).

Owns: the judgement of a results tree.  Imports: engines/core, the games' engines, planning,
bookkeeping, compute (to recompute a shard), catalog.
"""
