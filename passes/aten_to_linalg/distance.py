"""Lowerings: distance (filled in by its family)."""
