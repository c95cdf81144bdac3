"""Benchmarks, run on demand (never part of the test suite)."""
