"""The one door to Snakemake: its command line and process (``runner``), the entry point of every
job it runs (``steps``, the only module that knows Snakemake's job object), what it prints (``terminal``),
a failed job said in the terminal (``failures``) and a run's preparation (``resume``).

Owns: everything that names a Snakemake option, reads its output or its files.  Imports: engines/core,
engines/report, the games' engines and every pipeline folder above but commands.
"""
