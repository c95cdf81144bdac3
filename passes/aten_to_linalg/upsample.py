"""Resampling: upsample_nearest2d.vec, upsample_bilinear2d.vec (and grid_sampler_2d, in
upsample_grid.py), each one `linalg.generic` over the output gathering with `tensor.extract`.

Source indices and weights follow ATen's CPU kernels exactly (UpSample.h): the scale is
`compute_scales_value` (1 / scale_factor when given, else in / out, in float), nearest takes
`floorf(out_index * scale)` except at ratios 1 and 2, linear takes
`area_pixel_compute_source_index`.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, math, tensor

from .builder import PARALLEL, convert, elem, is_float, tensor_type
from .registry import register_lowering


def _index(v: int | ir.Value) -> ir.Value:
    return v if isinstance(v, ir.Value) else arith.constant(ir.IndexType.get(), v)


def _i64(v: ir.Value) -> ir.Value:
    return arith.index_cast(ir.IntegerType.get_signless(64), v)


def _to_float(v: int | ir.Value, t: ir.Type) -> ir.Value:
    """An index value as a float of type `t` (int64_t -> float, as C++ converts it)."""
    if not isinstance(v, ir.Value):
        return arith.constant(t, float(v))
    return arith.sitofp(t, _i64(v))


def output_sizes(rw, x, output_size, scale_factors):
    """Sizes of the N, C, H, W output: output_size, else floor(in * scale) as ATen's
    `compute_output_size` (in double)."""
    sizes = rw.sizes(x)
    rt = rw.result_type()
    out = sizes[:2]
    for i in range(2):
        d = i + 2
        if not rt.is_dynamic_dim(d):
            out.append(rt.get_dim_size(d))
        elif output_size is not None:
            out.append(output_size[i])
        else:
            out.append(_scaled_size(rw, sizes[d], scale_factors[i]))
    return sizes, out


def _scaled_size(rw, size, scale):
    """floor(size * scale) of a `?` size, computed in a 0-d `linalg.generic`: float ops left at
    the top of @main would be run by the runtime's scalar interpreter, which has none."""
    with rw.at():
        t = ir.RankedTensorType.get([], ir.IndexType.get())

    def body(_out):
        f64 = ir.F64Type.get()
        prod = arith.mulf(_to_float(size, f64), arith.constant(f64, scale))
        return arith.index_cast(ir.IndexType.get(), arith.fptosi(_i64_t(), prod))

    (value,) = rw.generic([], [rw.empty(t, [])], [ir.AffineMap.get(0, 0, [])], [], body)
    with rw.at():
        return tensor.extract(value, [])


def _i64_t() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _scale(scale_factor, in_size, out_size, t):
    """ATen's `compute_scales_value<t>`: 1 / scale_factor when one is given, else in / out."""
    if scale_factor is not None and scale_factor > 0:
        return arith.constant(t, 1.0 / scale_factor)
    return arith.divf(_to_float(in_size, t), _to_float(out_size, t))


def _nearest_index(o, in_size, out_size, scale_factor):
    """ATen's `nearest_idx` (index values): copy at ratio 1, shift at ratio 2, else
    min(floorf(o * scale), in - 1)."""
    f32 = ir.F32Type.get()
    idx = ir.IndexType.get()
    in_v, out_v = _index(in_size), _index(out_size)
    scale = _scale(scale_factor, in_size, out_size, f32)
    src = math.floor(arith.mulf(arith.sitofp(f32, _i64(o)), scale))
    src = arith.index_cast(idx, arith.fptosi(_i64_t(), src))
    src = arith.minsi(src, arith.subi(in_v, _index(1)))
    same = arith.cmpi(arith.CmpIPredicate.eq, out_v, in_v)
    double = arith.cmpi(arith.CmpIPredicate.eq, out_v, arith.muli(in_v, _index(2)))
    src = arith.select(double, arith.shrui(o, _index(1)), src)
    return arith.select(same, o, src)


def _scale_factors(rw):
    s = rw.args.get("scale_factors")
    return [None, None] if s is None else list(s)


def _check(rw, x):
    t = tensor_type(x)
    et = elem(x)
    signless = isinstance(et, ir.IntegerType) and ir.IntegerType(et).is_signless
    return t.rank == 4 and (is_float(et) or signless)


@register_lowering("aten.upsample_nearest2d.vec")
def lower_upsample_nearest2d(op, rw):
    """aten.upsample_nearest2d.vec -> linalg.generic(linalg.index, math.floor, tensor.extract)"""
    x = rw.args["input"]
    if not _check(rw, x):
        return None
    scales = _scale_factors(rw)
    in_sizes, sizes = output_sizes(rw, x, rw.args.get("output_size"), scales)
    rt = rw.result_type()
    init = rw.empty(rt, sizes)

    def body(_out):
        n, c, oh, ow = (linalg.IndexOp(d).result for d in range(4))
        ih = _nearest_index(oh, in_sizes[2], sizes[2], scales[0])
        iw = _nearest_index(ow, in_sizes[3], sizes[3], scales[1])
        return tensor.extract(x, [n, c, ih, iw])

    return rw.generic([], [init], [ir.AffineMap.get_identity(4)], [PARALLEL] * 4, body)[0]


def _linear_source(o, in_size, out_size, align_corners, scale_factor, t):
    """ATen's `compute_source_index_and_lambda`: (i0, i1, lambda0, lambda1) in type `t`."""
    in_v, out_v = _index(in_size), _index(out_size)
    one, zero = arith.constant(t, 1.0), arith.constant(t, 0.0)
    of = arith.sitofp(t, _i64(o))
    if align_corners:
        ratio = arith.divf(
            _to_float(arith.subi(in_v, _index(1)), t), _to_float(arith.subi(out_v, _index(1)), t)
        )
        ratio = arith.select(arith.cmpi(arith.CmpIPredicate.sgt, out_v, _index(1)), ratio, zero)
        real = arith.mulf(ratio, of)
    else:
        half = arith.constant(t, 0.5)
        real = arith.subf(
            arith.mulf(_scale(scale_factor, in_size, out_size, t), arith.addf(of, half)), half
        )
        real = arith.select(arith.cmpf(arith.CmpFPredicate.OLT, real, zero), zero, real)
    last = arith.subi(in_v, _index(1))
    i0 = arith.index_cast(ir.IndexType.get(), arith.fptosi(_i64_t(), math.floor(real)))
    i0 = arith.minsi(i0, last)
    lam1 = arith.subf(real, arith.sitofp(t, _i64(i0)))
    lam1 = arith.minimumf(arith.maximumf(lam1, zero), one)
    step = arith.select(arith.cmpi(arith.CmpIPredicate.slt, i0, last), _index(1), _index(0))
    i1 = arith.addi(i0, step)
    lam0 = arith.subf(one, lam1)
    same = arith.cmpi(arith.CmpIPredicate.eq, out_v, in_v)  # ratio 1: a plain copy
    return (
        arith.select(same, o, i0),
        arith.select(same, o, i1),
        arith.select(same, one, lam0),
        arith.select(same, zero, lam1),
    )


@register_lowering("aten.upsample_bilinear2d.vec")
def lower_upsample_bilinear2d(op, rw):
    """aten.upsample_bilinear2d.vec -> linalg.generic(linalg.index, tensor.extract, arith)"""
    x = rw.args["input"]
    if not is_float(elem(x)) or tensor_type(x).rank != 4:
        return None
    scales = _scale_factors(rw)
    align = bool(rw.args.get("align_corners", False))
    in_sizes, sizes = output_sizes(rw, x, rw.args.get("output_size"), scales)
    rt = rw.result_type()
    init = rw.empty(rt, sizes)
    et = rt.element_type
    t = et if isinstance(et, ir.F64Type) else ir.F32Type.get()

    def body(_out):
        n, c, oh, ow = (linalg.IndexOp(d).result for d in range(4))
        h0, h1, lh0, lh1 = _linear_source(oh, in_sizes[2], sizes[2], align, scales[0], t)
        w0, w1, lw0, lw1 = _linear_source(ow, in_sizes[3], sizes[3], align, scales[1], t)

        def row(h):  # Interpolate<1>: x[w0] * lambda0 + x[w1] * lambda1
            a = convert(tensor.extract(x, [n, c, h, w0]), t)
            b = convert(tensor.extract(x, [n, c, h, w1]), t)
            return arith.addf(arith.mulf(a, lw0), arith.mulf(b, lw1))

        out = arith.addf(arith.mulf(row(h0), lh0), arith.mulf(row(h1), lh1))
        return convert(out, et)

    return rw.generic([], [init], [ir.AffineMap.get_identity(4)], [PARALLEL] * 4, body)[0]
