"""Lowerings: unary (filled in by its family)."""
