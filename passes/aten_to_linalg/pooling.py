"""Max and average pooling -> window reductions over a padded input.

The input is padded with the reduction's identity (-inf / the lowest int for max, 0 for sums) far
enough that ceil_mode's last window stays in bounds; positions in the padding are told apart by
index arithmetic in the body (they never win a max, and count_include_pad decides whether they
count in an average). Without an index result, 2d pools on NCHW use `linalg.pooling_nchw_*`.
"""

from __future__ import annotations

from functools import partial

from mlir import ir
from mlir.dialects import arith, linalg

from . import convolution_tensors as T
from .builder import convert, is_float, tensor_type
from .pooling_windows import CMPF, CMPI, Windows, avg_divisor
from .registry import register_lowering


def _lowest(e: ir.Type):
    return float("-inf") if is_float(e) else -(1 << (ir.IntegerType(e).width - 1))


def _supported(e: ir.Type) -> bool:
    if is_float(e):
        return True
    return (
        isinstance(e, ir.IntegerType)
        and ir.IntegerType(e).is_signless
        and (ir.IntegerType(e).width > 1)
    )


def lower_max_pool(n, op, rw):
    a = rw.args
    x = a["self"]
    e = tensor_type(x).element_type
    if not _supported(e) or tensor_type(op.operands[0]).element_type != e:
        return None  # bool (stored as i8), unsigned and complex inputs
    w = Windows(
        rw,
        x,
        n,
        a["kernel_size"],
        a.get("stride"),
        a.get("padding"),
        a.get("dilation"),
        a.get("ceil_mode", False),
    )
    xpad = w.padded(rw, x, _lowest(e))
    values = T.full(rw, w.out, e, _lowest(e))
    i64 = ir.IntegerType.get_signless(64)
    if n == 2 and w.lead == 2 and not list(op.results[1].uses):
        # Only the values are used (F.max_pool2d): the named op, indices left unbuilt.
        with rw.at():
            out = linalg.pooling_nchw_max(
                xpad, T.empty(rw, w.k, e), outs=[values], strides=w.s, dilations=w.d
            )
        return out, T.empty(rw, w.out, i64)
    indices = T.full(rw, w.out, i64, -1)

    def body(idx, v, m, mi):
        pos, valid = w.positions(idx)
        first = arith.cmpi(CMPI.eq, mi, arith.constant(i64, -1))
        if is_float(e):
            better = arith.ori(arith.cmpf(CMPF.OGT, v, m), arith.cmpf(CMPF.UNO, v, v))
        else:
            better = arith.cmpi(CMPI.sgt, v, m)
        take = arith.andi(valid, arith.ori(first, better))
        flat = arith.index_cast(i64, w.flat(pos))
        return arith.select(take, v, m), arith.select(take, flat, mi)

    return T.window_generic(rw, [xpad], [w.read_map()], [values, indices], n, w.k, body, n_out=2)


for _name, _n in (("aten.max_pool2d_with_indices", 2), ("aten.max_pool3d_with_indices", 3)):
    register_lowering(
        _name,
        partial(lower_max_pool, _n),
        summary=f"{_name} -> linalg.generic(values, indices) / "
        "linalg.pooling_nchw_max, linalg.copy (padding)",
    )


def divide(a, b):
    return arith.divf(a, b) if is_float(a.type) else arith.divsi(a, b)


def lower_avg_pool(n, op, rw):
    a = rw.args
    x = a["self"]
    e = tensor_type(x).element_type
    if not _supported(e) or tensor_type(op.operands[0]).element_type != e:
        return None
    w = Windows(
        rw,
        x,
        n,
        a["kernel_size"],
        a.get("stride"),
        a.get("padding"),
        [1],
        a.get("ceil_mode", False),
    )
    acc = T.f32_if_reduced(e) if is_float(e) else ir.IntegerType.get_signless(64)
    xpad = w.padded(rw, x, 0)
    zeros = T.full(rw, w.out, acc, 0)
    named = {1: linalg.pooling_ncw_sum, 2: linalg.pooling_nchw_sum}.get(n)
    if named is not None and w.lead == 2:
        with rw.at():
            sums = named(xpad, T.empty(rw, w.k, e), outs=[zeros], strides=w.s, dilations=w.d)
    else:

        def add(idx, v, s):
            v = convert(v, acc)
            return arith.addf(s, v) if is_float(acc) else arith.addi(s, v)

        sums = T.window_generic(rw, [xpad], [w.read_map()], zeros, n, w.k, add)
    include_pad, override = a.get("count_include_pad", True), a.get("divisor_override")

    def mean(s, _):
        idx = [T.index(j) for j in range(w.lead + n)]
        return convert(divide(s, avg_divisor(w, idx, include_pad, override, acc)), e)

    out = T.empty(rw, w.out, e)
    rank = w.lead + n
    return rw.generic([sums], [out], [T.identity(rank)] * 2, [T.PARALLEL] * rank, mean)[0]


for _name, _n in (("aten.avg_pool1d", 1), ("aten.avg_pool2d", 2), ("aten.avg_pool3d", 3)):
    register_lowering(
        _name,
        partial(lower_avg_pool, _n),
        summary=f"{_name} -> linalg.pooling_nc*_sum / linalg.generic(sum), linalg.generic(divide)",
    )
