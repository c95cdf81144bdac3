"""Lowerings: views (filled in by its family)."""
