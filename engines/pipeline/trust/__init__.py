"""Trust: ``cardlab verify`` (every shard byte for byte, the plan's files, nothing extra), the check
records of shards recomputed to compare (``recompute``, ``check_records``: bound to the bytes they
checked), damaged files moved aside for the next run (``repair``) and what no plan owns (``clean``)."""
