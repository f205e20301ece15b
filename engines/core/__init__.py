"""Shared core: errors, seeds (rng), shard planning, atomic Parquet writes (store), provenance, progress."""
