"""Staging buffers for contractions the kernels cannot run in place: a copy of an operand (or of
C) laid out as a kernel reads it. Each kernel streams lanes along one contiguous dim; a product
whose operands are laid out otherwise had no kernel and ran as scalar loops.

- C, a view whose innermost stride is not 1 (a conv writing straight into the zero-dilated input
  of the transposed conv after it: every other column; a UNet's decoder, 5x eager), is copied
  into a fresh buffer, the product runs there, and the result is copied back.
- A, whose k is not its innermost dim, when B's is (`a.transpose(1, 2) @ b.transpose(1, 2)`, a
  batched product in the backward of attention: 60x eager), is copied with k innermost: the
  product is then `x @ W.T`, which the dot and packed kernels take.

The copies are vector loops (`cpu-copies-to-generics`, `cpu-vectorize-generics`): one or two
passes over a matrix against the product's k fmas per element.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, memref

from aten_mlir.passes.ir.memory import touches_no_memory


def strided_c(op: ir.Operation) -> bool:
    """`op` writes a memref C (its last operand) whose innermost stride is not 1."""
    if len(op.operands) != 3 or len(op.results):
        return False
    t = op.operands[2].type
    if not isinstance(t, ir.MemRefType) or ir.MemRefType(t).rank == 0:
        return False
    strides, _ = ir.MemRefType(t).get_strides_and_offset()
    return strides[-1] != 1


def contiguous_type(t: ir.MemRefType, shape=None) -> ir.MemRefType:
    """`t`'s element type in the identity layout, of `t`'s shape or `shape`."""
    shape = list(t.shape) if shape is None else shape
    return ir.MemRefType.get(shape, t.element_type, loc=ir.Location.unknown(t.context))


def _alloc_like(value: ir.Value, axes: list[int]) -> ir.Value:
    """A fresh buffer of `value`'s sizes taken in the order `axes`."""
    t = ir.MemRefType(value.type)
    shape = [t.shape[a] for a in axes]
    sizes = [
        memref.dim(value, arith.constant(ir.IndexType.get(), a))
        for a in axes
        if ir.ShapedType.is_dynamic_size(t.shape[a])
    ]
    return memref.alloc(contiguous_type(t, shape), sizes, [], alignment=64)


def stage_c(op: ir.Operation) -> None:
    """Rewrites `op` to accumulate into a contiguous copy of its C, copied back after it. When
    C is filled right before `op` (a transposed conv's phase: every other column of the result
    zeroed, then summed into), the fill goes to the copy instead: C's old values are not read
    (the strided fill and the read-back were two scalar passes over C per phase, where only the
    copy back is needed)."""
    c = op.operands[2]
    fill = _fill_before(op, c)
    with op.location, ir.InsertionPoint(op):
        staged = _alloc_like(c, list(range(ir.MemRefType(c.type).rank)))
        if fill is None:
            memref.copy(c, staged)
    if fill is not None:
        fill.operands[1] = staged
        fill.move_before(op)
    op.operands[2] = staged
    with op.location, ir.InsertionPoint.after(op):
        memref.dealloc(staged)
    with op.location, ir.InsertionPoint.after(op):
        memref.copy(staged, c)


def _fill_before(op: ir.Operation, c: ir.Value) -> ir.Operation | None:
    """The `linalg.fill` of exactly `c` before `op` in its block with only inert ops (no reads
    or writes of memory) between them, or None."""
    found = None
    for other in op.block.operations:
        other = other.operation
        if other == op:
            return found
        if other.name == "linalg.fill" and other.operands[1] == c:
            found = other
        elif not touches_no_memory(other):
            found = None
    return None


def _plain_dims(m: ir.AffineMap) -> list[int] | None:
    if not all(isinstance(e, ir.AffineDimExpr) for e in m.results):
        return None
    return [ir.AffineDimExpr(e).position for e in m.results]


def stage_a_along_k(op: ir.Operation, match) -> bool:
    """Copies the input of generic product `op` that is not contiguous along B's k so that it
    is, when `match` (the contraction matcher) then takes `op`; else leaves `op` as it was."""
    if op.name != "linalg.generic" or len(op.operands) != 3:
        return False
    maps_attr = op.attributes["indexing_maps"]
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(maps_attr)]
    iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    dims = [_plain_dims(m) for m in maps[:2]]
    if None in dims or any(not d for d in dims):
        return False
    for a, b in ((0, 1), (1, 0)):
        k = dims[b][-1]
        if "reduction" in iters[k] and k in dims[a] and dims[a][-1] != k:
            return _stage_along(op, a, dims[a], k, maps, maps_attr, match)
    return False


def _stage_along(op, which, dims, k, maps, maps_attr, match) -> bool:
    """Operand `which` (indexed by loop dims `dims`) copied with dim `k` innermost."""
    source = op.operands[which]
    if not isinstance(source.type, ir.MemRefType):
        return False
    axes = [i for i, d in enumerate(dims) if d != k] + [dims.index(k)]
    rank = len(dims)
    element = ir.MemRefType(source.type).element_type
    with op.location, ir.InsertionPoint(op):
        staged = _alloc_like(source, axes)
        permuted = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(a) for a in axes])
        copy = linalg.GenericOp(
            [], [source], [staged], [ir.AffineMap.get_identity(rank), permuted], ["parallel"] * rank
        )
        block = copy.regions[0].blocks.append(element, element)
        with ir.InsertionPoint(block):
            linalg.YieldOp([block.arguments[0]])
    new_map = ir.AffineMap.get(maps[which].n_dims, 0, [ir.AffineDimExpr.get(dims[a]) for a in axes])
    new_maps = list(maps)
    new_maps[which] = new_map
    op.operands[which] = staged
    op.attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in new_maps])
    if match(op) is None:  # no kernel either way: as it was
        op.operands[which] = source
        op.attributes["indexing_maps"] = maps_attr
        copy.operation.erase()
        staged.owner.erase()
        return False
    with op.location, ir.InsertionPoint.after(op):
        memref.dealloc(staged)
    return True
