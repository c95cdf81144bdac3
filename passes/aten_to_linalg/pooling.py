"""Lowerings: pooling (filled in by its family)."""
