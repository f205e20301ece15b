"""The warehouse: every planned shard file checked against its plan and loaded into one DuckDB
catalog (``warehouse``, swapped in whole), with the jobs' timings (``shard_timings``), the check records
of independent recomputations (``check_records``) and the kept measurements of devices the pipeline
does not run on (``measurements``).

Owns: warehouse.duckdb and what is loaded into it.  Imports: engines/core, the games' engines,
planning, bookkeeping.
"""
