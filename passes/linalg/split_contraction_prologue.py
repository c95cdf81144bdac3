"""`aten-split-contraction-prologue`: a contraction with a fused prologue -> the prologue as its
own elementwise generic, then a plain `out + a * b` contraction that becomes a `tl.dot` kernel
or a CPU micro-kernel (`cpu-vectorize-contractions`).

Elementwise fusion folds producers into their consumers, a matmul included: a layer norm ends
up recomputed inside the next linear layer's reduction, once per output column. A tensor-core
product or a register-tiled kernel needs its operands in memory, and computing them once is
cheaper anyway. The
operand computed in the body (`x` in `out + x * y`) is materialized over the iteration dims it
depends on, when those are the rows (or columns), batch and reduction dims of the product.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import linalg, tensor

from ..ir import is_pure, nested_ops
from ..registry import ModulePass, register_pass
from .generics import indexing_maps, loop_extent, map_dims, rebuild_product


@register_pass
@dataclass(frozen=True)
class SplitContractionPrologue(ModulePass):
    """Splits the operand computations out of mul-add contractions on tensors."""

    name: ClassVar[str] = "aten-split-contraction-prologue"

    def run(self, module_op: ir.Operation) -> None:
        candidates = [
            op
            for op in nested_ops(module_op)
            if op.name == "linalg.generic" and _contraction_parts(op) is not None
        ]
        with module_op.context:
            for op in candidates:
                _split(op)


def _used_dims(m: ir.AffineMap) -> list[int] | None:
    """The dims a map reads, where each result is a dim or a constant (a unit dim); else None."""
    out = []
    for e in m.results:
        if isinstance(e, ir.AffineDimExpr):
            out.append(ir.AffineDimExpr(e).position)
        elif not isinstance(e, ir.AffineConstantExpr):
            return None
    return out


def _contraction_parts(op):
    """(x, y, slice_x, slice_y) of a one-output, one-reduction generic whose body ends in
    `yield out + x * y`, where at least one of x, y is computed in the body; else None."""
    if len(op.results) != 1 or not isinstance(op.results[0].type, ir.RankedTensorType):
        return None
    maps = indexing_maps(op)
    if any(_used_dims(m) is None for m in maps) or map_dims(maps[-1]) is None:
        return None
    if _reduction_dim(op, maps) is None:
        return None
    block = op.regions[0].blocks[0]
    body = [o.operation for o in block.operations]
    if len(body) < 3 or [o.name for o in body[-3:]] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return None
    mul, add, yld = body[-3:]
    out = block.arguments[len(block.arguments) - 1]
    if yld.operands[0] != add.results[0] or set(add.operands) != {out, mul.results[0]}:
        return None
    x, y = (_narrow_source(v) for v in mul.operands)
    if out in (x, y) or not all(is_pure(o) for o in body[:-3]):
        return None
    if _is_arg(x, block) and _is_arg(y, block):
        return None  # already plain
    if str(ir.RankedTensorType(op.results[0].type).element_type) not in ("f32", "f16", "bf16"):
        return None  # no tensor-core product to feed
    return x, y


def _reduction_dim(op, maps) -> int | None:
    """The one reduction dim of `op` that is not of extent 1, else None. Reshapes folded into
    a product by expansion leave unit reduction dims beside the real k (x [1, 1, 768] @ W.T of a
    decode step: k as (1, 768)); they are loops of one trip, not another contraction."""
    iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    reductions = [d for d, t in enumerate(iters) if "reduction" in t]
    long = [d for d in reductions if _extent_of(op, d, maps) != 1]
    if len(reductions) == 1:
        return reductions[0]
    return long[0] if len(long) == 1 else None


def _extent_of(op, d: int, maps) -> int | None:
    """The static extent of dim `d` read from the operand shapes, else None."""
    for operand, m in zip(op.operands, maps):
        for pos, e in enumerate(m.results):
            if isinstance(e, ir.AffineDimExpr) and ir.AffineDimExpr(e).position == d:
                t = ir.ShapedType(operand.type)
                if not t.is_dynamic_dim(pos):
                    return t.get_dim_size(pos)
    return None


def _narrow_source(v: ir.Value) -> ir.Value:
    """The bf16/f16 value `v` widens (`extf`), else `v`: a mixed-type product's operand is
    materialized in its narrow type, and `rebuild_product` widens it again in the body."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.extf":
        return v
    source = owner.operands[0]
    return source if isinstance(source.type, (ir.BF16Type, ir.F16Type)) else v


def _is_arg(v: ir.Value, block: ir.Block) -> bool:
    return isinstance(v.owner, ir.Block) and v.owner == block


def _slice(v: ir.Value, block: ir.Block):
    """(ops computing v, in body order; block args they read)."""
    ops, args, stack, seen = [], set(), [v], set()
    while stack:
        value = stack.pop()
        if _is_arg(value, block):
            args.add(value.arg_number)
            continue
        if isinstance(value.owner, ir.Block):
            return None  # a value from an enclosing region
        owner = value.owner.operation
        if owner.block != block:
            continue  # defined above the generic: usable as is
        if owner in seen:
            continue
        seen.add(owner)
        ops.append(owner)
        stack.extend(owner.operands)
    order = [o.operation for o in block.operations]
    return sorted(ops, key=order.index), args


def _split(op) -> None:
    parts = _contraction_parts(op)
    if parts is None:
        return
    block = op.regions[0].blocks[0]
    maps = indexing_maps(op)
    iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    out_dims = set(map_dims(maps[-1]))
    k = _reduction_dim(op, maps)
    units = {d for d, t in enumerate(iters) if "reduction" in t} - {k}
    new_inputs, new_maps = [], []
    plans = []
    for v in parts:
        if _is_arg(v, block):
            if map_dims(maps[v.arg_number]) is None:
                return
            new_inputs.append(op.operands[v.arg_number])
            new_maps.append(maps[v.arg_number])
            continue
        sliced = _slice(v, block)
        if sliced is None:
            return
        ops, args = sliced
        dims = sorted({d for a in args for d in _used_dims(maps[a])})
        if k not in dims or not (set(dims) - {k}) <= out_dims | units or not args:
            return  # not an operand of a product (e.g. depends only on output dims)
        plans.append((v, ops, args, dims))
        new_inputs.append(None)
        new_maps.append(ir.AffineMap.get(len(iters), 0, [ir.AffineDimExpr.get(d) for d in dims]))
    x_dims, y_dims = (set(map_dims(m)) for m in new_maps)
    if not (x_dims | y_dims) >= out_dims or not (x_dims - y_dims) or not (y_dims - x_dims):
        return  # no rows or no columns: a row-wise dot product (a variance), not a matmul
    for v, ops, args, dims in plans:
        slot = next(i for i, x in enumerate(new_inputs) if x is None)
        new_inputs[slot] = _materialize(op, v, ops, sorted(args), dims, maps)
    rebuild_product(op, new_inputs, new_maps, maps[-1], iters)


def _materialize(op, v, ops, args, dims, maps) -> ir.Value:
    """`v` over `dims`, computed by a new parallel generic before `op`."""
    sizes = [loop_extent(op, d, maps) for d in dims]
    inputs = [op.operands[a] for a in args]
    position = {d: i for i, d in enumerate(dims)}

    def moved(e):
        if isinstance(e, ir.AffineDimExpr):
            return ir.AffineDimExpr.get(position[ir.AffineDimExpr(e).position])
        return e  # a constant index

    in_maps = [ir.AffineMap.get(len(dims), 0, [moved(e) for e in maps[a].results]) for a in args]
    with ir.InsertionPoint(op), op.location:
        init = tensor.EmptyOp(sizes, v.type).result
        new = linalg.GenericOp_(
            inputs,
            [init],
            [*in_maps, ir.AffineMap.get_identity(len(dims))],
            [linalg.IteratorType.parallel] * len(dims),
        )
        body = new.regions[0].blocks[0]
        mapping = {}
        old_block = op.regions[0].blocks[0]
        for a, arg in zip(args, body.arguments):
            mapping[old_block.arguments[a]] = arg
        with ir.InsertionPoint(body):
            for inner in ops:
                clone = inner.clone()
                for i, operand in enumerate(clone.operands):
                    if operand in mapping:
                        clone.operands[i] = mapping[operand]
                for r_old, r_new in zip(inner.results, clone.results):
                    mapping[r_old] = r_new
            linalg.YieldOp([mapping[v]])
    return new.results[0]
