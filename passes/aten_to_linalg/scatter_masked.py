"""`masked_scatter`: the source's elements, in order, go where the mask is true.

Where each element lands depends on how many trues came before it, so this is one `scf.for`
nest over `self` carrying the output and that running count (an `scf.if` takes the next source
element); the source is read through a flat view (`tensor.collapse_shape`, no copy), and only
at counts below its length.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .builder import PARALLEL, convert, tensor_type
from .elementwise_core import broadcast_map, broadcast_sizes
from .indexing_core import const_index, loop_nest, supported
from .registry import register_lowering


def flat_view(rw, source: ir.Value) -> ir.Value:
    """`source` as a 1-d tensor (a view)."""
    st = tensor_type(source)
    if st.rank == 1:
        return source
    with rw.at():
        if st.rank == 0:
            t = ir.RankedTensorType.get([1], st.element_type)
            return tensor.ExpandShapeOp(t, source, ir.ArrayAttr.get([]), [], []).result
        n = 1
        for d in range(st.rank):
            n = (
                ir.ShapedType.get_dynamic_size()
                if st.is_dynamic_dim(d) or n < 0
                else (n * st.get_dim_size(d))
            )
        t = ir.RankedTensorType.get([n], st.element_type)
        i64 = ir.IntegerType.get_signless(64)
        group = ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in range(st.rank)])
        return tensor.CollapseShapeOp(t, source, ir.ArrayAttr.get([group])).result


@register_lowering("aten.masked_scatter")
def lower_masked_scatter(op, rw):
    """aten.masked_scatter -> scf.for, scf.if, tensor.extract, tensor.insert"""
    self_, mask, source = rw.args["self"], rw.args["mask"], rw.args["source"]
    result = rw.result_type()
    mt = tensor_type(mask)
    if not supported(self_, source):
        return None
    sizes = broadcast_sizes(rw, [self_, mask], result)
    if tensor_type(self_).shape != result.shape:  # self broadcasts to the mask's shape
        identity = ir.AffineMap.get_identity(result.rank)
        maps = [broadcast_map(tensor_type(self_), result), identity]
        self_ = rw.generic(
            [self_], [rw.empty(result, sizes)], maps, [PARALLEL] * result.rank, lambda x, _: x
        )[0]
    st = tensor_type(self_)
    flat = flat_view(rw, source)
    offset = st.rank - mt.rank
    broadcast = [
        not mt.is_dynamic_dim(i)
        and mt.get_dim_size(i) == 1
        and (st.is_dynamic_dim(i + offset) or st.get_dim_size(i + offset) != 1)
        for i in range(mt.rank)
    ]
    numel = rw.size(flat, 0)
    with rw.at():
        zero, numel = const_index(0), const_index(numel)

    def body(ivs, carried):
        acc, n = carried
        pos = [const_index(0) if broadcast[i] else ivs[i + offset] for i in range(mt.rank)]
        m = tensor.ExtractOp(mask, pos).result
        taken = arith.cmpi(arith.CmpIPredicate.ne, m, arith.constant(m.type, 0))
        branch = scf.IfOp(taken, [acc.type, n.type], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            # a source shorter than the mask's trues (eager raises; the program's index check
            # flags it) leaves the rest of self as it is instead of reading past the source
            have = arith.cmpi(arith.CmpIPredicate.slt, n, numel)
            take = scf.IfOp(have, [acc.type], has_else=True)
            with ir.InsertionPoint(take.then_block):
                v = convert(tensor.ExtractOp(flat, [n]).result, st.element_type)
                scf.YieldOp([tensor.InsertOp(v, acc, list(ivs)).result])
            with ir.InsertionPoint(take.else_block):
                scf.YieldOp([acc])
            scf.YieldOp([take.results[0], arith.addi(n, const_index(1))])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([acc, n])
        return list(branch.results)

    return loop_nest(rw, sizes, [self_, zero], body)[0]
