"""Device math for generated Triton kernels (`H.<name>`): what `tl`/`tl.math` lack, accurate to
eager's tolerances, without libdevice. Each works on 0-d values and blocks, float32 and
float64 (reduced floats are computed in float32 by the IR)."""

import triton
import triton.language as tl


@triton.jit
def isnan(x):
    return x != x


@triton.jit
def isinf(x):
    return (x == float("inf")) | (x == float("-inf"))


@triton.jit
def isfinite(x):
    return (x == x) & (x != float("inf")) & (x != float("-inf"))


@triton.jit
def maximum_nan(a, b):
    """arith.maximumf: NaN if either operand is NaN."""
    return tl.where(a != a, a, tl.where(b != b, b, tl.maximum(a, b)))


@triton.jit
def minimum_nan(a, b):
    return tl.where(a != a, a, tl.where(b != b, b, tl.minimum(a, b)))


@triton.jit
def to_bf16(x):
    """float32 -> bfloat16 rounding to nearest even, as torch does, built from the bits (Triton's
    interpreter truncates and flushes subnormals; on a GPU this is what the conversion does)."""
    bits = x.to(tl.uint32, bitcast=True)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    half = tl.where(x != x, (bits >> 16) | 0x40, rounded)  # NaNs stay quiet NaNs
    return half.to(tl.uint16).to(tl.bfloat16, bitcast=True)


@triton.jit
def from_bf16(x):
    """bfloat16 -> float32 by its bits (exact, as on a GPU): Triton's interpreter converts
    bfloat16 subnormals to 0, so `x != 0` or `all(x)` of one were false."""
    return (x.to(tl.uint16, bitcast=True).to(tl.uint32) << 16).to(tl.float32, bitcast=True)


@triton.jit
def cast_to(x, dtype: tl.constexpr):
    """`x.to(dtype)`, bfloat16 rounded to nearest even (see to_bf16)."""
    if dtype == tl.bfloat16:
        return to_bf16(x.to(tl.float32))
    else:
        return x.to(dtype)


@triton.jit
def ctlz(u, BITS: tl.constexpr):
    """math.ctlz of an unsigned `BITS`-wide integer: the zero bits above its highest one."""
    count = (u & 0).to(tl.int32)
    seen = count
    for i in tl.static_range(BITS):
        seen = seen | ((u >> (BITS - 1 - i)) & 1).to(tl.int32)
        count += 1 - seen
    return count


# combining functions of `tl.reduce` (a row tail's reductions, row_epilogue.py)
@triton.jit
def add(a, b):
    return a + b


@triton.jit
def mul(a, b):
    return a * b


@triton.jit
def max_num(a, b):
    return tl.maximum(a, b)


@triton.jit
def min_num(a, b):
    return tl.minimum(a, b)


@triton.jit
def bit_or(a, b):
    return a | b


@triton.jit
def bit_and(a, b):
    return a & b


@triton.jit
def bit_xor(a, b):
    return a ^ b


@triton.jit
def _signbit(x):
    return (x.to(tl.float64).to(tl.int64, bitcast=True) < 0).to(tl.int32)


@triton.jit
def copysign(a, b):
    mag = tl.abs(a)
    return tl.where(_signbit(b) != 0, -mag, mag)


@triton.jit
def floordiv(a, b):
    q = a // b
    fix = ((a % b) != 0) & ((a < 0) != (b < 0))
    return tl.where(fix, q - 1, q)


@triton.jit
def ceildiv(a, b):
    q = a // b
    fix = ((a % b) != 0) & ((a < 0) == (b < 0))
    return tl.where(fix, q + 1, q)


@triton.jit
def trunc(x):
    return tl.where(x < 0, tl.math.ceil(x), tl.math.floor(x))


@triton.jit
def fmod(a, b):
    """C fmod, exact for float32: the remainder is reduced in float64 by partial quotients of at
    most 28 bits, so every q * d is exact (float64 operands with huge quotients can lose
    low bits)."""
    x = a.to(tl.float64)
    y = b.to(tl.float64)
    ay = tl.abs(y)
    r = tl.abs(x)
    for _ in range(0, 12):
        ratio = r / ay
        big = ratio >= 268435456.0  # 2^28
        e = tl.math.floor(tl.log2(tl.where(big, ratio, 1.0))) - 27.0
        d = tl.where(big, ay * tl.exp2(tl.where(big, e, 0.0)), ay)
        q = trunc(r / d)
        reduced = r - q * d
        reduced = tl.where(reduced < 0, reduced + d, reduced)
        r = tl.where(r >= ay, reduced, r)
    r = copysign(r, x)
    r = tl.where((y == 0) | (x != x) | (y != y) | isinf(x), float("nan"), r)
    r = tl.where(isinf(y) & isfinite(x), x, r)
    return r.to(a.dtype)


@triton.jit
def round_half_away(x):
    return copysign(tl.math.floor(tl.abs(x) + 0.5), x)


@triton.jit
def round_even(x):
    r = tl.math.floor(x + 0.5)
    tie = (r - x) == 0.5
    odd = (r - 2.0 * tl.math.floor(r * 0.5)) != 0
    r = tl.where(tie & odd, r - 1.0, r)
    return tl.where(tl.abs(x) >= 4503599627370496.0, x, copysign(r, x))


@triton.jit
def log10(x):
    return (tl.log(x.to(tl.float64)) * 0.43429448190325176).to(x.dtype)


@triton.jit
def log1p(x):
    """Accurate for tiny x (Goldberg): log(u) * x / (u - 1) with u = 1 + x, in float64."""
    y = x.to(tl.float64)
    u = 1.0 + y
    d = u - 1.0
    r = tl.where(d == 0.0, y, tl.log(u) * (y / tl.where(d == 0.0, 1.0, d)))
    r = tl.where(y == float("inf"), y, r)
    return r.to(x.dtype)


@triton.jit
def expm1(x):
    """Accurate for tiny x (Kahan): (u - 1) * x / log(u) with u = exp(x), in float64."""
    y = x.to(tl.float64)
    u = tl.exp(y)
    um1 = u - 1.0
    lu = tl.log(u)
    r = tl.where(um1 == 0.0, y, um1 * (y / tl.where((lu == 0.0) | (lu != lu), 1.0, lu)))
    r = tl.where(um1 == -1.0, -1.0, r)
    r = tl.where(u == float("inf"), u, r)
    r = tl.where(y != y, y, r)
    return r.to(x.dtype)


@triton.jit
def rsqrt(x):
    y = x.to(tl.float64)
    return (1.0 / tl.sqrt(y)).to(x.dtype)


@triton.jit
def tanh(x):
    y = x.to(tl.float64)
    e = expm1(-2.0 * tl.abs(y))
    t = -e / (2.0 + e)
    t = tl.where(tl.abs(y) > 20.0, 1.0, t)
    return copysign(t, y).to(x.dtype)


@triton.jit
def sinh(x):
    y = x.to(tl.float64)
    e = expm1(tl.abs(y))
    s = 0.5 * (e + e / (e + 1.0))
    s = tl.where(tl.abs(y) > 700.0, 0.5 * tl.exp(tl.abs(y) - 0.6931471805599453) * 2.0, s)
    return copysign(s, y).to(x.dtype)


@triton.jit
def cosh(x):
    y = tl.abs(x.to(tl.float64))
    e = tl.exp(y)
    return (0.5 * (e + 1.0 / e)).to(x.dtype)


@triton.jit
def tan(x):
    y = x.to(tl.float64)
    return (tl.sin(y) / tl.cos(y)).to(x.dtype)


@triton.jit
def _atan_unit(t):
    """atan on [0, 1] (float64): argument halving twice, then an odd series."""
    t1 = t / (1.0 + tl.sqrt(1.0 + t * t))
    t2 = t1 / (1.0 + tl.sqrt(1.0 + t1 * t1))
    z = t2 * t2
    s = 1.0 / 23.0
    s = 1.0 / 21.0 - z * s
    s = 1.0 / 19.0 - z * s
    s = 1.0 / 17.0 - z * s
    s = 1.0 / 15.0 - z * s
    s = 1.0 / 13.0 - z * s
    s = 1.0 / 11.0 - z * s
    s = 1.0 / 9.0 - z * s
    s = 1.0 / 7.0 - z * s
    s = 1.0 / 5.0 - z * s
    s = 1.0 / 3.0 - z * s
    s = 1.0 - z * s
    return 4.0 * t2 * s


@triton.jit
def _atan64(y):
    a = tl.abs(y)
    big = a > 1.0
    t = tl.where(big, 1.0 / tl.where(big, a, 1.0), a)
    r = _atan_unit(t)
    r = tl.where(big, 1.5707963267948966 - r, r)
    r = tl.where(a == float("inf"), 1.5707963267948966, r)
    return tl.where(y != y, y, copysign(r, y))


@triton.jit
def atan(x):
    return _atan64(x.to(tl.float64)).to(x.dtype)


@triton.jit
def atan2(y, x):
    a = y.to(tl.float64)
    b = x.to(tl.float64)
    ratio = tl.abs(a) / tl.abs(b)
    ratio = tl.where((tl.abs(a) == float("inf")) & (tl.abs(b) == float("inf")), 1.0, ratio)
    base = _atan64(ratio)
    base = tl.where(b < 0, 3.141592653589793 - base, base)
    base = tl.where((b == 0) & (_signbit(b) != 0) & (a == 0), 3.141592653589793, base)
    base = tl.where((b == 0) & (a == 0) & (_signbit(b) == 0), 0.0, base)
    r = copysign(base, a)
    r = tl.where((a != a) | (b != b), float("nan"), r)
    return r.to(y.dtype)


@triton.jit
def asin(x):
    y = x.to(tl.float64)
    r = 2.0 * _atan64(y / (1.0 + tl.sqrt(1.0 - y * y)))
    r = tl.where(tl.abs(y) > 1.0, float("nan"), r)
    return r.to(x.dtype)


@triton.jit
def acos(x):
    y = x.to(tl.float64)
    r = 2.0 * _atan64(tl.sqrt((1.0 - y) / (1.0 + y)))
    r = tl.where(y == -1.0, 3.141592653589793, r)
    r = tl.where(tl.abs(y) > 1.0, float("nan"), r)
    return r.to(x.dtype)


@triton.jit
def asinh(x):
    y = x.to(tl.float64)
    a = tl.abs(y)
    r = log1p(a + a * a / (1.0 + tl.sqrt(1.0 + a * a)))
    r = tl.where(a > 1e150, tl.log(a) + 0.6931471805599453, r)
    return copysign(r, y).to(x.dtype)


@triton.jit
def acosh(x):
    y = x.to(tl.float64)
    t = y - 1.0
    r = log1p(t + tl.sqrt(2.0 * t + t * t))
    r = tl.where(y > 1e150, tl.log(y) + 0.6931471805599453, r)
    r = tl.where(y < 1.0, float("nan"), r)
    return r.to(x.dtype)


@triton.jit
def atanh(x):
    y = x.to(tl.float64)
    a = tl.abs(y)
    r = 0.5 * log1p(2.0 * a / (1.0 - a))
    r = tl.where(a > 1.0, float("nan"), r)
    return copysign(r, y).to(x.dtype)


@triton.jit
def erfc(x):
    """1 - erf(x) without cancellation for large x: a continued fraction times exp(-x^2)."""
    y = x.to(tl.float64)
    a = tl.abs(y)
    # continued fraction, 60 terms evaluated backward (converges fast for a >= 2)
    f = a
    for i in range(0, 60):
        f = a + ((60 - i) * 0.5) / f
    tail = tl.exp(-a * a) / (f * 1.7724538509055159)
    small = 1.0 - tl.math.erf(a)  # in float64: no cancellation worth a float32 ulp below 2
    r = tl.where(a < 2.0, small, tail)
    r = tl.where(y < 0, 2.0 - r, r)
    r = tl.where(y != y, y, r)
    return r.to(x.dtype)


@triton.jit
def powf(x, y):
    """C pow, in float64: sign for negative bases with integral exponents, the C special
    cases (pow(x, 0) = 1, pow(1, y) = 1, NaN otherwise for negative bases)."""
    a = x.to(tl.float64)
    b = y.to(tl.float64)
    mag = tl.exp2(b * tl.log2(tl.abs(a)))
    integral = tl.math.floor(b) == b
    odd = tl.where(integral, (b - 2.0 * tl.math.floor(b * 0.5)) != 0, False)
    negative = a < 0
    r = tl.where(tl.where(negative, odd, False), -mag, mag)
    finite_negative = tl.where(negative, tl.abs(a) != float("inf"), False)
    r = tl.where(tl.where(finite_negative, integral == 0, False), float("nan"), r)
    neg_odd = tl.where(_signbit(a) != 0, odd, False)
    zero = a == 0
    r = tl.where(tl.where(zero, b < 0, False), tl.where(neg_odd, float("-inf"), float("inf")), r)
    r = tl.where(tl.where(zero, b > 0, False), tl.where(neg_odd, -0.0, 0.0), r)
    r = tl.where(b == 0, 1.0, tl.where(a == 1.0, 1.0, r))
    return r.to(x.dtype)


@triton.jit
def powi(x, n):
    """x ** n for an integer n by repeated squaring (negative n: 1 / x ** -n for floats)."""
    m = tl.abs(n)
    result = x * 0 + 1
    base = x
    # a loop condition must be a scalar: run until every lane's exponent is used up (a block's
    # truth value in the interpreter is always true)
    while tl.reduce(m + tl.full([1], 0, m.dtype), None, max_num) > 0:
        result = tl.where((m % 2) == 1, result * base, result)
        base = base * base
        m = m // 2
    return tl.where(n < 0, 1 / result, result)
