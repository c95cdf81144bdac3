"""Lowerings: padding (filled in by its family)."""
