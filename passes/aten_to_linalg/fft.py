"""Real FFTs (`_fft_r2c`, `_fft_c2r`) -> one DFT `linalg.generic` per transformed dim.

Each dim is a direct DFT: output `k` sums `x[r] * exp(sign * 2*pi*i * (k*r mod n) / n)` over
`r`, a reduction in f64 (complex<f64>) whatever the dtype, with the phase reduced mod `n` in
integers first, so rounding stays at a few ulps of f32 for the sizes OpInfo and models use. The
multi-dim transform is separable: r2c runs the real-input transform on the last dim first
(keeping `n//2 + 1` outputs when one-sided), then complex ones on the rest, as pocketfft does;
c2r runs the complex inverse transforms first and the Hermitian real-output one last. The cost is
O(n) per output element per dim (a matmul-shaped reduction), not O(log n): no FFT algorithm yet.
"""

from __future__ import annotations

import math as pymath

from mlir import ir
from mlir.dialects import arith, linalg, math

from . import complex_core as cplx
from .builder import PARALLEL, REDUCTION, LoweringRewriter, convert, tensor_type
from .registry import register_lowering
from .views_common import located

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2  # ATen's fft_norm_mode


def _f64() -> ir.Type:
    return ir.F64Type.get()


def _c64() -> ir.Type:
    return ir.ComplexType.get(_f64())


def _index(v: int | ir.Value) -> ir.Value:
    return v if isinstance(v, ir.Value) else arith.constant(ir.IndexType.get(), v)


def _as_f64(i: ir.Value) -> ir.Value:
    return arith.sitofp(_f64(), arith.index_cast(ir.IntegerType.get_signless(64), i))


def _phase(k: ir.Value, r: ir.Value, n: ir.Value, sign: int) -> tuple[ir.Value, ir.Value]:
    """(cos, sin) of sign * 2*pi * (k*r mod n) / n."""
    m = arith.remui(arith.muli(k, r), n)
    theta = arith.mulf(
        arith.constant(_f64(), sign * 2.0 * pymath.pi), arith.divf(_as_f64(m), _as_f64(n))
    )
    return math.cos(theta), math.sin(theta)


def _dft(rw: LoweringRewriter, x: ir.Value, dim: int, out_size, n, sign: int, kind: str):
    """One DFT along `dim` of length `n` with `out_size` outputs: kind r2c (real x), c2c, or
    c2r (Hermitian input, real f64 output; frequencies above n/2 weigh 0)."""
    xt = tensor_type(x)
    rank = xt.rank
    sizes = rw.sizes(x)
    sizes[dim] = out_size
    shape = [ir.ShapedType.get_dynamic_size() if isinstance(s, ir.Value) else s for s in sizes]
    out_elem = _f64() if kind == "c2r" else _c64()
    out_t = ir.RankedTensorType.get(shape, out_elem)
    with rw.at():
        zero = arith.constant(_f64(), 0.0)
        init_value = zero if kind == "c2r" else cplx.make(zero, zero, _c64())
        n_index = _index(n)
    init = rw.fill(init_value, rw.empty(out_t, sizes))
    dims = [ir.AffineDimExpr.get(d) for d in range(rank + 1)]
    in_map = ir.AffineMap.get(
        rank + 1, 0, [dims[rank] if d == dim else dims[d] for d in range(rank)]
    )
    out_map = ir.AffineMap.get(rank + 1, 0, dims[:rank])

    def body(v, acc):
        k, r = linalg.IndexOp(dim).result, linalg.IndexOp(rank).result
        c, s = _phase(k, r, n_index, sign)
        re, im = cplx.widen(v, _f64())
        if kind == "c2r":
            # Re(X e^{i theta}) once for k = 0 and k = n/2, twice for the conjugate pair else
            two_r = arith.muli(r, _index(2))
            edge = arith.ori(
                arith.cmpi(arith.CmpIPredicate.eq, r, _index(0)),
                arith.cmpi(arith.CmpIPredicate.eq, two_r, n_index),
            )
            above = arith.cmpi(arith.CmpIPredicate.ugt, two_r, n_index)
            one, two = arith.constant(_f64(), 1.0), arith.constant(_f64(), 2.0)
            w = arith.select(above, arith.constant(_f64(), 0.0), arith.select(edge, one, two))
            term = arith.mulf(w, arith.subf(arith.mulf(re, c), arith.mulf(im, s)))
            return arith.addf(acc, term)
        if kind == "r2c":  # a real input has no imaginary terms (x*0 would not fold: NaN)
            t_re, t_im = arith.mulf(re, c), arith.mulf(re, s)
        else:
            t_re = arith.subf(arith.mulf(re, c), arith.mulf(im, s))
            t_im = arith.addf(arith.mulf(re, s), arith.mulf(im, c))
        a_re, a_im = cplx.parts(acc)
        return cplx.make(arith.addf(a_re, t_re), arith.addf(a_im, t_im), _c64())

    iterators = [PARALLEL] * rank + [REDUCTION]
    return rw.generic([x], [init], [in_map, out_map], iterators, body)[0]


def _scaled(rw: LoweringRewriter, y: ir.Value, mode: int, signal: list) -> ir.Value:
    """`y` times ATen's normalization (1, 1/sqrt(n) or 1/n of the signal size), cast to the
    op's result type."""
    result = rw.result_type()
    with rw.at():
        n = arith.constant(_f64(), 1.0)
        for s in signal:
            n = arith.mulf(n, _as_f64(_index(s)))
        scale = {
            _NONE: arith.constant(_f64(), 1.0),
            _BY_ROOT_N: arith.divf(arith.constant(_f64(), 1.0), math.sqrt(n)),
            _BY_N: arith.divf(arith.constant(_f64(), 1.0), n),
        }[mode]
    init = rw.empty(result, rw.sizes(y))
    identity = ir.AffineMap.get_identity(result.rank)
    elem = result.element_type

    def body(v, _out):
        if cplx.is_complex(elem):
            re, im = cplx.parts(v)
            part = cplx.part_type(elem)
            re, im = convert(arith.mulf(re, scale), part), convert(arith.mulf(im, scale), part)
            return cplx.make(re, im, elem)
        return convert(arith.mulf(v, scale), elem)

    return rw.generic([y], [init], [identity] * 2, [PARALLEL] * result.rank, body)[0]


def _complex_dfts(rw: LoweringRewriter, y: ir.Value, dims: list[int], sign: int):
    """(`y` transformed along each of `dims` by a complex DFT, the lengths of those dims)."""
    signal = []
    for d in dims:
        size = rw.size(y, d)
        signal.append(size)
        y = _dft(rw, y, d, size, size, sign, "c2c")
    return y, signal


def _dims(rw: LoweringRewriter) -> list[int] | None:
    rank = tensor_type(rw.args["self"]).rank
    dims = [int(d) % rank for d in rw.args["dim"]]
    return dims or None


def _half_plus_one(rw: LoweringRewriter, n: int | ir.Value) -> int | ir.Value:
    if isinstance(n, int):
        return n // 2 + 1
    with rw.at():
        return arith.addi(arith.divui(n, _index(2)), _index(1))


@register_lowering("aten._fft_r2c", complex=True)
@located
def lower_fft_r2c(op, rw):
    """aten._fft_r2c -> linalg.generic(DFT sum in complex<f64>) per dim, linalg.generic(scale)"""
    x, dims = rw.args["self"], _dims(rw)
    if dims is None or cplx.is_complex(tensor_type(x).element_type):
        return None
    last = dims[-1]
    n = rw.size(x, last)
    y = _dft(rw, x, last, _half_plus_one(rw, n) if rw.args["onesided"] else n, n, -1, "r2c")
    y, signal = _complex_dfts(rw, y, dims[:-1], -1)
    return _scaled(rw, y, int(rw.args["normalization"]), [*signal, n])


@register_lowering("aten._fft_c2r", complex=True)
@located
def lower_fft_c2r(op, rw):
    """aten._fft_c2r -> linalg.generic(inverse DFT sums in f64) per dim, linalg.generic(scale)"""
    x, dims = rw.args["self"], _dims(rw)
    if dims is None:
        return None
    last = dims[-1]
    n = rw.args["last_dim_size"]
    if not isinstance(n, (int, ir.Value)):
        return None
    if isinstance(n, ir.Value) and not isinstance(n.type, ir.IndexType):
        with rw.at():
            n = arith.index_cast(ir.IndexType.get(), n)
    y, signal = _complex_dfts(rw, x, dims[:-1], 1)
    y = _dft(rw, y, last, n, n, 1, "c2r")
    return _scaled(rw, y, int(rw.args["normalization"]), [*signal, n])


@register_lowering("aten._fft_c2c", complex=True)
@located
def lower_fft_c2c(op, rw):
    """aten._fft_c2c -> linalg.generic(DFT sum in complex<f64>) per dim, linalg.generic(scale)"""
    x, dims = rw.args["self"], _dims(rw)
    if dims is None:
        return None
    y, signal = _complex_dfts(rw, x, dims, -1 if rw.args["forward"] else 1)
    return _scaled(rw, y, int(rw.args["normalization"]), signal)
