"""Queries and builders of `linalg.generic` ops shared by the linalg passes: an op's indexing
maps, the dims a projection map reads, and the plain `out + a * b` contraction that
`aten-generalize-products` and `aten-split-contraction-prologue` both build, and a loop dim's
extent."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, tensor


def indexing_maps(op) -> list[ir.AffineMap]:
    """The `indexing_maps` of a linalg op (a generic, or a named op that spells them)."""
    return [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]


def map_dims(m: ir.AffineMap) -> list[int] | None:
    """The dim read by each result of `m`; None unless every result is a plain dim."""
    out = []
    for e in m.results:
        if not isinstance(e, ir.AffineDimExpr):
            return None
        out.append(ir.AffineDimExpr(e).position)
    return out


def rebuild_product(op, inputs, in_maps, out_map, iters) -> None:
    """Replaces `op` with `out + a * b` over `inputs`; an input narrower than the accumulator
    (bf16/f16 into f32) is widened per element first (`extf`, as `linalg.matmul` casts), the
    body the CPU contraction kernels match for mixed-type products."""
    out = op.operands[len(op.operands) - 1]
    kinds = [
        linalg.IteratorType.reduction if "reduction" in t else linalg.IteratorType.parallel
        for t in iters
    ]
    with ir.InsertionPoint(op), op.location:
        new = linalg.GenericOp_(inputs, [out], [*in_maps, out_map], kinds)
        body = new.regions[0].blocks[0]
        a, b, acc = body.arguments
        with ir.InsertionPoint(body):
            a, b = (x if x.type == acc.type else arith.extf(acc.type, x) for x in (a, b))
            product = arith.mulf(a, b)
            linalg.YieldOp([arith.addf(acc, product)])
    op.results[0].replace_all_uses_with(new.results[0])
    op.erase()


def loop_extent(op, d: int, maps, static_only: bool = False) -> ir.Value | int | None:
    """The extent of loop dim `d` of `op`, read from an operand indexed by `d` alone: an int
    when static, else a `tensor.dim` built before `op` (None with `static_only`)."""
    for operand, m in zip(op.operands, maps):
        dims = [
            ir.AffineDimExpr(e).position if isinstance(e, ir.AffineDimExpr) else None
            for e in m.results
        ]
        if d in dims:
            t = ir.RankedTensorType(operand.type)
            pos = dims.index(d)
            if not t.is_dynamic_dim(pos):
                return t.get_dim_size(pos)
            if static_only:
                continue
            with ir.InsertionPoint(op), op.location:
                return tensor.dim(operand, arith.constant(ir.IndexType.get(), pos))
    if static_only:
        return None
    raise ValueError(f"no operand spans dim {d}")
