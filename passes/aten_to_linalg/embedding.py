"""Lowerings: embedding (filled in by its family)."""
