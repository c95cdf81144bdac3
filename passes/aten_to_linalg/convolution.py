"""Lowerings: convolution (filled in by its family)."""
