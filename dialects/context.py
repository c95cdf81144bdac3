"""The MLIR context every stage works in."""

from __future__ import annotations

import sys
import types

from mlir import ir

# The bindings look for a dialect's Python op classes by importing `mlir.dialects.<dialect>`
# whenever they wrap one of its ops, and do not remember a failed import: for `aten` (no op
# classes) that was a search of the import path per op, 0.1 s of a GPT-2 compile. An empty
# module is found in `sys.modules` at once, and the ops stay generic OpViews as before.
sys.modules.setdefault("mlir.dialects.aten", types.ModuleType("mlir.dialects.aten"))


def make_context() -> ir.Context:
    """A context that holds the (unregistered, schema-verified) `aten` ops and all upstream
    dialects. One per `Program`: uniqued attributes live as long as their context."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    ctx.load_all_available_dialects()
    return ctx
