"""Lowerings: scatter (filled in by its family)."""
