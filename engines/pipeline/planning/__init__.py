"""Planning: the config checked against every schema (``config``) and planned into shards
(``plan``: one :class:`~.plan.Plan` per process, read by everyone) and the jobs that share them (``batches``).

Owns: config.yaml's meaning and the plan.  Imports: engines/core and the games' engines only.
"""
