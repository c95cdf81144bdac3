"""Lowerings: creation (filled in by its family)."""
