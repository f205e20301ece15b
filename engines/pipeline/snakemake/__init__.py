"""The one door to Snakemake: its command line read with Snakemake's own parser and every option cardlab
spells (``options``), its process (``runner``), the entry point of every job it runs (``steps``, the only
module that knows Snakemake's job object), the words it prints and the one message matched
(``terminal``), a failed job said in the terminal (``failures``) and a run's preparation (``resume``).

Owns: everything that names a Snakemake option, reads its output or its files; no module outside this
folder does (tests/test_snakemake_door.py).  Imports: Snakemake (``snakemake.cli``'s parser, the logger
plugin interface's events), engines/core, engines/kinds.py and registry.py, engines/report (the report
steps) and the pipeline folders below it: planning, bookkeeping, compute, catalog, trust.
"""
