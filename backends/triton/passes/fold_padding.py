"""`triton-fold-padding`: a padded tensor (a fill with the input inserted into it) read by
linalg.generic ops -> each reader loads the input directly, with the pad value where an index
falls outside it.

A convolution or pooling window over a padded input is lowered as fill + insert_slice + the
windowed op: two extra passes over memory (and a copy of the whole padded buffer when the fill
is shared) before the op reads the padded copy. A kernel can instead read `x[i - low]` when
`0 <= i - low < size` and the pad value otherwise, with the index clamped so the load stays in
bounds: the reader then touches the input once and the padded tensor is never made. Runs on
tensors after `linalg-generalize-named-ops`, so every reader is a linalg.generic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import affine, arith, linalg, tensor

from aten_mlir.passes.registry import ModulePass, nested_ops, register_pass

from ..products import LOW_ATTR, WINDOW_ATTR


@register_pass
@dataclass(frozen=True)
class FoldPadding(ModulePass):
    """Folds fill + insert_slice padding into the linalg.generic ops that read the padded
    tensor (masked, clamped reads of the unpadded input)."""

    name: ClassVar[str] = "triton-fold-padding"

    def run(self, module_op: ir.Operation) -> None:
        inserts = [op for op in nested_ops(module_op) if op.name == "tensor.insert_slice"]
        with module_op.context:
            for op in inserts:
                pad = _padding(op)
                if pad is None:
                    continue
                for use in list(op.results[0].uses):
                    _fold_into(_owner(use), use.operand_number, pad)


@dataclass
class _Pad:
    source: ir.Value  # the unpadded tensor
    low: list[int]  # leading pad per dim
    value: ir.Value  # the pad value (defined above the readers)


def _owner(use) -> ir.Operation:
    return getattr(use.owner, "operation", use.owner)


def _static(attr) -> list[int]:
    return list(ir.DenseI64ArrayAttr(attr))


def _fill_value(v: ir.Value) -> ir.Value | None:
    """The scalar `v` is filled with, when a fill (named or generalized) makes it."""
    return None if isinstance(v.owner, ir.Block) else fill_scalar(v.owner.operation)


def fill_scalar(op: ir.Operation) -> ir.Value | None:
    """The scalar `op` fills its output with, when it is a fill (named or generalized)."""
    if op.name == "linalg.fill":
        return op.operands[0]
    if op.name != "linalg.generic" or len(op.operands) != 2:
        return None
    scalar = op.operands[0]
    block = op.regions[0].blocks[0]
    body = [o.operation for o in block.operations]
    if isinstance(scalar.type, ir.ShapedType) or len(body) != 1:
        return None
    return scalar if body[0].operands[0] == block.arguments[0] else None


def _copied(v: ir.Value) -> ir.Value:
    """The tensor a plain copy (named or generalized, no cast) of `v` reads, else `v`."""
    if isinstance(v.owner, ir.Block):
        return v
    op = v.owner.operation
    if op.name == "linalg.copy" and op.operands[0].type.element_type == v.type.element_type:
        return op.operands[0]
    if op.name == "linalg.generic" and len(op.operands) == 2:
        block = op.regions[0].blocks[0]
        body = [o.operation for o in block.operations]
        maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
        plain = all(m == ir.AffineMap.get_identity(m.n_dims) for m in maps)
        if plain and len(body) == 1 and body[0].operands[0] == block.arguments[0]:
            return op.operands[0]
    return v


def _padding(op: ir.Operation) -> _Pad | None:
    """The padding `op` (insert_slice of x into a fill, unit strides, static offsets) makes."""
    source, dest = op.operands[0], op.operands[1]
    value = _fill_value(dest)
    if value is None or any(s != 1 for s in _static(op.attributes["static_strides"])):
        return None
    low = _static(op.attributes["static_offsets"])
    sizes = _static(op.attributes["static_sizes"])
    if any(x < 0 for x in low) or ir.ShapedType.get_dynamic_size() in low:
        return None
    source_t = ir.RankedTensorType(source.type)
    if len(sizes) != source_t.rank or source_t.rank != ir.RankedTensorType(dest.type).rank:
        return None  # a rank-reducing insert
    return _Pad(_copied(source), low, value)


def _fold_into(user: ir.Operation, operand: int, pad: _Pad) -> None:
    n_inputs = len(user.operands) - len(user.results)
    if user.name != "linalg.generic" or operand >= n_inputs:
        return  # written, or read by an op that is not a generic: keep the padded tensor
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(user.attributes["indexing_maps"])]
    read = maps[operand]
    iters = ir.ArrayAttr(user.attributes["iterator_types"])
    kinds = [
        linalg.IteratorType.reduction if "reduction" in str(t) else linalg.IteratorType.parallel
        for t in iters
    ]
    inputs = [v for i, v in enumerate(user.operands[:n_inputs]) if i != operand]
    outputs = list(user.operands[n_inputs:])
    new_maps = [m for i, m in enumerate(maps) if i != operand]
    covered = {
        ir.AffineDimExpr(e).position
        for m in new_maps
        for e in m.results
        if isinstance(e, ir.AffineDimExpr)
    }
    if len(covered) < read.n_dims:
        return  # the padded operand alone sizes a loop dim: the loop bounds would be lost
    old_block = user.regions[0].blocks[0]
    with ir.InsertionPoint(user), user.location:
        index = ir.IndexType.get()
        sizes = [_size(pad.source, d) for d in range(len(pad.low))]
        new = linalg.GenericOp_(inputs, outputs, new_maps, kinds)
        block = new.regions[0].blocks[0]
        mapping = {}
        args = iter(block.arguments)
        for i, arg in enumerate(old_block.arguments):
            if i != operand:
                mapping[arg] = next(args)
        with ir.InsertionPoint(block):
            ivs = [linalg.IndexOp(d).result for d in range(read.n_dims)]
            zero = arith.constant(index, 0)
            inside, clamped = None, []
            for d, expr in enumerate(read.results):
                shifted = ir.AffineMap.get(
                    read.n_dims, 0, [expr + ir.AffineConstantExpr.get(-pad.low[d])]
                )
                i = affine.apply(shifted, ivs)
                last = arith.subi(sizes[d], arith.constant(index, 1))
                ok = arith.andi(
                    arith.cmpi(arith.CmpIPredicate.sge, i, zero),
                    arith.cmpi(arith.CmpIPredicate.sle, i, last),
                )
                inside = ok if inside is None else arith.andi(inside, ok)
                clamped.append(arith.minsi(arith.maxsi(i, zero), last))
            loaded = tensor.extract(pad.source, clamped)
            mapping[old_block.arguments[operand]] = arith.select(inside, loaded, pad.value)
            for inner in old_block.operations:
                clone = inner.operation.clone()
                for k, v in enumerate(clone.operands):
                    if v in mapping:
                        clone.operands[k] = mapping[v]
                for r_old, r_new in zip(inner.results, clone.results):
                    mapping[r_old] = r_new
    if _is_windowed_product(old_block, operand, pad.value):
        new.attributes[WINDOW_ATTR] = ir.AffineMapAttr.get(read)
        new.attributes[LOW_ATTR] = ir.DenseI64ArrayAttr.get(pad.low)
    for r_old, r_new in zip(user.results, new.results):
        r_old.replace_all_uses_with(r_new)
    user.erase()


def _is_windowed_product(block: ir.Block, operand: int, value: ir.Value) -> bool:
    """The reader is `out + padded * w` with a zero pad: a convolution the outlining can still
    make a `tl.dot` kernel of (see codegen/conv.py)."""
    body = [o.operation for o in block.operations]
    if [o.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    if block.arguments[operand] not in list(body[0].operands):
        return False
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return False
    return ir.FloatAttr(owner.operation.attributes["value"]).value == 0.0


def _size(v: ir.Value, d: int) -> ir.Value:
    t = ir.RankedTensorType(v.type)
    if not t.is_dynamic_dim(d):
        return arith.constant(ir.IndexType.get(), t.get_dim_size(d))
    return tensor.dim(v, arith.constant(ir.IndexType.get(), d))
