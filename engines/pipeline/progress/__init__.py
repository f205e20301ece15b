"""Progress: the time left as a pure model of one snapshot of a campaign's files (``model``, priced by
``costs`` from the jobs' timing records and engines/prices.yaml), read from disk by ``snapshot`` and said
in words by ``view`` (``cardlab status``, ``cardlab run``'s live view, drawn with rich)."""
