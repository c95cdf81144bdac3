"""Embeddings: `embedding` (a row gather), `embedding_dense_backward` (a row scatter-add), and
`_embedding_bag` (in embedding_bag.py).

The forward is one `linalg.generic` over indices x row whose body `tensor.extract`s the weight;
the backward adds gradient rows into a zero-filled table in an `scf.for` nest (duplicate indices
accumulate in index order, as ATen's `index_add_` does), skipping `padding_idx` and dividing by
the index's frequency under `scale_grad_by_freq`.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .builder import PARALLEL, convert, is_float, tensor_type
from .indexing_core import as_index, linalg_indices, loop_nest, supported
from .registry import register_lowering
from .scatter import combine


@register_lowering("aten.embedding")
def lower_embedding(op, rw):
    """aten.embedding -> linalg.generic(tensor.extract)"""
    weight, indices = rw.args["weight"], rw.args["indices"]
    if not supported(weight):
        return None
    wt, it, result = tensor_type(weight), tensor_type(indices), rw.result_type()
    sizes = rw.sizes(indices) + rw.sizes(weight)[1:]
    init = rw.empty(result, sizes)
    k = it.rank
    index_map = ir.AffineMap.get(result.rank, 0, [ir.AffineDimExpr.get(d) for d in range(k)])
    maps = [index_map, ir.AffineMap.get_identity(result.rank)]

    def body(i, _out):
        ivs = linalg_indices(result.rank)
        return tensor.ExtractOp(weight, [as_index(i), *ivs[k:]]).result

    if wt.rank < 1:
        return None
    return rw.generic([indices], [init], maps, [PARALLEL] * result.rank, body)[0]


@register_lowering("aten.embedding_dense_backward")
def lower_embedding_dense_backward(op, rw):
    """aten.embedding_dense_backward -> scf.for, scf.if, tensor.extract, tensor.insert"""
    grad, indices = rw.args["grad_output"], rw.args["indices"]
    padding_idx, by_freq = rw.args["padding_idx"], rw.args["scale_grad_by_freq"]
    result = rw.result_type()
    t = result.element_type
    if not supported(grad) or not is_float(t) or result.rank != 2:
        return None
    it = tensor_type(indices)
    k = it.rank
    row = rw.size(grad, tensor_type(grad).rank - 1)
    out = rw.full(result, [rw.args["num_weights"], row], 0)
    counts = None
    if by_freq:
        i64 = ir.IntegerType.get_signless(64, context=t.context)
        with rw.at():
            counts_type = ir.RankedTensorType.get([result.get_dim_size(0)], i64)
        counts = rw.full(counts_type, [rw.args["num_weights"]], 0)

        def count(ivs, carried):
            (acc,) = carried
            i = as_index(tensor.ExtractOp(indices, list(ivs)).result)
            n = tensor.ExtractOp(acc, [i]).result
            return [tensor.InsertOp(arith.addi(n, arith.constant(i64, 1)), acc, [i]).result]

        (counts,) = loop_nest(rw, rw.sizes(indices), [counts], count)

    def accumulate(ivs, carried):
        (acc,) = carried
        raw = tensor.ExtractOp(indices, list(ivs[:k])).result
        keep = arith.cmpi(arith.CmpIPredicate.ne, raw, arith.constant(raw.type, padding_idx))
        branch = scf.IfOp(keep, [acc.type], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            i = as_index(raw)
            g = convert(tensor.ExtractOp(grad, list(ivs)).result, t)
            if counts is not None:
                # ATen adds with alpha = 1 / count (rounded to the dtype), not g / count
                n = convert(tensor.ExtractOp(counts, [i]).result, t)
                g = arith.mulf(g, arith.divf(arith.constant(t, 1.0), n))
            where = [i, ivs[k]]
            v = combine("sum", tensor.ExtractOp(acc, where).result, g)
            scf.YieldOp([tensor.InsertOp(v, acc, where).result])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([acc])
        return list(branch.results)

    return loop_nest(rw, [*rw.sizes(indices), row], [out], accumulate)[0]
