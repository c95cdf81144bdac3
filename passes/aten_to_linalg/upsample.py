"""Lowerings: upsample (filled in by its family)."""
