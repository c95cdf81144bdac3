"""Lowerings: matmul (filled in by its family)."""
