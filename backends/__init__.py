"""Backends: the reference interpreter, and `compile()` for native CPU code."""
