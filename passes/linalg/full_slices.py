"""A slice that covers its whole tensor is that tensor.

A copy into a fresh tensor (GPT-2's k and v: `torch.empty` then a slice assignment) lowers to
`insert_slice %x into %empty[0, ...] [%b, 4, %s, 16]`: statically the canonicalizer folds it,
but with `?` sizes it cannot tell that `%b, %s` are the destination's own sizes (its
`tensor.empty` operands, once `unify_symbolic_dims` made each export symbol one value). Left
alone, two such inserts into one `tensor.empty` bufferize to a `memref.copy` of strided `?`
memrefs, which lowers to the element-by-element `memrefCopy` runtime call.

`fold_full_slices` replaces an `insert_slice` (zero offsets, unit strides) whose sizes are its
destination's with its source, and such an `extract_slice` with the sliced tensor.
"""

from __future__ import annotations

from mlir import ir

from ..ir import walked_ops

_DYN = ir.ShapedType.get_dynamic_size()


def fold_full_slices(module_op: ir.Operation) -> None:
    for op in walked_ops(module_op):
        if op.name == "tensor.insert_slice":
            whole, part = op.operands[1], op.operands[0]
            if not _sized_alike(part, whole):  # the part's sizes would be lost
                continue
        elif op.name == "tensor.extract_slice":
            whole, part = op.operands[0], op.results[0]
        else:
            continue
        if part.type == whole.type and _covers(op, whole):
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()


def _covers(op: ir.Operation, whole: ir.Value) -> bool:
    """`op`'s offsets are 0, its strides 1 and its sizes `whole`'s, all static or the same SSA
    values `whole`'s `tensor.empty` was built with."""
    offsets = ir.DenseI64ArrayAttr(op.attributes["static_offsets"])
    sizes = ir.DenseI64ArrayAttr(op.attributes["static_sizes"])
    strides = ir.DenseI64ArrayAttr(op.attributes["static_strides"])
    if any(o != 0 for o in offsets) or any(s != 1 for s in strides):
        return False
    shape = ir.RankedTensorType(whole.type)
    first_size = 2 if op.name == "tensor.insert_slice" else 1
    dynamic = iter(op.operands[first_size:])
    for d, size in enumerate(sizes):
        want = _size(whole, shape, d)
        got = next(dynamic) if size == _DYN else size
        if want is None or (got != want if isinstance(got, int) else not _same(got, want)):
            return False
    return True


def _sized_alike(part: ir.Value, whole: ir.Value) -> bool:
    """`part`'s `?` sizes (through destination-passing inits) are `whole`'s SSA sizes, so the
    views of `part` that replace `whole` keep sizes the expand reasoning can match."""
    shape = ir.RankedTensorType(whole.type)
    for _ in range(64):  # a chain of inits; bounded
        owner = part.owner
        if isinstance(owner, ir.Block) or owner.name == "tensor.empty":
            break
        n_res = len(owner.results)
        if not (owner.name.startswith("linalg.") and n_res and len(owner.operands) >= n_res):
            break
        init = owner.operands[len(owner.operands) - n_res + ir.OpResult(part).result_number]
        if init.type != part.type:
            break
        part = init
    return all(
        not shape.is_dynamic_dim(d) or _same(_size(part, shape, d), _size(whole, shape, d))
        for d in range(shape.rank)
    )


def _same(a, b) -> bool:
    return isinstance(a, ir.Value) and isinstance(b, ir.Value) and a == b


def _size(v: ir.Value, shape: ir.RankedTensorType, d: int):
    """Dim `d` of `v`: an int, the `tensor.empty` operand it was built with, or None."""
    if not shape.is_dynamic_dim(d):
        return shape.get_dim_size(d)
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "tensor.empty":
        return None
    return owner.operands[sum(shape.is_dynamic_dim(i) for i in range(d))]
