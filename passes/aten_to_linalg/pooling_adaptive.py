"""Adaptive average pooling -> a window sum with per-output window bounds, then a divide.

Output o along a dim of input size I and output size O averages [floor(o*I/O), ceil((o+1)*I/O)).
Windows vary in size, so the reduction runs over the largest one and masks the rest; elements
are read with `tensor.extract` at clamped positions (a masked read never leaves the input). As in
ATen's CPU kernel, the sum is divided by each window extent in turn (`sum / kh / kw`).
"""

from __future__ import annotations

from functools import partial

from mlir.dialects import arith, tensor

from . import convolution_tensors as T
from .builder import convert, is_float, tensor_type
from .pooling_windows import (
    CMPI,
    adaptive_end,
    adaptive_extents,
    adaptive_start,
    divide_by_extents,
)
from .registry import register_lowering


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
    kmax = adaptive_extents(rw, isz, osz[lead:])
    ins_ = [T.to_index(rw, v) for v in isz]
    outs_ = [T.to_index(rw, v) for v in osz[lead:]]

    def add(idx, s):
        pos, valid = [], None
        for j in range(n):
            o, k = idx[lead + j], idx[lead + n + j]
            p = arith.addi(adaptive_start(o, ins_[j], outs_[j]), k)
            inside = arith.cmpi(CMPI.ult, p, adaptive_end(o, ins_[j], outs_[j]))
            valid = inside if valid is None else arith.andi(valid, inside)
            pos.append(arith.minui(p, arith.subi(ins_[j], T.icst(1))))
        v = convert(tensor.extract(x, idx[:lead] + pos), acc)
        return arith.addf(s, arith.select(valid, v, arith.constant(acc, 0.0)))

    sums = T.window_generic(rw, [], [], zeros, n, kmax, add)

    def mean(s, _):
        idx = [T.index(j) for j in range(lead + n)]
        starts = [adaptive_start(idx[lead + j], ins_[j], outs_[j]) for j in range(n)]
        ends = [adaptive_end(idx[lead + j], ins_[j], outs_[j]) for j in range(n)]
        return convert(divide_by_extents(s, starts, ends), e)

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
