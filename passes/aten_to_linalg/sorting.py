"""Lowerings: sorting (filled in by its family)."""
