"""Lowerings: shapes (filled in by its family)."""
