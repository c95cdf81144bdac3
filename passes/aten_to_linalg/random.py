"""Lowerings: random (filled in by its family)."""
