"""Lowerings: normalization (filled in by its family)."""
