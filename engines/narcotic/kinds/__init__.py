"""The narcotic engine's shard kinds, one module per kind (or per family of kinds sharing a stage): the
engine (``engine.py``) lists them in planning order.  Hashed into the game's result version with the
package (engines/interface.py ``result_files``)."""
