"""FFTs -> the core `_fft_r2c` / `_fft_c2r` (and `_fft_c2c`, kept whole, for complex input), with
the input resized to `n` / `s` (`slice.Tensor` or `constant_pad_nd`) and `norm` passed as the
kernel's normalization code, as ATen's `SpectralOps.cpp` does.

ATen conjugates the output of a real transform for the inverse ones (`ifft` of a real tensor,
`ihfft`) and the input of `hfft`; complex conjugation is not in the core set. We use that for real
x, conj(F(x))[k] = F(x)[-k] = F(x[-n mod N])[k]: the input is reversed modulo N instead (`flip` of
all but the first element, `cat`), and for `hfft` of complex input the real output is reversed.
Mathematically identical; rounding differs from eager's at the last bit only. For the same reason
`fftn` / `ifftn` of a real input use `_fft_r2c` with onesided=False (pocketfft fills the other
half by conjugate symmetry) where ATen first promotes the input to complex and calls `_fft_c2c`.
"""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from .common import dtype, to_dtype
from .registry import keep_whole, register_decomposition
from .views import rank

keep_whole(
    "aten._fft_c2c",
    "complex-to-complex FFT (pocketfft/MKL/cuFFT); the core set has only the real transforms "
    "and no op taking a complex tensor apart; torch has no decomposition",
)

# ATen's fft_norm_mode: none, by_root_n, by_n.
NORM_NONE, NORM_BY_ROOT_N, NORM_BY_N = 0, 1, 2
_COMPLEX_OF = {torch.float32: torch.complex64, torch.float64: torch.complex128}
_REAL_OF = {v: k for k, v in _COMPLEX_OF.items()}


def _norm_code(norm: str | None, forward: bool) -> int:
    """ATen's norm_from_string."""
    if norm is None or norm == "backward":
        return NORM_NONE if forward else NORM_BY_N
    if norm == "forward":
        return NORM_BY_N if forward else NORM_NONE
    if norm == "ortho":
        return NORM_BY_ROOT_N
    raise ValueError(f'invalid FFT normalization mode "{norm}"')


def is_complex(v: ir.Value) -> bool:
    return isinstance(ir.RankedTensorType(v.type).element_type, ir.ComplexType)


def _result(op) -> list[ir.Type]:
    return [op.results[0].type]


def _result_dtype(op) -> torch.dtype:
    return dtype(op.results[0])


def _resize(rewriter, x: ir.Value, dims: list[int], sizes: list) -> ir.Value:
    """ATen's resize_fft_input: each dim cut (`slice.Tensor`) or zero-padded at the end
    (`constant_pad_nd`) to its size; None sizes keep the dim. A `?` dim is padded by the full
    size and then cut: right whichever it turns out to be."""
    for d, n in zip(dims, sizes):
        if n is None:
            continue
        current = rewriter.size(x, d)
        pad = [0, 0] * (rank(x) - 1 - d)
        if not isinstance(current, int):
            x = rewriter.aten("aten.constant_pad_nd", x, pad + [0, n], 0)
            x = rewriter.aten("aten.slice.Tensor", x, d, 0, n)
        elif current > n:
            x = rewriter.aten("aten.slice.Tensor", x, d, 0, n)
        elif current < n:
            x = rewriter.aten("aten.constant_pad_nd", x, pad + [0, n - current], 0)
    return x


def _reverse(rewriter, x: ir.Value, dims: list[int]) -> ir.Value:
    """x[-i mod N] along each of `dims`: the first element, then the rest flipped."""
    for d in dims:
        first = rewriter.aten("aten.slice.Tensor", x, d, 0, 1)
        rest = rewriter.aten("aten.flip", rewriter.aten("aten.slice.Tensor", x, d, 1, None), [d])
        x = rewriter.aten("aten.cat", [first, rest], d)
    return x


def _shape_and_dims(x: ir.Value, s, dim) -> tuple[list, list[int]]:
    """ATen's canonicalize_fft_shape_and_dim_args: (sizes, None = keep), wrapped dims."""
    n = rank(x)
    if dim is not None:
        dims = [d % n for d in dim]
    elif s is not None:
        dims = list(range(n - len(s), n))
    else:
        dims = list(range(n))
    sizes = [None if v == -1 else v for v in s] if s is not None else [None] * len(dims)
    return sizes, dims


def _real_input(rewriter, op, x: ir.Value) -> ir.Value:
    """The real input of an r2c transform: integers promoted to the result's real dtype."""
    return to_dtype(rewriter, x, _REAL_OF[_result_dtype(op)])


def _r2c(op, rewriter, x, sizes, dims, norm, *, forward: bool, onesided: bool):
    """A transform of real x: forward as is, inverse on x reversed (see the module docstring)."""
    x = _resize(rewriter, _real_input(rewriter, op, x), dims, sizes)
    if not forward:
        x = _reverse(rewriter, x, dims)
    code = _norm_code(norm, forward)
    return rewriter.aten("aten._fft_r2c", x, dims, code, onesided, results=_result(op))


def _c2c(op, rewriter, x, sizes, dims, norm, *, forward: bool):
    x = _resize(rewriter, x, dims, sizes)
    code = _norm_code(norm, forward)
    return rewriter.aten("aten._fft_c2c", x, dims, code, forward, results=_result(op))


def _full_transform(op, rewriter, x, sizes, dims, norm, *, forward: bool):
    """fft / ifft / fftn / ifftn: `_fft_r2c` (onesided=False) for real x, else `_fft_c2c`."""
    if is_complex(x):
        return _c2c(op, rewriter, x, sizes, dims, norm, forward=forward)
    return _r2c(op, rewriter, x, sizes, dims, norm, forward=forward, onesided=False)


def _c2r(op, rewriter, x, sizes, dims, norm, *, forward: bool):
    """irfft(n) / hfft(n): the last transformed dim's output size defaults to 2 (m - 1), the
    input is resized to size // 2 + 1 there. hfft of complex input reverses the real output
    (for real input conj is the identity, so nothing is reversed, as in ATen)."""
    last, keep_last = sizes[-1], sizes[-1] is None
    if keep_last:  # the input keeps its size m there: the output has 2 (m - 1)
        m = rewriter.size(x, dims[-1])
        last = rewriter.index_arith(arith.SubIOp, rewriter.index_arith(arith.MulIOp, m, 2), 2)
    reverse = forward and is_complex(x)
    x = to_dtype(rewriter, x, _COMPLEX_OF[_result_dtype(op)])
    x = _resize(rewriter, x, dims, sizes[:-1] + [None if keep_last else last // 2 + 1])
    code = _norm_code(norm, forward)
    out = rewriter.aten("aten._fft_c2r", x, dims, code, last, results=_result(op))
    if not reverse:
        return out
    out = _reverse(rewriter, out, dims)
    return (
        out
        if out.type == op.results[0].type
        else rewriter.aten("aten.alias", out, results=_result(op))
    )


# -- one dimension --------------------------------------------------------------------------------


def _one_dim(rewriter):
    x, n, dim, norm = (rewriter.args[k] for k in ("self", "n", "dim", "norm"))
    if isinstance(n, ir.Value):
        return None
    return x, [n], [dim % rank(x)], norm


@register_decomposition("aten.fft_fft")
def decompose_fft_fft(op, rewriter):
    """aten.fft_fft -> aten._fft_r2c (real input, onesided=False) | aten._fft_c2c, the input
    resized to n (aten.slice.Tensor / aten.constant_pad_nd)"""
    args = _one_dim(rewriter)
    return args and _full_transform(op, rewriter, *args, forward=True)


@register_decomposition("aten.fft_ifft")
def decompose_fft_ifft(op, rewriter):
    """aten.fft_ifft -> aten._fft_r2c (real input, reversed with aten.slice.Tensor, aten.flip,
    aten.cat; onesided=False) | aten._fft_c2c"""
    args = _one_dim(rewriter)
    return args and _full_transform(op, rewriter, *args, forward=False)


@register_decomposition("aten.fft_rfft")
def decompose_fft_rfft(op, rewriter):
    """aten.fft_rfft -> aten._fft_r2c (onesided=True)"""
    args = _one_dim(rewriter)
    return args and _r2c(op, rewriter, *args, forward=True, onesided=True)


@register_decomposition("aten.fft_ihfft")
def decompose_fft_ihfft(op, rewriter):
    """aten.fft_ihfft -> aten._fft_r2c (onesided=True) of the input reversed (aten.slice.Tensor,
    aten.flip, aten.cat), which is ATen's conj of the forward transform"""
    args = _one_dim(rewriter)
    return args and _r2c(op, rewriter, *args, forward=False, onesided=True)


@register_decomposition("aten.fft_irfft")
def decompose_fft_irfft(op, rewriter):
    """aten.fft_irfft -> aten._to_copy (real input to complex), aten._fft_c2r"""
    args = _one_dim(rewriter)
    return args and _c2r(op, rewriter, *args, forward=False)


@register_decomposition("aten.fft_hfft")
def decompose_fft_hfft(op, rewriter):
    """aten.fft_hfft -> aten._to_copy, aten._fft_c2r, aten.slice.Tensor, aten.flip, aten.cat

    Real input is cast to complex; for complex input the output is reversed (slice, flip, cat)
    instead of ATen's conj of the input."""
    args = _one_dim(rewriter)
    return args and _c2r(op, rewriter, *args, forward=True)


# -- n dimensions ---------------------------------------------------------------------------------


def _n_dim(rewriter):
    x, s, dim, norm = (rewriter.args[k] for k in ("self", "s", "dim", "norm"))
    if s is not None and any(isinstance(v, ir.Value) for v in s):
        return None
    sizes, dims = _shape_and_dims(x, s, dim)
    return x, sizes, dims, norm


@register_decomposition("aten.fft_fftn")
def decompose_fft_fftn(op, rewriter):
    """aten.fft_fftn -> aten._fft_r2c (real input, onesided=False) | aten._fft_c2c"""
    args = _n_dim(rewriter)
    return args and _full_transform(op, rewriter, *args, forward=True)


@register_decomposition("aten.fft_ifftn")
def decompose_fft_ifftn(op, rewriter):
    """aten.fft_ifftn -> aten._fft_r2c (real input reversed in every transformed dim,
    onesided=False) | aten._fft_c2c"""
    args = _n_dim(rewriter)
    return args and _full_transform(op, rewriter, *args, forward=False)


@register_decomposition("aten.fft_rfftn")
def decompose_fft_rfftn(op, rewriter):
    """aten.fft_rfftn -> aten._fft_r2c (onesided=True)"""
    args = _n_dim(rewriter)
    return args and _r2c(op, rewriter, *args, forward=True, onesided=True)


@register_decomposition("aten.fft_ihfftn")
def decompose_fft_ihfftn(op, rewriter):
    """aten.fft_ihfftn -> aten._fft_r2c (onesided=True) of the input reversed in every
    transformed dim (ATen: conj, then an inverse _fft_c2c over the other dims)"""
    args = _n_dim(rewriter)
    return args and _r2c(op, rewriter, *args, forward=False, onesided=True)


@register_decomposition("aten.fft_irfftn")
def decompose_fft_irfftn(op, rewriter):
    """aten.fft_irfftn -> aten._to_copy (real input to complex), aten._fft_c2r"""
    args = _n_dim(rewriter)
    return args and _c2r(op, rewriter, *args, forward=False)


@register_decomposition("aten.fft_hfftn")
def decompose_fft_hfftn(op, rewriter):
    """aten.fft_hfftn -> aten._to_copy (real input to complex), aten._fft_c2r, and for complex
    input the output reversed in every transformed dim (ATen: a forward _fft_c2c over the other
    dims, conj, _fft_c2r)"""
    args = _n_dim(rewriter)
    return args and _c2r(op, rewriter, *args, forward=True)


def _register_2d(op_name: str, target: str) -> None:
    """`fft_<x>2` is `fft_<x>n` with two dims (ATen forwards it as is)."""

    def decompose_2d(op, rewriter):
        x, s, dim, norm = (rewriter.args[k] for k in ("self", "s", "dim", "norm"))
        return rewriter.aten(target, x, s, dim, norm, results=_result(op))

    decompose_2d.__name__ = "decompose_" + op_name.removeprefix("aten.")
    decompose_2d.__doc__ = f"{op_name} -> {target}"
    register_decomposition(op_name)(decompose_2d)


for _name, _target in (
    ("aten.fft_fft2", "aten.fft_fftn"),
    ("aten.fft_ifft2", "aten.fft_ifftn"),
    ("aten.fft_rfft2", "aten.fft_rfftn"),
    ("aten.fft_irfft2", "aten.fft_irfftn"),
    ("aten.fft_hfft2", "aten.fft_hfftn"),
    ("aten.fft_ihfft2", "aten.fft_ihfftn"),
):
    _register_2d(_name, _target)


# -- sample frequencies ---------------------------------------------------------------------------


@register_decomposition("aten.fft_fftfreq")
def decompose_fft_fftfreq(op, rewriter):
    """aten.fft_fftfreq -> aten.arange.start_step, aten.cat, aten.mul.Tensor: [0, .., (n - 1) // 2,
    -(n // 2), .., -1] * (1 / (n d)), as ATen's fft_fftfreq_out (multiplies by the reciprocal)"""
    n, d = rewriter.args["n"], rewriter.args["d"]
    if not isinstance(n, int):
        return None
    elem = _result_dtype(op)
    low = rewriter.aten("aten.arange.start_step", 0, (n + 1) // 2, 1, dtype=elem)
    high = rewriter.aten("aten.arange.start_step", -(n // 2), 0, 1, dtype=elem)
    steps = rewriter.aten("aten.cat", [low, high], 0)
    return rewriter.aten("aten.mul.Tensor", steps, 1.0 / (n * d), results=_result(op))


@register_decomposition("aten.fft_rfftfreq")
def decompose_fft_rfftfreq(op, rewriter):
    """aten.fft_rfftfreq -> aten.arange.start_step, aten.mul.Tensor: [0, .., n // 2] / (n d)"""
    n, d = rewriter.args["n"], rewriter.args["d"]
    if not isinstance(n, int):
        return None
    steps = rewriter.aten("aten.arange.start_step", 0, n // 2 + 1, 1, dtype=_result_dtype(op))
    return rewriter.aten("aten.mul.Tensor", steps, 1.0 / (n * d), results=_result(op))
