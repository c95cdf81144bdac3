"""grid_sampler_2d: one `linalg.generic` over the N, C, Ho, Wo output reading the grid's x and y.

The coordinate maths mirrors ATen's vectorised CPU kernel (GridSamplerKernel.cpp, which eager
runs on CPU): `unnormalize` as (g + 1) * scaling_factor [- 0.5], border clipping, reflection by
`min(extra, twice_span - extra)`, bilinear weights nw/ne/sw/se summed in that order, nearest by
round-half-even, bicubic over 16 taps each padded on its own (A = -0.75).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, math, tensor

from .builder import PARALLEL, convert, elem, is_float, tensor_type
from .registry import register_lowering

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2


def _f(t, v):
    return arith.constant(t, float(v))


def _size_f(size, t):
    if isinstance(size, ir.Value):
        return arith.sitofp(t, arith.index_cast(ir.IntegerType.get_signless(64), size))
    return _f(t, size)


def _clip(v, size_f, t):
    """`clip_coordinates`: min(size - 1, max(v, 0)), NaN -> 0 as the vectorised kernel's
    `clamp_min(Vec(0), in)` (x86 `max_ps` returns its second operand, 0, for NaN)."""
    return arith.minimumf(arith.subf(size_f, _f(t, 1)), arith.maxnumf(v, _f(t, 0)))


def _reflect(v, twice_span, t, shift):
    """`reflect_coordinates` of the vectorised kernel (shift 0.5 when not align_corners)."""
    if shift:
        v = arith.addf(v, _f(t, 0.5))
    a = math.absf(v)
    flips = math.trunc(arith.divf(a, twice_span))
    extra = arith.subf(a, arith.mulf(flips, twice_span))
    out = arith.minimumf(extra, arith.subf(twice_span, extra))
    return arith.subf(out, _f(t, 0.5)) if shift else out


def _unnormalize(g, size, align, t):
    """`ComputeLocationBase::unnormalize`: (g + 1) * scaling_factor [- 0.5]."""
    size_f = _size_f(size, t)
    if align:
        return arith.mulf(
            arith.addf(g, _f(t, 1)), arith.divf(arith.subf(size_f, _f(t, 1)), _f(t, 2))
        )
    scaled = arith.mulf(arith.addf(g, _f(t, 1)), arith.divf(size_f, _f(t, 2)))
    return arith.subf(scaled, _f(t, 0.5))


def _padded(v, size, padding, align, t):
    """`ComputeLocation::compute_coordinates`: border clips, reflection reflects then clips."""
    size_f = _size_f(size, t)
    if padding == BORDER:
        return _clip(v, size_f, t)
    if padding == REFLECTION:
        if align:
            twice_span = arith.mulf(arith.subf(size_f, _f(t, 1)), _f(t, 2))
            reflected = _clip(_reflect(v, twice_span, t, False), size_f, t)
            empty = arith.cmpf(arith.CmpFPredicate.OEQ, twice_span, _f(t, 0))
            return arith.select(empty, _f(t, 0), reflected)
        twice_span = arith.mulf(size_f, _f(t, 2))
        return _clip(_reflect(v, twice_span, t, True), size_f, t)
    return v


def _location(g, size, padding, align, t):
    """`ComputeLocation::apply`: a grid value -> a source coordinate."""
    return _padded(_unnormalize(g, size, align, t), size, padding, align, t)


def _cubic_coefficients(tx, t):
    """`get_cubic_coefficients` with A = -0.75 (the vectorised kernel's operation order)."""
    a = _f(t, -0.75)

    def outer(x):  # ((A x - 5A) x + 8A) x - 4A
        v = arith.subf(arith.mulf(a, x), arith.mulf(_f(t, 5), a))
        v = arith.addf(arith.mulf(v, x), arith.mulf(_f(t, 8), a))
        return arith.subf(arith.mulf(v, x), arith.mulf(_f(t, 4), a))

    def inner(x):  # ((A + 2) x - (A + 3)) x x + 1
        v = arith.subf(arith.mulf(arith.addf(a, _f(t, 2)), x), arith.addf(a, _f(t, 3)))
        return arith.addf(arith.mulf(arith.mulf(v, x), x), _f(t, 1))

    one, two = _f(t, 1), _f(t, 2)
    return [
        outer(arith.addf(tx, one)),
        inner(tx),
        inner(arith.subf(one, tx)),
        outer(arith.subf(two, tx)),
    ]


def _bicubic(x, n, c, gx, gy, xs, padding, align, t):
    """ATen's bicubic: 16 taps around floor(unnormalized), each tap padded on its own."""
    ux, uy = _unnormalize(gx, xs[3], align, t), _unnormalize(gy, xs[2], align, t)
    ix, iy = math.floor(ux), math.floor(uy)
    cx = _cubic_coefficients(arith.subf(ux, ix), t)
    cy = _cubic_coefficients(arith.subf(uy, iy), t)
    h_f, w_f = _size_f(xs[2], t), _size_f(xs[3], t)
    cols = [_padded(arith.addf(ix, _f(t, k - 1)), xs[3], padding, align, t) for k in range(4)]
    out = None
    for i in range(4):
        row = _padded(arith.addf(iy, _f(t, i - 1)), xs[2], padding, align, t)
        interp = None
        for k in range(4):
            term = arith.mulf(cx[k], _read(x, n, c, row, cols[k], h_f, w_f, t))
            interp = term if interp is None else arith.addf(interp, term)
        term = arith.mulf(cy[i], interp)
        out = term if out is None else arith.addf(out, term)
    return out


def _read(x, n, c, yf, xf, h_f, w_f, t):
    """x[n, c, y, x] as `t` when the (integral float) coordinate is inside, else 0. Compares
    floats so that NaN or huge coordinates never reach an int conversion."""
    zero = _f(t, 0)
    inside = arith.andi(
        arith.andi(
            arith.cmpf(arith.CmpFPredicate.OGT, yf, _f(t, -1)),
            arith.cmpf(arith.CmpFPredicate.OLT, yf, h_f),
        ),
        arith.andi(
            arith.cmpf(arith.CmpFPredicate.OGT, xf, _f(t, -1)),
            arith.cmpf(arith.CmpFPredicate.OLT, xf, w_f),
        ),
    )
    idx = ir.IndexType.get()
    i64 = ir.IntegerType.get_signless(64)

    def safe(v):
        return arith.index_cast(idx, arith.fptosi(i64, arith.select(inside, v, zero)))

    value = convert(tensor.extract(x, [n, c, safe(yf), safe(xf)]), t)
    return arith.select(inside, value, zero)


@register_lowering("aten.grid_sampler_2d")
def lower_grid_sampler_2d(op, rw):
    """aten.grid_sampler_2d -> linalg.generic(math.floor/roundeven, tensor.extract, arith)"""
    x, grid = rw.args["input"], rw.args["grid"]
    mode, padding = int(rw.args["interpolation_mode"]), int(rw.args["padding_mode"])
    align = bool(rw.args["align_corners"])
    et = elem(x)
    if mode not in (BILINEAR, NEAREST, BICUBIC) or padding not in (ZEROS, BORDER, REFLECTION):
        return None
    if not is_float(et) or tensor_type(x).rank != 4 or tensor_type(grid).rank != 4:
        return None
    rt = rw.result_type()
    xs, gs = rw.sizes(x), rw.sizes(grid)
    init = rw.empty(rt, [xs[0], xs[1], gs[1], gs[2]])
    t = et if isinstance(et, ir.F64Type) else ir.F32Type.get()

    def coord(k):
        exprs = [
            ir.AffineDimExpr.get(0),
            ir.AffineDimExpr.get(2),
            ir.AffineDimExpr.get(3),
            ir.AffineConstantExpr.get(k),
        ]
        return ir.AffineMap.get(4, 0, exprs)

    def body(gx, gy, _out):
        n, c = linalg.IndexOp(0).result, linalg.IndexOp(1).result
        if mode == BICUBIC:
            return convert(
                _bicubic(x, n, c, convert(gx, t), convert(gy, t), xs, padding, align, t), et
            )
        h_f, w_f = _size_f(xs[2], t), _size_f(xs[3], t)
        ix = _location(convert(gx, t), xs[3], padding, align, t)
        iy = _location(convert(gy, t), xs[2], padding, align, t)
        if mode == NEAREST:
            return convert(_read(x, n, c, math.roundeven(iy), math.roundeven(ix), h_f, w_f, t), et)
        x_w, y_n = math.floor(ix), math.floor(iy)
        one = _f(t, 1)
        x_e, y_s = arith.addf(x_w, one), arith.addf(y_n, one)
        w = arith.subf(ix, x_w)
        e = arith.subf(one, w)
        nn = arith.subf(iy, y_n)
        s = arith.subf(one, nn)
        out = arith.mulf(_read(x, n, c, y_n, x_w, h_f, w_f, t), arith.mulf(s, e))
        out = arith.addf(out, arith.mulf(_read(x, n, c, y_n, x_e, h_f, w_f, t), arith.mulf(s, w)))
        out = arith.addf(out, arith.mulf(_read(x, n, c, y_s, x_w, h_f, w_f, t), arith.mulf(nn, e)))
        out = arith.addf(out, arith.mulf(_read(x, n, c, y_s, x_e, h_f, w_f, t), arith.mulf(nn, w)))
        return convert(out, et)

    maps = [coord(0), coord(1), ir.AffineMap.get_identity(4)]
    return rw.generic([grid, grid], [init], maps, [PARALLEL] * 4, body)[0]
