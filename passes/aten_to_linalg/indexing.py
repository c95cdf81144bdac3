"""Lowerings: indexing (filled in by its family)."""
