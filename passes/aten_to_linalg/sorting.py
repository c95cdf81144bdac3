"""Sorting and data-dependent shapes: sort, topk (a sorted prefix) and nonzero."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, bufferization, linalg, scf, tensor

from .builder import PARALLEL, REDUCTION, convert, elem, is_float, tensor_type
from .registry import register_lowering
from .sorting_merge import merge_sort
from .sorting_select import MAX_K, top_k


def _sortable(t: ir.Type) -> bool:
    return is_float(t) or (isinstance(t, ir.IntegerType) and ir.IntegerType(t).is_signless)


def _sorted(rw, x, dim, descending):
    """(values, int64 indices) of `x` sorted along `dim` (stable)."""
    vt, it = rw.result_type(0), rw.result_type(1)
    with rw.at():
        vt = ir.RankedTensorType.get(tensor_type(x).shape, vt.element_type)
        it = ir.RankedTensorType.get(tensor_type(x).shape, it.element_type)
    sizes = rw.sizes(x)
    rank = vt.rank
    ident = ir.AffineMap.get_identity(rank)
    i64 = it.element_type

    def start(v, _v, _i):  # the data and each element's position along dim
        if rank == 0:
            return v, arith.constant(i64, 0)
        return v, arith.index_cast(i64, linalg.IndexOp(dim).result)

    outs = [rw.empty(vt, sizes), rw.empty(it, sizes)]
    values, indices = rw.generic([x], outs, [ident] * 3, [PARALLEL] * rank, start)
    if rank == 0:
        return values, indices
    # Scratch as alloc_tensor, not tensor.empty: CSE merges equal empties (values and indices
    # are both i64 for int64 input), and one-shot-bufferize then gives both loop-carried
    # scratch tensors one buffer.
    with rw.at():
        scratch = [_alloc(t, sizes, rw) for t in (vt, it)]
        return merge_sort(values, indices, *scratch, sizes, dim, descending)


def _alloc(t, sizes, rw):
    dyn = [rw._index(s) for d, s in enumerate(sizes) if t.is_dynamic_dim(d)]
    return bufferization.alloc_tensor(t, dyn)


@register_lowering("aten.sort")
def lower_sort(op, rw):
    """aten.sort -> linalg.generic, scf.for(bottom-up merge sort: tensor.extract/insert)"""
    x = rw.args["self"]
    if not _sortable(elem(x)):
        return None
    rank = tensor_type(x).rank
    dim = rw.args.get("dim", -1) % max(rank, 1)
    return _sorted(rw, x, dim, bool(rw.args.get("descending", False)))


@register_lowering("aten.topk")
def lower_topk(op, rw):
    """aten.topk -> scf.for(selection of the k best per row: tensor.extract/insert), or for a
    large k: linalg.generic, scf.for(merge sort), linalg.generic(tensor.extract of top k)"""
    x = rw.args["self"]
    if not _sortable(elem(x)):
        return None
    xt = tensor_type(x)
    rank = xt.rank
    dim = rw.args.get("dim", -1) % max(rank, 1)
    if rank == 0:
        return _sorted(rw, x, dim, bool(rw.args.get("largest", True)))
    k = rw.args["k"]
    n = xt.get_dim_size(dim) if not xt.is_dynamic_dim(dim) else None
    if isinstance(k, int) and 1 <= k <= MAX_K and n is not None and 4 * k <= n:
        sizes = rw.sizes(x)
        kept = [*sizes[:dim], k, *sizes[dim + 1 :]]
        with rw.at():  # allocs, not empties: CSE would merge an int64 x's two (see _sorted)
            outs = [_alloc(rw.result_type(i), kept, rw) for i in range(2)]
            return tuple(top_k(x, *outs, sizes, dim, k, bool(rw.args.get("largest", True))))
    values, indices = _sorted(rw, x, dim, bool(rw.args.get("largest", True)))
    sizes = rw.sizes(x)
    sizes[dim] = k
    # A gather of the sorted prefix, not an extract_slice view: a strided view returned from a
    # segment is copied by `memref.copy`, whose runtime helper the native build does not link.
    outs = [rw.empty(rw.result_type(i), sizes) for i in range(2)]
    ident = ir.AffineMap.get_identity(rank)

    def prefix(_v, _i):
        at = [linalg.IndexOp(d).result for d in range(rank)]
        return tensor.extract(values, at), tensor.extract(indices, at)

    return rw.generic([], outs, [ident] * 2, [PARALLEL] * rank, prefix)


@register_lowering("aten.nonzero")
def lower_nonzero(op, rw):
    """aten.nonzero -> linalg.generic(count), tensor.empty, scf.for(scf.if, tensor.insert)"""
    x = rw.args["self"]
    et = elem(x)
    if not _sortable(et):
        return None
    xt = tensor_type(x)
    rank = xt.rank
    idx = ir.IndexType.get()
    i64 = ir.IntegerType.get_signless(64)
    # The count is an index tensor: its extract is the `?` size with no scalar cast between.
    with rw.at():
        count_t = ir.RankedTensorType.get([], idx)
    zero = rw.full(count_t, [], 0)
    nonzero_map = ir.AffineMap.get_identity(rank)
    scalar_map = ir.AffineMap.get(rank, 0, [])

    def count(v, acc):
        one, none = arith.constant(idx, 1), arith.constant(idx, 0)
        return arith.addi(acc, arith.select(convert(v, _i1()), one, none))

    (total,) = rw.generic([x], [zero], [nonzero_map, scalar_map], [REDUCTION] * rank, count)
    rt = rw.result_type()
    with rw.at():
        n = tensor.extract(total, [])
        result = tensor.EmptyOp([n, rank], i64).result
        if rank == 0:
            return result
        c0 = arith.constant(idx, 0)
        return _fill_positions(x, result, c0, rank, i64, rt)


def _i1() -> ir.Type:
    return ir.IntegerType.get_signless(1)


def _fill_positions(x, result, k0, rank, i64, rt):
    """Row k of `result` gets the index of the k-th nonzero element of `x` (row-major)."""
    idx = ir.IndexType.get()

    def level(d, ivs, res, k):
        if d == rank:
            nz = convert(tensor.extract(x, ivs), _i1())
            branch = scf.IfOp(nz, [res.type, idx], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                r = res
                for col, iv in enumerate(ivs):
                    r = tensor.insert(arith.index_cast(i64, iv), r, [k, arith.constant(idx, col)])
                scf.YieldOp([r, arith.addi(k, arith.constant(idx, 1))])
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp([res, k])
            return list(branch.results)
        c0, c1 = arith.constant(idx, 0), arith.constant(idx, 1)
        loop = scf.ForOp(c0, tensor.dim(x, arith.constant(idx, d)), c1, [res, k])
        with ir.InsertionPoint(loop.body):
            out = level(d + 1, [*ivs, loop.induction_variable], *loop.inner_iter_args)
            scf.YieldOp(out)
        return list(loop.results)

    res = level(0, [], result, k0)[0]
    if res.type != rt:
        res = tensor.CastOp(rt, res).result
    return res
