"""Bool mask indices (`x[mask]`) as long index tensors: the coordinates of the true elements.

A mask over k dims of `self` stands for k index tensors of length nnz(mask) (what torch does,
via `nonzero`): one `scf.for` nest counts the trues, a second writes their coordinates in
row-major order, so the data-dependent result size comes from the count.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .builder import elem, tensor_type
from .indexing_core import const_index, loop_nest


def is_mask(v) -> bool:
    """Bool index tensors reach rules as i8 storage (torch rejects int8 indices)."""
    e = elem(v)
    return isinstance(e, ir.IntegerType) and ir.IntegerType(e).width in (1, 8)


def masks_as_indices(op, rw, indices):
    """(`indices` with each mask replaced by its coordinate tensors, [(coordinates, their
    length)]); None if unsupported."""
    known = []
    if not any(i is not None and is_mask(i) for i in indices):
        return indices, known
    out = []
    for i in indices:
        if i is None or not is_mask(i):
            out.append(i)
            continue
        if not ir.IntegerType(elem(i)).is_signless or tensor_type(i).rank == 0:
            return None
        coords, nnz = _coordinates(rw, i)
        out.extend(coords)
        known.extend((c, nnz) for c in coords)
    return out, known


def _coordinates(rw, mask: ir.Value) -> list[ir.Value]:
    mt = tensor_type(mask)
    sizes = rw.sizes(mask)
    i64 = ir.IntegerType.get_signless(64, context=mt.context)

    def is_true(ivs):
        m = tensor.ExtractOp(mask, list(ivs)).result
        return arith.cmpi(arith.CmpIPredicate.ne, m, arith.constant(m.type, 0))

    def count(ivs, carried):
        (n,) = carried
        return [arith.addi(n, arith.select(is_true(ivs), const_index(1), const_index(0)))]

    with rw.at():
        zero = const_index(0)
    (nnz,) = loop_nest(rw, sizes, [zero], count)
    with rw.at():
        coords_type = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], i64)
    empties = [rw.empty(coords_type, [nnz]) for _ in range(mt.rank)]

    def write(ivs, carried):
        pos, *coords = carried
        cond = is_true(ivs)
        branch = scf.IfOp(cond, [pos.type] + [c.type for c in coords], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            new = [
                tensor.InsertOp(arith.index_cast(i64, iv), c, [pos]).result
                for iv, c in zip(ivs, coords)
            ]
            scf.YieldOp([arith.addi(pos, const_index(1)), *new])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([pos, *coords])
        return list(branch.results)

    _, *coords = loop_nest(rw, sizes, [zero, *empties], write)
    return coords, nnz
