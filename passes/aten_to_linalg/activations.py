"""Lowerings: activations (filled in by its family)."""
