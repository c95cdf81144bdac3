"""`linalg.copy` on memrefs -> the identity `linalg.generic`, so `cpu-vectorize-generics` runs it
as vector loops.

A `linalg.copy` left to `convert-linalg-to-parallel-loops` becomes a scalar nest, which LLVM does
not vectorize when source and target may overlap (a view at a run-time offset): GPT-2 decode's
outlined layer copies its KV-cache slice `past_k[i]` (786 KB a layer, K and V) into the
concatenation buffer one `vmovss` at a time, 5% of the decode's native time. `cpu-copies-to-
generics` does the same for `memref.copy`; the copy's `cast` attribute only matters between
element types, so copies that convert stay as they are.
"""

from __future__ import annotations

from mlir import ir

from aten_mlir.passes.ir import nested_ops

from .copies import as_identity_generic


def _same_type_copy(op: ir.Operation) -> bool:
    """A memref-to-memref linalg.copy of rank >= 1 between buffers of one element type."""
    if op.name != "linalg.copy" or len(op.results):
        return False
    types = [v.type for v in op.operands]
    if len(types) != 2 or not all(isinstance(t, ir.MemRefType) for t in types):
        return False
    source, target = (ir.MemRefType(t) for t in types)
    return source.rank >= 1 and source.element_type == target.element_type


def copies_as_generics(module_op: ir.Operation) -> None:
    """Rewrites each same-type `linalg.copy` on memrefs as an identity generic, in place."""
    for op in [op for op in nested_ops(module_op) if _same_type_copy(op)]:
        as_identity_generic(op)
