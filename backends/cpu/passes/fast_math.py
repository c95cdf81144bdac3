"""`cpu-fast-math`: f32 exp, expm1, tanh, erf, log and log1p as polynomials LLVM vectorizes.

`convert-math-to-llvm` makes math.exp an `llvm.intr.exp` and `convert-math-to-libm` makes math.erf
an `erff` call; with no vector math library for the target, LLVM scalarizes them: a loop calling
one stays scalar, a vector op becomes one libm call per lane (softmax spent most of its time in
`expf`). This pass runs before them and expands those ops on f32 scalars and f32 vectors into
ops LLVM vectorizes: compares and selects for the special cases, bitcasts and integer shifts for
the 2^n scaling, multiply-adds marked `contract` (one FMA where the CPU has it, else two ops).
exp(x) - 1 and log(1 + x) would cancel, so expm1 and log1p have expansions of their own (they
would otherwise reach `cpu-accurate-math`, which calls libm for them).

Each expansion reduces the argument (Cody-Waite, as Cephes), evaluates a polynomial on the
reduced range and scales back. The coefficients are minimax fits of the relative error on the
stated intervals, rounded to f32 one at a time with the rest refitted to absorb each rounding.
Against a float64 reference (every 61st f32 bit pattern plus dense sweeps of the edges) the
largest errors are exp 1.0, expm1 1.5, tanh 1.3, erf 1.07, log 0.85, log1p 1.4 ULP (eager's
SLEEF kernels: 0.5 to 1); specials (inf, NaN, -0.0, overflow, denormals) match.

Upstream's polynomial approximations (`populateMathPolynomialApproximationPatterns`) are not a
pass in this MLIR build (the wheel's mlir-opt has no `test-math-polynomial-approximation`).
f64 stays with libm (eager calls it too); f16 and bf16 math is computed in f32 by
`convert-aten-to-linalg` (as eager does), so it is expanded here as well.
"""

from __future__ import annotations

import math as pymath
import os
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, math, scf, vector

from aten_mlir.passes.ir import nested_ops
from aten_mlir.passes.registry import ModulePass, option, register_pass

from ..target import cpu_target
from . import range_extrema
from .erf_table import SQRT1_2, erf_by_table
from .x86_registers import scalef, whole_registers

_CONTRACT = "#arith.fastmath<contract>"
_F32_MIN_NORMAL = 2.0**-126
# 1.5 * 2^23: adding it to |y| < 2^22 rounds y to an integer, left in the low mantissa bits.
_ROUNDER = 12582912.0
_ROUNDER_BITS = 0x4B400000
# ln 2 split so that n * _LN2_HI is exact for |n| < 2^15 (Cody-Waite): 0.693359375 has 9 bits.
_LN2_HI = 0.693359375
_LN2_LO = -2.12194440e-4

# e^r = 1 + r + r^2 P(r), |r| <= ln(2)/2.
_EXP_P = (0.49999994, 0.16666521, 0.04166826, 0.008368687, 0.0013821868)
# tanh x = x + x^3 P(x^2), |x| < 0.625.
_TANH_P = (-0.3333328, 0.13331406, -0.053736515, 0.020628167, -0.005692296)
_TANH_SMALL = 0.625
# erf x = x + x P(x^2), |x| < 1 (P(0) = 2/sqrt(pi) - 1: x * 1.1283791 would lose 0.45 ULP).
_ERF_SMALL_P = (
    0.12837917,
    -0.3761263,
    0.11283616,
    -0.026854912,
    0.0051901257,
    -0.0008023964,
    7.893989e-05,
)
# erf x = 1 - 2^Q(x - 1) for 1 <= x <= 4 (Q fits log2 erfc); f32 erf is 1 from x = 3.92 on.
# Q's error reaches erf scaled by erfc ln 2 / ulp(erf), so it is fitted weighted by that.
_ERF_LARGE_Q = (-2.6684167, -3.807215, -1.2165031, -0.05922513, 0.013055931, -0.0016702102)
# 2^f = 1 + f E(f) for f in [c0 + 2.5, c0 + 3.5] = [-0.17, 0.83] (erf's n = round(Q - c0) - 3;
# relative error 8.9e-8, at most 0.14 ULP of erf: erfc <= 0.16).
_EXP2_E = (0.69314635, 0.24023187, 0.055534422, 0.009416593, 0.0016634122)
_ERF_CLAMP = 4.0
# log(1 + f) = f - f^2/2 + f^3 P(f), sqrt(1/2) - 1 <= f < sqrt(2) - 1.
_LOG_P = (
    0.3333333,
    -0.2500082,
    0.20001242,
    -0.16623409,
    0.1420158,
    -0.1315961,
    0.12762217,
    -0.07636439,
)
_SQRT1_2_F32 = 0.7071067690849304  # f32(1/sqrt 2): GELU's erf argument factor
_SQRT_HALF_BITS = 0x3F3504F3  # f32 sqrt(1/2): the mantissa range [sqrt(1/2), sqrt(2)) starts here


class _F32:
    """Builds f32 arith on one shape (a scalar, or a vector of f32) at the insertion point;
    `whole` when that is whole AVX-512 registers of `cpu` ('': the build's)."""

    def __init__(self, ftype: ir.Type, cpu: str = ""):
        self.ftype = ftype
        self.whole = whole_registers(ftype) if not cpu else _avx512_registers(ftype, cpu)
        i32 = ir.IntegerType.get_signless(32)
        shape = ir.VectorType(ftype).shape if isinstance(ftype, ir.VectorType) else None
        self.itype = ir.VectorType.get(shape, i32) if shape is not None else i32
        self.contract = ir.Attribute.parse(_CONTRACT)

    def _splat(self, elem_attr, t: ir.Type) -> ir.Value:
        if isinstance(t, ir.VectorType):
            return arith.constant(t, ir.DenseElementsAttr.get_splat(t, elem_attr))
        return arith.constant(t, elem_attr)

    def c(self, value: float) -> ir.Value:
        return self._splat(ir.FloatAttr.get(ir.F32Type.get(), value), self.ftype)

    def ci(self, value: int) -> ir.Value:
        return self._splat(ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value), self.itype)

    def fma(self, a, b, c) -> ir.Value:
        """a * b + c, fused where the target has FMA (`contract` lets LLVM decide)."""
        return arith.addf(arith.mulf(a, b, fastmath=self.contract), c, fastmath=self.contract)

    def poly(self, x, coeffs) -> ir.Value:
        """sum(coeffs[i] * x^i), Horner's scheme."""
        acc = self.c(coeffs[-1])
        for k in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, self.c(k))
        return acc

    def cmp(self, pred: str, a, b) -> ir.Value:
        return arith.cmpf(getattr(arith.CmpFPredicate, pred), a, b)

    def clamp(self, x, lo: float | None, hi: float | None) -> ir.Value:
        """x limited to [lo, hi]; NaN stays NaN (a compare and select each: one minps/maxps)."""
        if lo is not None:
            x = arith.select(self.cmp("OLT", x, self.c(lo)), self.c(lo), x)
        if hi is not None:
            x = arith.select(self.cmp("OGT", x, self.c(hi)), self.c(hi), x)
        return x

    def bits(self, x) -> ir.Value:
        return arith.bitcast(self.itype, x)

    def float(self, i) -> ir.Value:
        return arith.bitcast(self.ftype, i)

    def pow2(self, n) -> ir.Value:
        """2^n for integer n in [-126, 127], built in the exponent field."""
        return self.float(arith.shli(arith.addi(n, self.ci(127)), self.ci(23)))


def _avx512_registers(t: ir.Type, cpu: str) -> bool:
    """`whole_registers` for the -mcpu `cpu` rather than the build's."""
    lanes = ir.VectorType(t).shape if isinstance(t, ir.VectorType) else None
    if lanes is None or len(lanes) != 1 or lanes[0] % 16 or not _is_f32(t):
        return False
    return "avx512f" in cpu_target(cpu).features


def _reduce_exp(b: _F32, x: ir.Value, lo: float | None, hi: float | None):
    """(n, e^r - 1) with x = n ln 2 + r, |r| <= ln(2)/2 and n an i32, for x clamped to
    [lo, hi] (NaN stays NaN)."""
    t, _, expm1_r = _reduce_exp_float(b, x, lo, hi)
    return arith.subi(b.bits(t), b.ci(_ROUNDER_BITS)), expm1_r


def _reduce_exp_float(b: _F32, x: ir.Value, lo: float | None, hi: float | None):
    """`_reduce_exp` with n as an f32 (and t, whose low mantissa bits hold n)."""
    x = b.clamp(x, lo, hi)
    t = b.fma(x, b.c(1 / pymath.log(2)), b.c(_ROUNDER))
    n = arith.subf(t, b.c(_ROUNDER))
    r = b.fma(n, b.c(-_LN2_HI), x)
    r = b.fma(n, b.c(-_LN2_LO), r)
    return t, n, b.fma(arith.mulf(r, r), b.poly(r, _EXP_P), r)


def expand_exp(b: _F32, x: ir.Value, lo: float | None = -104.0) -> ir.Value:
    """math.exp -> arith.select, arith.mulf, arith.addf, arith.bitcast, arith.shli: e^r 2^n."""
    # exp(-104) rounds to 0 and exp(88.8) overflows: the clamp keeps n in [-150, 128] (callers
    # whose x is never below -104 drop the lower bound).
    # math.exp only: inside erf's polynomial chain vscalefps measured slower (GELU 0.20 -> 0.23 ms)
    if b.whole and lo is not None:
        return _exp_scaled_natively(b, x, lo)
    n, expm1_r = _reduce_exp(b, x, lo, 88.8)
    return _times_pow2(b, arith.addf(expm1_r, b.c(1.0)), n)


def _times_pow2(b: _F32, y: ir.Value, n: ir.Value) -> ir.Value:
    """y 2^n for an i32 n in [-150, 128]."""
    # 2^n as two factors, each a normal f32: one rounding, in the last multiply, gives
    # denormal results and overflow to inf as a single multiply by 2^n would.
    half = arith.shrsi(n, b.ci(1))
    return arith.mulf(arith.mulf(y, b.pow2(half)), b.pow2(arith.subi(n, half)))


def _exp_scaled_natively(b: _F32, x: ir.Value, lo: float | None) -> ir.Value:
    """exp with AVX-512's vscalefps for 2^n (one instruction for eight integer ops), unless a
    lane's result is subnormal or 0: vscalefps takes a microcode assist per such register
    (masked softmax rows, exp(-1e9 - max): 5.5 -> 7.6 ms), the two multiplies less so."""
    t, n, expm1_r = _reduce_exp_float(b, x, lo, 88.8)
    y = arith.addf(expm1_r, b.c(1.0))
    tiny = vector.reduction(
        ir.IntegerType.get_signless(1),
        ir.Attribute.parse("#vector.kind<or>"),
        b.cmp("OLT", n, b.c(-125.0)),
    )
    branch = scf.IfOp(tiny, [b.ftype], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        # lanes whose exp rounds to 0 (e^-103.98 < 2^-150) leave the multiplies at 2^0 and are
        # selected to 0 after: an underflowing multiply in every masked lane of an attention
        # row (x + finfo.min) made a masked softmax 1.9x an unmasked one
        dead = b.cmp("OLT", x, b.c(-103.98))
        n_int = arith.select(dead, b.ci(0), arith.subi(b.bits(t), b.ci(_ROUNDER_BITS)))
        scf.yield_([arith.select(dead, b.c(0.0), _times_pow2(b, y, n_int))])
    with ir.InsertionPoint(branch.else_block):
        scf.yield_([scalef(y, n)])
    return branch.results[0]


def expand_expm1(b: _F32, x: ir.Value) -> ir.Value:
    """math.expm1 -> (2^(n-1) (e^r - 1) + (2^(n-1) - 1/2)) * 2, signed as x."""
    # expm1(-30) is -1 in f32: the clamp keeps 2^(n-1) normal. Without the -1 folded into the
    # sum, exp(x) - 1 would lose bits to cancellation for |x| < 1.
    n, expm1_r = _reduce_exp(b, x, -30.0, 88.8)
    s = b.pow2(arith.subi(n, b.ci(1)))
    y = arith.mulf(b.fma(s, expm1_r, arith.subf(s, b.c(0.5))), b.c(2.0))
    return math.copysign(y, x)  # -0.0 stays -0.0 (n = 0 adds +0)


def expand_tanh(b: _F32, x: ir.Value) -> ir.Value:
    """math.tanh -> arith.select(|x| < 0.625, x + x^3 P(x^2), 1 - 2 / (exp(2|x|) + 1) signed)."""
    x2 = arith.mulf(x, x)
    # x + x^3 P keeps tiny x exact; 1 - 2/(e+1) would cancel there.
    small = b.fma(arith.mulf(x, x2), b.poly(x2, _TANH_P), x)
    a = math.absf(x)
    e = expand_exp(b, arith.addf(a, a), lo=None)
    large = arith.subf(b.c(1.0), arith.divf(b.c(2.0), arith.addf(e, b.c(1.0))))  # 1 at inf
    # x^3 P(x^2) is +0 for x = -0.0, and -0.0 + +0 = +0: the sign comes back from x.
    return math.copysign(arith.select(b.cmp("OLT", a, b.c(_TANH_SMALL)), small, large), x)


def expand_erf(b: _F32, x: ir.Value) -> ir.Value:
    """math.erf -> arith.select(|x| >= 1, 1 - 2^Q(u), x + x P(x^2)) signed as x, with
    u = min(|x|, 4) - 1; 2^Q as 2^n (1 + f E(f)), n an integer near Q, f = Q - n. On
    AVX-512 registers: 32 per-interval polynomials picked by permutes (`erf_table`)."""
    if b.whole and os.environ.get("ATEN_MLIR_ERF_TABLE", "1") != "0":
        unscaled = _times_sqrt1_2(x)  # GELU's erf(x / sqrt 2): tables in x's units
        return erf_by_table(b, unscaled, SQRT1_2) if unscaled else erf_by_table(b, x)
    small = b.fma(x, b.poly(arith.mulf(x, x), _ERF_SMALL_P), x)
    a = math.absf(x)
    u = arith.subf(b.clamp(a, None, _ERF_CLAMP), b.c(1.0))
    # Q(u) = c0 + u R(u) in [-25.9, -2.67]; 2^Q = 2^n 2^f with n = round(u R) - 3 from the
    # rounder, and f = u R + (c0 - n) in [c0 + 2.5, c0 + 3.5]: not f = Q - n from a rounded Q
    # (ulp 2^-22 at -2.67 cost 0.2 ULP of erf near |x| = 1, where erfc is largest). c0 - n is
    # exact for the n that matter there (erfc >= 2^-5), and u R -> 0 at u = 0, so its rounding
    # is small there too (LLVM computes u R once and adds it twice: two adds, one multiply).
    rest = b.poly(u, _ERF_LARGE_Q[1:])
    t = b.fma(u, rest, b.c(_ROUNDER - 3.0))
    n = arith.subf(t, b.c(_ROUNDER))
    f = b.fma(u, rest, arith.subf(b.c(_ERF_LARGE_Q[0]), n))
    two_f = b.fma(f, b.poly(f, _EXP2_E), b.c(1.0))
    # 2^n (1 + f E) by adding n to the exponent field: t << 23 is n << 23 (the rounder's
    # bits shift out), n in [-26, -3] keeps the result normal; a multiply by 2^n would take
    # an FMA port slot, which GELU's loop is short of
    erfc = b.float(arith.addi(b.bits(two_f), arith.shli(b.bits(t), b.ci(23))))
    large = arith.subf(b.c(1.0), erfc)
    # NaN compares false: it takes the small branch, whose FMA keeps it NaN
    return math.copysign(arith.select(b.cmp("OGE", a, b.c(1.0)), large, small), x)


def _times_sqrt1_2(x: ir.Value) -> ir.Value | None:
    """v where x = v * f32(1/sqrt 2) (an arith.mulf by a splat constant), else None."""
    owner = x.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "arith.mulf":
        return None
    for k, other in ((0, 1), (1, 0)):
        const = owner.operands[k].owner
        if isinstance(const, ir.OpView) and const.operation.name == "arith.constant":
            attr = const.attributes["value"]
            if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
                attr = attr.get_splat_value()
            if isinstance(attr, ir.FloatAttr) and attr.value == _SQRT1_2_F32:
                return owner.operands[other]
    return None


def expand_log(b: _F32, x: ir.Value) -> ir.Value:
    """math.log -> arith.bitcast, arith.shrsi, arith.andi, arith.mulf, arith.addf,
    arith.select: e ln 2 + log(m), x = m 2^e with m in [sqrt(1/2), sqrt(2))."""
    # Denormals scaled to normals by 2^23 first: their exponent field does not hold e.
    tiny = b.cmp("OLT", x, b.c(_F32_MIN_NORMAL))
    scaled = arith.select(tiny, arith.mulf(x, b.c(2.0**23)), x)
    # Offsetting by sqrt(1/2)'s bits makes the exponent field step at sqrt(2)-ulp, not at 2.
    shifted = arith.subi(b.bits(scaled), b.ci(_SQRT_HALF_BITS))
    exponent = arith.subi(arith.shrsi(shifted, b.ci(23)), arith.select(tiny, b.ci(23), b.ci(0)))
    mantissa = arith.addi(arith.andi(shifted, b.ci(0x7FFFFF)), b.ci(_SQRT_HALF_BITS))
    f = arith.subf(b.float(mantissa), b.c(1.0))  # exact (Sterbenz)
    e = arith.sitofp(b.ftype, exponent)
    f2 = arith.mulf(f, f)
    tail = b.fma(arith.mulf(f2, f), b.poly(f, _LOG_P), arith.mulf(e, b.c(_LN2_LO)))
    tail = b.fma(f2, b.c(-0.5), tail)
    y = b.fma(e, b.c(_LN2_HI), arith.addf(f, tail))
    # The bit tricks read 0, negatives, inf and NaN as ordinary numbers: fix those up.
    y = arith.select(b.cmp("OEQ", x, b.c(pymath.inf)), x, y)
    y = arith.select(b.cmp("OEQ", x, b.c(0.0)), b.c(-pymath.inf), y)
    return arith.select(b.cmp("ULT", x, b.c(0.0)), b.c(pymath.nan), y)


def expand_log1p(b: _F32, x: ir.Value) -> ir.Value:
    """math.log1p -> log(u) + (x - (u - 1)) / u with u = 1 + x, signed as x."""
    u = arith.addf(x, b.c(1.0))
    log_u = expand_log(b, u)
    # The correction gives back what rounding 1 + x lost (all of x when u = 1).
    fixed = arith.addf(log_u, arith.divf(arith.subf(x, arith.subf(u, b.c(1.0))), u))
    finite = b.cmp("OLT", math.absf(log_u), b.c(pymath.inf))  # u = 0, inf: 0/0, inf/inf
    return math.copysign(arith.select(finite, fixed, log_u), x)  # log1p(-0.0) = -0.0


EXPANSIONS = {
    "math.exp": expand_exp,
    "math.tanh": expand_tanh,
    "math.erf": expand_erf,
    "math.log": expand_log,
    "math.expm1": expand_expm1,
    "math.log1p": expand_log1p,
}


def _is_f32(t: ir.Type) -> bool:
    if isinstance(t, ir.VectorType):
        return isinstance(ir.VectorType(t).element_type, ir.F32Type)
    return isinstance(t, ir.F32Type)


@register_pass
@dataclass(frozen=True)
class FastMath(ModulePass):
    """Expands math.exp/expm1/tanh/erf/log/log1p on f32 scalars and vectors into branch-free
    arith (polynomials within 1.5 ULP) that LLVM vectorizes, instead of scalar libm calls;
    f32 vector maximumf/minimumf on AVX-512 registers as vrangeps (range_extrema.py)."""

    name: ClassVar[str] = "cpu-fast-math"
    cpu: str = option("", "-mcpu name whose AVX-512 registers take vscalefps / erf tables")

    def run(self, module_op: ir.Operation) -> None:
        found = [
            op
            for op in nested_ops(module_op)
            if op.name in EXPANSIONS and _is_f32(op.results[0].type)
        ]
        for op in found:
            with op.location, ir.InsertionPoint(op):
                builder = _F32(op.results[0].type, self.cpu)
                value = EXPANSIONS[op.name](builder, op.operands[0])
            op.results[0].replace_all_uses_with(value)
            op.erase()
        # f32 vector max/min on AVX-512 registers: vrangeps (range_extrema.py)
        for op in [op for op in nested_ops(module_op) if op.name in range_extrema.NAMES]:
            if range_extrema.applies(op, self.cpu):
                with op.location, ir.InsertionPoint(op):
                    value = range_extrema.expand(op)
                op.results[0].replace_all_uses_with(value)
                op.erase()
