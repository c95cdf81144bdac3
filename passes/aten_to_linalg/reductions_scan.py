"""Softmax, log-softmax (max, sum of exp, normalise), cumsum and cumprod (a sequential `scf.for`
scan: along the last dim a row at a time, along another dim slice by slice)."""

from __future__ import annotations

from functools import partial

from mlir import ir
from mlir.dialects import arith, math, scf, tensor

from .builder import PARALLEL, convert, elem, is_float, tensor_type
from .reductions_common import (
    DYN,
    acc_type,
    add,
    compute_float,
    dims_map,
    empty,
    full,
    generic,
    mul,
    ranked,
    reduce,
    shape_of,
    sizes,
    supported,
)
from .registry import register_lowering


def lower_softmax(log: bool, op, rw):
    """Numerically stable: exp(x - max) / sum, or (x - max) - log(sum); half_to_float makes
    the result f32, which the result type already says."""
    x = rw.args["self"]
    rt = rw.result_type()
    if not supported(x.type) or not is_float(rt.element_type):
        return None
    xt = tensor_type(x)
    rank = xt.rank
    dims = [rw.args["dim"] % rank] if rank else []
    ct = compute_float(rt.element_type)
    with rw.at():
        (m,) = reduce(
            x, dims, [(ct, float("-inf"))], lambda v, s: arith.maximumf(s, convert(v, ct))
        )
        if log:
            return _log_softmax_tail(x, m, dims, rt, ct)
        return _softmax_tail(x, m, dims, rt, ct)


def _softmax_tail(x, m, dims, rt, ct):
    """exp(x - max) stored once, summed in `ct`, then scaled by 1 / sum, as ATen's
    `_vec_softmax_lastdim` (fusion would otherwise recompute exp in the normalising pass).

    The sum stays in `ct` (not f64 as for sum()): every term is in [0, 1] and so is every
    output, so a rounding of the sum moves an output by at most ~n * eps * p, well inside the
    eager comparison's atol; vectorized, each lane sums n / lanes terms."""
    rank = tensor_type(x).rank
    identity = ir.AffineMap.get_identity(rank)
    kept = [d for d in range(rank) if d not in dims]
    out_map = dims_map(rank, kept)
    e_init = empty(ranked(shape_of(tensor_type(x)), ct), sizes(x))

    def shifted_exp(v, mx, _out):
        return math.exp(arith.subf(convert(v, ct), mx))

    (e,) = generic([x, m], [e_init], [identity, out_map, identity], [PARALLEL] * rank, shifted_exp)
    (s,) = reduce(e, dims, [(ct, 0.0)], lambda v, acc: arith.addf(acc, v))
    one = arith.constant(ct, 1.0)

    def scale(ev, sm, _out):
        return convert(arith.mulf(ev, arith.divf(one, sm)), rt.element_type)

    # In place over e when the types agree (its other reader, the sum, runs before). e is an
    # input, not read through the init: elementwise fusion would make a read init a second
    # result of the fused op (wrong once fused into a product's reduction, `p @ v`).
    init = e if rt.element_type == ct else empty(rt, sizes(x))
    maps = [identity, out_map, identity]
    return generic([e, s], [init], maps, [PARALLEL] * rank, scale)[0]


def _log_softmax_tail(x, m, dims, rt, ct):
    """(x - max) - log(sum(exp(x - max))), the sum in f64 for f32 (as sum())."""
    rank = tensor_type(x).rank
    sum_t = acc_type(rt.element_type)

    def exp_sum(v, mx, s):
        return arith.addf(s, convert(math.exp(arith.subf(convert(v, ct), mx)), sum_t))

    (s,) = reduce(x, dims, [(sum_t, 0.0)], exp_sum, per_output=[m])

    def normalise(v, mx, sm, _out):
        shifted = arith.subf(convert(v, ct), mx)
        return convert(arith.subf(shifted, convert(math.log(sm), ct)), rt.element_type)

    identity = ir.AffineMap.get_identity(rank)
    out_map = dims_map(rank, [d for d in range(rank) if d not in dims])
    init = empty(rt, sizes(x))
    maps = [identity, out_map, out_map, identity]
    return generic([x, m, s], [init], maps, [PARALLEL] * rank, normalise)[0]


register_lowering(
    "aten._softmax",
    partial(lower_softmax, False),
    summary="aten._softmax -> linalg.generic(max), linalg.generic(math.exp), linalg.generic(sum), "
    "linalg.generic(arith.mulf by 1 / sum)",
)
register_lowering(
    "aten._log_softmax",
    partial(lower_softmax, True),
    summary="aten._log_softmax -> linalg.generic(max), linalg.generic(sum of math.exp), "
    "linalg.generic(math.log, arith.subf)",
)


def lower_scan(combine, identity: int, op, rw):
    """A running `combine` along `dim` (cumsum: add from 0, cumprod: multiply from 1),
    accumulated as ATen's CPU kernels do (`acc_type`: f64 for f32, f32 for half floats)."""
    x = rw.args["self"]
    rt = rw.result_type()
    real = elem(op.results[0].type)
    if not supported(x.type, rt) or (isinstance(real, ir.IntegerType) and real.width == 1):
        return None
    xt = tensor_type(x)
    acc = acc_type(real) if is_float(real) else real
    stored = rt.element_type
    with rw.at():
        if xt.rank == 0:
            return _convert_all(x, rt, lambda v: convert(convert(v, acc), stored))
        d = rw.args["dim"] % xt.rank
        return _scan(x, d, rt, acc, stored, combine, identity)


register_lowering(
    "aten.cumsum",
    partial(lower_scan, add, 0),
    summary="aten.cumsum -> scf.for(tensor.extract_slice, linalg.generic(add), "
    "tensor.insert_slice)",
)
# cumprod is not core, so aten-decompose turns a static-length one into log2(n) shifted
# products first; this lowering runs the rest (a dynamic dim) in one pass instead of eagerly.
register_lowering(
    "aten.cumprod",
    partial(lower_scan, mul, 1),
    summary="aten.cumprod -> scf.for(tensor.extract_slice, linalg.generic(mul), "
    "tensor.insert_slice)",
)


def _scan_rows(scratch: ir.Value, all_sizes, combine, identity) -> ir.Value:
    """The scan along the last dim, in place: a running value per row from `identity` (as
    ATen's kernel: cumsum's first element of -0.0 is +0.0; and a `?` row may be empty), a row at
    a time. Slices across the rows (the general form, vector loops along another dim) would be
    strided gathers here: cumsum(-1) of [1024, 1024] was 13x eager."""
    index = ir.IndexType.get()
    c0, c1 = arith.constant(index, 0), arith.constant(index, 1)
    acc = tensor_type(scratch).element_type
    start = arith.constant(acc, float(identity) if is_float(acc) else int(identity))

    def extent(s):
        return s if isinstance(s, ir.Value) else arith.constant(index, s)

    def rows(t, outer):
        if len(outer) == len(all_sizes) - 1:
            loop = scf.ForOp(c0, extent(all_sizes[-1]), c1, [t, start])
            with ir.InsertionPoint(loop.body):
                at = [*outer, loop.induction_variable]
                cur, running = loop.inner_iter_args
                total = combine(running, tensor.extract(cur, at))
                scf.YieldOp([tensor.insert(total, cur, at), total])
            return loop.results[0]
        loop = scf.ForOp(c0, extent(all_sizes[len(outer)]), c1, [t])
        with ir.InsertionPoint(loop.body):
            scf.YieldOp([rows(loop.inner_iter_args[0], [*outer, loop.induction_variable])])
        return loop.results[0]

    return rows(scratch, [])


def _convert_all(x, rt, fn):
    ident = ir.AffineMap.get_identity(rt.rank)
    init = empty(rt, sizes(x))
    return generic([x], [init], [ident, ident], [PARALLEL] * rt.rank, lambda v, _o: fn(v))[0]


def _scan(x: ir.Value, d: int, rt, acc: ir.Type, stored: ir.Type, combine, identity) -> ir.Value:
    """x converted to `acc`, then a running `combine` of the slices along `d` (sequential along `d`,
    parallel within a slice), then converted to the result type. Each step's generic reads and
    writes its two outputs, the running sum and slice i, so that both bufferize in place (an
    unread `outs` is replaced by a new tensor, a read of slice i-1 gets copied: either costs a
    strided memref.copy)."""
    xt = tensor_type(x)
    rank = xt.rank
    all_sizes = sizes(x)
    shape = shape_of(xt)
    ident = ir.AffineMap.get_identity(rank)
    # nothing to scan (and a slice of an empty dim would not verify); along a dim of one
    # element the scan is its input, and a rank-dropping slice of a shape with other unit dims
    # would be folded by canonicalize into one that drops the wrong dim
    if 0 in shape or shape[d] == 1:
        return _convert_all(x, rt, lambda v: convert(v, stored))
    scratch = _convert_all(x, ranked(shape, acc), lambda v: convert(v, acc))
    if d == rank - 1:
        result = _scan_rows(scratch, all_sizes, combine, identity)
        return result if acc == stored else _convert_all(result, rt, lambda v: convert(v, stored))
    slice_t = ranked([s for k, s in enumerate(shape) if k != d], acc)
    index = ir.IndexType.get()
    c0, c1 = arith.constant(index, 0), arith.constant(index, 1)
    n = all_sizes[d] if isinstance(all_sizes[d], ir.Value) else arith.constant(index, all_sizes[d])
    static_offsets = [DYN if k == d else 0 for k in range(rank)]
    static_sizes = [1 if k == d else s for k, s in enumerate(shape)]
    dyn_sizes = [s for k, s in enumerate(all_sizes) if k != d and isinstance(s, ir.Value)]
    strides = [1] * rank

    def piece(t, at):
        return tensor.ExtractSliceOp(
            slice_t, t, [at], dyn_sizes, [], static_offsets, static_sizes, strides
        ).result

    slice_sizes = [s for k, s in enumerate(all_sizes) if k != d]
    running0 = full(slice_t, slice_sizes, identity)
    loop = scf.ForOp(c0, n, c1, [scratch, running0])

    def step(r, h):
        total = combine(r, h)
        return total, total

    with ir.InsertionPoint(loop.body):
        i = loop.induction_variable
        cur, running = loop.inner_iter_args
        sub = ir.AffineMap.get_identity(rank - 1)
        running, row = generic(
            [], [running, piece(cur, i)], [sub, sub], [PARALLEL] * (rank - 1), step
        )
        out = tensor.InsertSliceOp(
            row, cur, [i], dyn_sizes, [], static_offsets, static_sizes, strides
        ).result
        scf.YieldOp([out, running])
    result = loop.results[0]
    if acc == stored:
        return result
    return generic(
        [result],
        [empty(rt, all_sizes)],
        [ident, ident],
        [PARALLEL] * rank,
        lambda v, _o: convert(v, stored),
    )[0]
