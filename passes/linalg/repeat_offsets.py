"""Repeated blocks that differ only in where their slices read: the offsets become arguments.

An unrolled recurrence (an LSTM's or GRU's cells, a loop over `LSTMCell`) repeats the same ops
once per time step, but each step's `tensor.extract_slice` reads its own step of the input
projection: a static offset that differs from block to block. `aten-outline-repeated-blocks`
compares blocks without those offsets (`signature_attributes`), and for a run of blocks the
offsets that differ between them (`varying_offsets`) are passed to the outlined function as
`index` arguments, the slices reading them as dynamic offsets (`make_dynamic`). The values are
the same constants as before, only passed, so every slice stays in bounds; offsets equal in
all blocks (an LSTM's four gates at 0, H, 2H, 3H) stay static.

Only `tensor.extract_slice` is parameterized: an `insert_slice` with differing offsets writes
into a tensor from outside the block (an RNN's output being assembled), which in a function
is an argument, and bufferization would copy the whole destination on every call; such blocks
stay apart.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

OFFSETS = "static_offsets"
_SEGMENTS = "operandSegmentSizes"
# op name -> the index of its offsets in `operandSegmentSizes`
_OFFSETS_SEGMENT = {"tensor.extract_slice": 1}
_DYNAMIC = ir.ShapedType.get_dynamic_stride_or_offset()


def _offsets(op: ir.Operation) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[OFFSETS]))


def signature_attributes(op: ir.Operation) -> tuple:
    """The attributes of `op` that blocks must share: all of them, except that a slice's
    static offsets count only as which of them are static."""
    if op.name not in _OFFSETS_SEGMENT:
        return tuple(sorted((k, str(op.attributes[k])) for k in op.attributes))
    kept = [(k, str(op.attributes[k])) for k in op.attributes if k != OFFSETS]
    kept.append((OFFSETS, tuple(o == _DYNAMIC for o in _offsets(op))))
    return tuple(sorted(kept))


def varying_offsets(ops: list, blocks: list[list[int]]) -> list[tuple[int, int]]:
    """(position in the block, dimension) of each static slice offset that is not the same in
    all `blocks` (lists of indices into `ops`, alike up to `signature_attributes`)."""
    varying = []
    for j, i in enumerate(blocks[0]):
        if ops[i].name not in _OFFSETS_SEGMENT:
            continue
        first = _offsets(ops[i])
        for d, offset in enumerate(first):
            if offset != _DYNAMIC and any(_offsets(ops[b[j]])[d] != offset for b in blocks[1:]):
                varying.append((j, d))
    return varying


def offset_constants(ops: list, block: list[int], varying, ip: ir.InsertionPoint) -> list:
    """`arith.constant` values (index) of `block`'s varying offsets, created at `ip`."""
    index = ir.IndexType.get()
    with ip:
        return [arith.ConstantOp(index, _offsets(ops[block[j]])[d]).result for j, d in varying]


def make_dynamic(op: ir.Operation, dims: dict[int, ir.Value]) -> None:
    """Replaces the slice `op` by one reading its offsets at `dims` (dimension -> index value)
    as operands, and erases `op`."""
    segment = _OFFSETS_SEGMENT[op.name]
    static = _offsets(op)
    sizes = list(ir.DenseI32ArrayAttr(op.attributes[_SEGMENTS]))
    operands = list(op.operands)
    start = sum(sizes[:segment])
    old = iter(operands[start : start + sizes[segment]])
    dynamic = []
    for d, offset in enumerate(static):
        if d in dims:
            dynamic.append(dims[d])
            static[d] = _DYNAMIC
        elif offset == _DYNAMIC:
            dynamic.append(next(old))
    operands[start : start + sizes[segment]] = dynamic
    sizes[segment] = len(dynamic)
    attributes = {k: op.attributes[k] for k in op.attributes}
    with op.context, op.location:
        attributes[OFFSETS] = ir.DenseI64ArrayAttr.get(static)
        attributes[_SEGMENTS] = ir.DenseI32ArrayAttr.get(sizes)
        new = ir.Operation.create(
            op.name,
            results=[r.type for r in op.results],
            operands=operands,
            attributes=attributes,
            ip=ir.InsertionPoint(op),
        )
    for old_result, new_result in zip(op.results, new.results):
        old_result.replace_all_uses_with(new_result)
    op.erase()
