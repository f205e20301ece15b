"""Commands: ``cardlab run`` (``run``), ``cardlab status`` and the live view in words (``view``, drawn
with rich), ``cardlab recompute`` (``recompute``: damaged files moved aside, then the plain run that
recomputes them), and the campaign work a run would recompute without being asked (``campaign_work``).

Owns: what a person sees of a run.  Imports: every pipeline folder, engines/core and the games' engines.
"""
