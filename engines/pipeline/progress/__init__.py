"""Progress: the time left as a pure model of one snapshot of a campaign's files (``model``, priced by
``costs`` from the jobs' timing records and engines/prices.yaml), read from disk by ``snapshot``.

Owns: the numbers of a run's progress, no English.  Imports: engines/core, the games' engines,
planning, bookkeeping, catalog.
"""
