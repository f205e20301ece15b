"""Trust: ``cardlab verify`` (every shard byte for byte, the plan's files, nothing extra; its parser and
``clean``'s in ``parsers``, the ``--recompute`` options in ``options``), shards recomputed to compare
(``recompute``), damaged files found and moved aside for the next run (``repair``, which
``cardlab recompute`` in engines/pipeline/commands/ runs) and what no plan owns (``clean``).

Owns: the judgement of a results tree.  Imports: engines/core, the games' engines, planning,
bookkeeping, compute (to recompute a shard), catalog.
"""
