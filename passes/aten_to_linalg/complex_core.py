"""Complex scalars inside region bodies: `complex<fN>` values as (re, im) pairs of floats.

Tensors of `complex<f32>`/`complex<f64>` are stored as MLIR complex types, which lower to LLVM
structs `{f32, f32}`: the same bytes as torch's interleaved complex64/complex128, so they cross
the native boundary with no conversion.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import complex as cx

from .builder import convert, is_float


def is_complex(t: ir.Type) -> bool:
    return isinstance(t, ir.ComplexType)


def part_type(t: ir.Type) -> ir.Type:
    """The float type of a complex type's parts."""
    return ir.ComplexType(t).element_type


def parts(z: ir.Value) -> tuple[ir.Value, ir.Value]:
    return cx.re(z), cx.im(z)


def make(re: ir.Value, im: ir.Value, t: ir.Type) -> ir.Value:
    return cx.CreateOp(t, re, im).result


def constant(value: complex, t: ir.Type) -> ir.Value:
    """A `complex<fN>` scalar constant (needs an insertion point)."""
    p = part_type(t)
    value = complex(value)
    return make(arith.constant(p, value.real), arith.constant(p, value.imag), t)


def cast(x: ir.Value, to: ir.Type, real_cast) -> ir.Value:
    """Scalar `x` as `to` where either side is complex, with torch's semantics: a real value is
    the real part (imaginary 0), a complex value cast to a real type keeps its real part.
    `real_cast(value, type)` converts the float/int parts."""
    src = x.type
    if is_complex(src) and is_complex(to):
        re, im = parts(x)
        return make(real_cast(re, part_type(to)), real_cast(im, part_type(to)), to)
    if is_complex(src):
        return real_cast(cx.re(x), to)
    p = part_type(to)
    return make(real_cast(x, p), arith.constant(p, 0.0), to)


def widen(z: ir.Value, to_part: ir.Type) -> tuple[ir.Value, ir.Value]:
    """(re, im) of complex `z`, or (x, 0) for real `x`, as floats of `to_part`."""
    if is_complex(z.type):
        re, im = parts(z)
        return convert(re, to_part), convert(im, to_part)
    assert is_float(z.type) or isinstance(z.type, ir.IntegerType)
    return convert(z, to_part), arith.constant(to_part, 0.0)
