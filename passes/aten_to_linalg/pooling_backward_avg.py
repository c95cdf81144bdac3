"""Average pooling backward ops (n = 2 or 3 spatial dims) -> a gather over the windows covering
each input element.

ATen's CPU kernels scatter `grad_output / divisor` into every input element of each window, in
ascending output order. As in `pooling_backward.py`, each rule is instead a `linalg.generic`
over the *input* (parallel) and the few window offsets that can reach an element (reduction,
offsets ascending so contributions arrive in ATen's order: same rounding), reading the
contributions with `tensor.extract` at clamped positions and masking those that are not real.
"""

from __future__ import annotations

from functools import partial

from mlir.dialects import arith, tensor

from . import convolution_tensors as T
from .builder import convert, is_float, tensor_type
from .pooling_backward import add_masked, clamp_index, float_inputs
from .pooling_windows import (
    CMPI,
    Windows,
    adaptive_end,
    adaptive_extents,
    adaptive_start,
    avg_divisor,
    covering_count,
    divide_by_extents,
)
from .registry import register_lowering


def _ranks_fit(x, go, n: int) -> bool:
    """[C, I...] or [N, C, I...] input with a grad_output of the same rank (eager's check)."""
    rank = tensor_type(x).rank
    return rank in (n + 1, n + 2) and tensor_type(go).rank == rank


def _per_output(rw, go, e, fn):
    """`fn(indices, g)` for every grad_output element, of type `e`: each window's share of its
    gradient computed once, not once per (input element, covering window) pair, by the same
    operations (same rounding)."""
    rank = tensor_type(go).rank

    def body(g, _):
        return fn([T.index(d) for d in range(rank)], g)

    init = T.empty(rw, rw.sizes(go), e)
    return rw.generic([go], [init], [T.identity(rank)] * 2, [T.PARALLEL] * rank, body)[0]


def _check_input_fits_kernel(w: Windows) -> None:
    """ATen's `pool3d_shape_check` for average pooling: every static input size at least the
    kernel's, padding or not (eager raises; a `?` size is not checked)."""
    small = [(i, k) for i, k in zip(w.i, w.k) if isinstance(i, int) and i < k]
    if small:
        raise ValueError(f"input image {list(w.i)} smaller than kernel size {w.k}")


def lower_avg_pool_backward(n, op, rw):
    a = rw.args
    go, x = a["grad_output"], a["self"]
    if not float_inputs(rw, go, x) or not _ranks_fit(x, go, n):
        return None
    override = a.get("divisor_override")
    if override is not None and override == 0:
        raise ValueError("divisor must be not zero")  # eager's check; 0 would read as "none"
    w = Windows(
        rw, x, n, a["kernel_size"], a["stride"], a["padding"], [1], a["ceil_mode"], out=rw.sizes(go)
    )
    if n == 3:
        _check_input_fits_kernel(w)
    include_pad = a["count_include_pad"]
    e = tensor_type(go).element_type
    lead = w.lead
    # The outputs whose window holds h: o*s <= h + p < o*s + k, at most ceil(k/s) of them.
    reach = [-(-k // s) for k, s in zip(w.k, w.s)]

    def body(idx, acc):
        outs, valid = [], None
        for j in range(n):
            q = arith.addi(idx[lead + j], T.icst(w.p[j]))
            last = arith.divsi(q, T.icst(w.s[j]))
            o = arith.addi(arith.subi(last, T.icst(reach[j] - 1)), idx[lead + n + j])
            inside = arith.andi(
                arith.andi(
                    arith.cmpi(CMPI.sge, o, T.icst(0)), arith.cmpi(CMPI.slt, o, T.ival(w.o[j]))
                ),
                arith.cmpi(CMPI.slt, arith.subi(q, arith.muli(o, T.icst(w.s[j]))), T.icst(w.k[j])),
            )
            valid = inside if valid is None else arith.andi(valid, inside)
            outs.append(clamp_index(o, w.o[j]))
        return add_masked(acc, tensor.extract(scaled, idx[:lead] + outs), valid)

    scaled = _per_output(
        rw, go, e, lambda idx, g: arith.divf(g, avg_divisor(w, idx, include_pad, override, e))
    )

    zeros = T.full(rw, w.sizes, e, 0)
    return T.window_generic(rw, [], [], zeros, n, reach, body)


for _name, _n in (("aten.avg_pool2d_backward", 2), ("aten.avg_pool3d_backward", 3)):
    register_lowering(
        _name,
        partial(lower_avg_pool_backward, _n),
        summary=f"{_name} -> linalg.generic(gather of grad / divisor, tensor.extract)",
    )


def lower_adaptive_avg_pool_backward(n, op, rw):
    go, x = rw.args["grad_output"], rw.args["self"]
    e = tensor_type(go).element_type
    if not is_float(e) or not _ranks_fit(x, go, n):
        return None
    lead = tensor_type(x).rank - n
    isz_, gsz_ = rw.sizes(x), rw.sizes(go)
    isz, osz = isz_[lead:], gsz_[lead:]
    acc = T.f32_if_reduced(e)
    result_sizes = T.result_sizes(rw, 0, lambda d: isz_[d])
    zeros = T.full(rw, result_sizes, acc, 0)
    kmax = adaptive_extents(rw, osz, isz, lambda o, i: covering_count(i, o))
    ins_ = [T.to_index(rw, v) for v in isz]
    outs_ = [T.to_index(rw, v) for v in osz]

    def add(idx, s):
        # The windows covering h are o = floor(h*O/I) + k with start(o) <= h and o < O;
        # start(o) = floor(o*I/O) <= h is o*I < (h+1)*O (no division per window).
        pos, valid = [], None
        for j in range(n):
            h, k = idx[lead + j], idx[lead + n + j]
            o = arith.addi(adaptive_start(h, outs_[j], ins_[j]), k)
            after = arith.muli(arith.addi(h, T.icst(1)), outs_[j])
            inside = arith.andi(
                arith.cmpi(CMPI.ult, o, outs_[j]),
                arith.cmpi(CMPI.ult, arith.muli(o, ins_[j]), after),
            )
            valid = inside if valid is None else arith.andi(valid, inside)
            pos.append(arith.minui(o, arith.subi(outs_[j], T.icst(1))))
        g = tensor.extract(scaled, idx[:lead] + pos)
        return arith.addf(s, arith.select(valid, g, arith.constant(acc, 0.0)))

    def share(idx, g):
        # ATen divides by each window extent in turn (grad / kd / kh / kw): same rounding.
        os_ = idx[lead:]
        starts = [adaptive_start(o, i, out) for o, i, out in zip(os_, ins_, outs_)]
        ends = [adaptive_end(o, i, out) for o, i, out in zip(os_, ins_, outs_)]
        return divide_by_extents(convert(g, acc), starts, ends)

    scaled = _per_output(rw, go, acc, share)
    out = T.window_generic(rw, [], [], zeros, n, kmax, add)
    if acc != e:
        rank = lead + n
        init = T.empty(rw, result_sizes, e)
        out = rw.generic(
            [out], [init], [T.identity(rank)] * 2, [T.PARALLEL] * rank, lambda v, _: convert(v, e)
        )[0]
    return out


for _name, _n in (
    ("aten._adaptive_avg_pool2d_backward", 2),
    ("aten._adaptive_avg_pool3d_backward", 3),
):
    register_lowering(
        _name,
        partial(lower_adaptive_avg_pool_backward, _n),
        summary=f"{_name} -> linalg.generic(per-output share), linalg.generic(gather over "
        "covering windows)",
    )
