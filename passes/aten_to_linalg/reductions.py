"""Lowerings: reductions (filled in by its family)."""
