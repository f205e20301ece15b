"""Campaigns: the long computations that run shard by shard over sessions, for every game.

A campaign's ledger (engines/core/ledger.py) keeps the shards it has computed; a campaign block
of the config (``campaign: true``) plans exactly those.  This package owns the rest: the book
each game writes for its campaigns (:mod:`.book`: which campaign a name means, how its finished
shards are read, which block plans it), and the one command (:mod:`.command`, parsers in
:mod:`.cli`) that says where a campaign stands, runs its next shards through the pipeline's
Snakemake runner and keeps them in its ledger: ``cardlab campaign GAME NAME``, of which each
game's ``campaign`` command is a thin wrapper.

Owns: campaign state, the one campaign command.  Imports: every pipeline folder, engines/core, the
games' engines; a game's book (``engines/<game>/campaign/``) imports this folder's ``book``.
"""
