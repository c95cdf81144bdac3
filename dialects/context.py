"""The MLIR context every stage works in."""

from __future__ import annotations

from mlir import ir


def make_context() -> ir.Context:
    """A context that holds the (unregistered, schema-verified) `aten` ops and all upstream
    dialects. One per `Program`: uniqued attributes live as long as their context."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    ctx.load_all_available_dialects()
    return ctx
