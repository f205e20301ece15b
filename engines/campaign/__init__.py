"""Campaigns: the long computations that run shard by shard over sessions, for every game.

A campaign's ledger (engines/core/ledger.py) keeps the shards it has computed; a campaign block
of the config (``campaign: true``) plans exactly those.  This package owns the rest: the campaign
state (:mod:`.state`: the finished shards under a results tree, their grid, windows, CPU and the
shards left), what a game's book must say (:mod:`.book`: which campaign a name means, how its
shards' tables are checked, which block plans it), and the one command (:mod:`.command`, its parser
in :mod:`.cli`) that says where a campaign stands, runs its next shards through the pipeline's
Snakemake runner and keeps them in its ledger: ``cardlab campaign GAME NAME``, of which each
game's ``cardlab GAME campaign NAME`` is an alias (the same parser and handler).

Owns: campaign state, the one campaign command.  Imports: every pipeline folder, engines/core, the
games' engines; a game's book (``engines/<game>/campaign/``) imports this folder's ``book`` and ``state``.
"""
