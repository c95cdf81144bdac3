"""Adaptive average pooling -> a window sum with per-output window bounds, then a divide.

Output o along a dim of input size I and output size O averages [floor(o*I/O), ceil((o+1)*I/O)).
Windows vary in size, so the reduction runs over the largest one and masks the rest; elements
are read with `tensor.extract` at clamped positions (a masked read never leaves the input). As in
ATen's CPU kernel, the sum is divided by each window extent in turn (`sum / kh / kw`).
"""

from __future__ import annotations

from functools import partial

from mlir import ir
from mlir.dialects import arith, tensor

from . import convolution_tensors as T
from .builder import convert, is_float, tensor_type
from .registry import register_lowering

CMPI = arith.CmpIPredicate


def _start(o, i, out):
    return arith.divui(arith.muli(o, i), out)


def _end(o, i, out):
    one = T.icst(1)
    return arith.divui(arith.subi(arith.addi(arith.muli(arith.addi(o, one), i), out), one), out)


def _widest(i, o) -> T.Size:
    """The largest window extent (exact when static, a bound otherwise)."""
    if isinstance(i, int) and isinstance(o, int):
        return max((-(-(j + 1) * i // o)) - (j * i // o) for j in range(o)) if o else 1
    return None


def _covering(i, o) -> T.Size:
    """The most windows one input element lies in (exact when static, a bound otherwise)."""
    if not (isinstance(i, int) and isinstance(o, int)):
        return None
    counts = [0] * max(i, 1)
    for j in range(o):
        for h in range(j * i // o, -(-(j + 1) * i // o)):
            counts[h] += 1
    return max(counts)


def _extents(rw, big, small, exact=_widest):
    """Per dim: how many elements of size `big` one element of size `small` can relate to."""
    out = []
    for b, s in zip(big, small):
        w = exact(b, s)
        out.append(w if w is not None else T.add(rw, T.ceildiv(rw, b, s), 1))
    return out


def _divide_by_extents(v, starts, ends):
    for s, e in zip(starts, ends):
        count = arith.index_cast(ir.IntegerType.get_signless(64), arith.subi(e, s))
        v = arith.divf(v, convert(count, v.type))
    return v


def lower_adaptive_avg_pool(n, op, rw):
    a = rw.args
    x = a["self"]
    e = tensor_type(x).element_type
    if not is_float(e):
        return None  # torch's adaptive pooling is float-only
    lead = tensor_type(x).rank - n
    sizes = rw.sizes(x)
    isz = sizes[lead:]
    requested = list(a["output_size"])
    osz = T.result_sizes(rw, 0, lambda d: sizes[d] if d < lead else requested[d - lead])
    acc = T.f32_if_reduced(e)
    zeros = T.full(rw, osz, acc, 0)
    kmax = _extents(rw, isz, osz[lead:])
    ins_ = [T.to_index(rw, v) for v in isz]
    outs_ = [T.to_index(rw, v) for v in osz[lead:]]

    def add(idx, s):
        pos, valid = [], None
        for j in range(n):
            o, k = idx[lead + j], idx[lead + n + j]
            p = arith.addi(_start(o, ins_[j], outs_[j]), k)
            inside = arith.cmpi(CMPI.ult, p, _end(o, ins_[j], outs_[j]))
            valid = inside if valid is None else arith.andi(valid, inside)
            pos.append(arith.minui(p, arith.subi(ins_[j], T.icst(1))))
        v = convert(tensor.extract(x, idx[:lead] + pos), acc)
        return arith.addf(s, arith.select(valid, v, arith.constant(acc, 0.0)))

    sums = T.window_generic(rw, [], [], zeros, n, kmax, add)

    def mean(s, _):
        idx = [T.index(j) for j in range(lead + n)]
        starts = [_start(idx[lead + j], ins_[j], outs_[j]) for j in range(n)]
        ends = [_end(idx[lead + j], ins_[j], outs_[j]) for j in range(n)]
        return convert(_divide_by_extents(s, starts, ends), e)

    rank = lead + n
    out = T.empty(rw, osz, e)
    return rw.generic([sums], [out], [T.identity(rank)] * 2, [T.PARALLEL] * rank, mean)[0]


for _name, _n in (
    ("aten.adaptive_avg_pool1d", 1),
    ("aten._adaptive_avg_pool2d", 2),
    ("aten._adaptive_avg_pool3d", 3),
):
    register_lowering(
        _name,
        partial(lower_adaptive_avg_pool, _n),
        summary=f"{_name} -> linalg.generic(masked window sum, tensor.extract), "
        "linalg.generic(divide)",
    )


@register_lowering("aten._adaptive_avg_pool2d_backward")
def lower_adaptive_avg_pool2d_backward(op, rw):
    """aten._adaptive_avg_pool2d_backward -> linalg.generic(gather over covering windows)"""
    go, x = rw.args["grad_output"], rw.args["self"]
    e = tensor_type(go).element_type
    if not is_float(e):
        return None
    n = 2
    lead = tensor_type(x).rank - n
    isz_, gsz_ = rw.sizes(x), rw.sizes(go)
    isz, osz = isz_[lead:], gsz_[lead:]
    acc = T.f32_if_reduced(e)
    result_sizes = T.result_sizes(rw, 0, lambda d: isz_[d])
    zeros = T.full(rw, result_sizes, acc, 0)
    kmax = _extents(rw, osz, isz, lambda o, i: _covering(i, o))
    ins_ = [T.to_index(rw, v) for v in isz]
    outs_ = [T.to_index(rw, v) for v in osz]

    def add(idx, s):
        # The windows covering h are o = floor(h*O/I) + k with start(o) <= h and o < O.
        pos, valid, starts, ends = [], None, [], []
        for j in range(n):
            h, k = idx[lead + j], idx[lead + n + j]
            o = arith.addi(_start(h, outs_[j], ins_[j]), k)
            inside = arith.andi(
                arith.cmpi(CMPI.ult, o, outs_[j]),
                arith.cmpi(CMPI.ule, _start(o, ins_[j], outs_[j]), h),
            )
            valid = inside if valid is None else arith.andi(valid, inside)
            o = arith.minui(o, arith.subi(outs_[j], T.icst(1)))
            pos.append(o)
            starts.append(_start(o, ins_[j], outs_[j]))
            ends.append(_end(o, ins_[j], outs_[j]))
        g = convert(tensor.extract(go, idx[:lead] + pos), acc)
        g = _divide_by_extents(g, starts, ends)
        return arith.addf(s, arith.select(valid, g, arith.constant(acc, 0.0)))

    out = T.window_generic(rw, [], [], zeros, n, kmax, add)
    if acc != e:
        rank = lead + n
        init = T.empty(rw, result_sizes, e)
        out = rw.generic(
            [out], [init], [T.identity(rank)] * 2, [T.PARALLEL] * rank, lambda v, _: convert(v, e)
        )[0]
    return out
