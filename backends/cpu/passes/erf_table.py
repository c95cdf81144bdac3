"""erf on AVX-512 registers from 32 per-interval polynomials held in registers.

|x|, clamped to 3.93125 (erf is 1 in f32 from 3.92 on), is cut into 32 intervals of width 1/8
(interval i around i/8: its index is round(8|x|), which adding 1.5 * 2^23 leaves in the low
five mantissa bits), and erf on each is a degree-5 polynomial in t = |x| - o_i. Each
coefficient is one `vpermi2ps` (two zmm hold the 32 entries, the index's low five bits pick one
per lane), so a register costs 7 permutes, a vminps, a compare and blend and 6 multiply-adds
instead of both
branches of the general expansion (two polynomials and 2^f, about 20 multiply-adds): GELU's row
loop is FMA-bound on erf.

Accuracy (each step is exact or one rounding): o_i is an f32 near i/8 whose erf is within a
few hundredths of an ULP of the f32 c0_i, so the polynomial's constant term adds no rounding
error, and t = |x| - o_i is exact (Sterbenz). Intervals 0-2 (|x| < 5/16) take o = 0 and the
form t + t q(t) (g_i = 1): erf x / x is near 1.13 there, and rounding that factor would cost
up to 0.45 ULP. Largest error against float64 erf (every 13th f32 in [0, 5], f32 emulation of
the evaluation): 0.62 ULP (the general expansion: 1.07). The coefficients are weighted least
squares fits on 400 Chebyshev nodes of each interval (weights 1 / ulp(erf)), rounded to f32
one at a time with the higher ones refitted (fit script: lngelu3-scripts/fit.py in the notes).
"""

from __future__ import annotations

import array
import struct

from mlir import ir
from mlir.dialects import arith, llvm, math

from .x86_registers import LANES, per_register

SQRT1_2 = 0.70710678118654752440

# Per interval i (columns of 32, as f32 bit patterns): origin o, c0..c5:
# erf |x| = c0 + t (g + q(t)) with t = |x| - o and q = c1 + c2 t + ... + c5 t^4, evaluated as
# fma(t, q, g t + c0); g is _SMALL_G on intervals 0-2 (where c0 = 0), else 0.
_TABLES = {
    1.0: (
        # ORIGIN
        "00000000 00000000 00000000 3eba0419 3efe1cac 3f1c20c5 3f3c5aa0 3f5dfefa "
        "3f81de35 3f906396 3f9ebc29 3faed9db 3fc1d2b0 3fd0645a 3fe1c666 3ff0672b "
        "4000b5c3 4008a852 40104f1b 4017845a 401fa1aa 402778d5 402ffcee 40385f5c "
        "404027ae 4048bc29 4050d810 4057d6a8 405fa189 4067eac1 406f9c6a 40770000",
        # C0
        "00000000 00000000 00000000 3ec90413 3f046ab8 3f1c90c5 3f33afc9 3f47aa17 "
        "3f59427d 3f63ac96 3f6ba817 3f7255cf 3f77bf54 3f7a8b5c 3f7cc554 3f7df9f1 "
        "3f7edc23 3f7f5a32 3f7fa260 3f7fcaac 3f7fe47f 3f7ff1e8 3f7ff966 3f7ffcf9 "
        "3f7ffe93 3f7fff66 3f7fffbe 3f7fffe1 3f7ffff3 3f7ffffb 3f7ffffe 3f7fffff",
        # C1
        "3e0375d4 3e0375bb 3e036eaf 3f7d2533 3f61cbdf 3f47240c 3f281c3a 3f082de8 "
        "3ece609c 3ea1d822 3e783b5e 3e32cb41 3de9558f 3da32c67 3d4de2bc 3d07ca25 "
        "3ca1ef72 3c41888c 3be5010a 3b881171 3b12ebb2 3a9d1a71 3a19d8f9 39932673 "
        "390fe8fd 387cc598 37e0b3de 37599cee 36bca0e7 36161c9b 3577a282 34e1a500",
        # C2
        "34631715 378ab5fe 3a0f04c0 beb7f114 bee02186 bef2e6e6 bef7607c beec2e8c "
        "bed163a2 beb69114 be99eb1a be743ca0 be30a98c be04d411 bdb593db bd7f0880 "
        "bd22d565 bcce9f90 bc81174f bc211135 bbb73a32 bb4d8ca3 bad3861b ba53f4b1 "
        "b9d8080c b94633d0 b8b7513a b8376e42 b7a4d439 b7080dae b667bb54 3785276b",
        # C3
        "bec09549 bec0b7a6 bec2bec8 be7864fb be18bd38 bd88005a 3c946316 3db70edd "
        "3e11ad9a 3e26b3e0 3e2bc105 3e22d160 3e0b7522 3de9f3ae 3db335f5 3d890892 "
        "3d3f53df 3d02efd9 3caef6fa 3c678ade 3c0c1a03 3ba636c3 3b35104b 3abf3ebd "
        "3a4c382f 39c49fe1 393deb9c 38c51cf5 38385983 379e1a26 370b6cad b8f9414d",
        # C4
        "399355fd 3b08949d 3c7dc7f0 3e279f59 3e3b0b4a 3e368df0 3e1e08a3 3deb945c "
        "3d836890 3cde2605 bb733b8e bceda48b bd3a8f4d bd4b7594 bd42ed31 bd2c4398 "
        "bd0a1c3e bcd2c788 bc9a5b13 bc5ca0a1 bc106a98 bbb78831 bb565cc1 baf0d04a "
        "ba88175e ba0a1978 b98ba0f9 b919c87d b890e546 b8015f85 b775d0c4 bbb1d5da",
        # C5
        "3de29ae2 3dd9e503 3db65ecd 3d2fdb98 3bf4b921 bcd4d28a bd5e3d0c bd903cc0 "
        "bd8e01b6 bd805085 bd411616 bcf80759 bc770843 bb2435f0 3bd6af85 3c39d2d9 "
        "3c55a4b2 3c4c4713 3c2f09c8 3c091157 3bc83b0a 3b89ff3f 3b351def 3ae2fffb "
        "3a8441f9 3a188445 39ab668b 393797a5 388cf9b1 381c2a0a 37a6cde0 3d66592b",
    ),
    # erf(x / sqrt 2) (GELU's), as a function of x: no rounded product x / sqrt 2 (origins and
    # interval widths in x's units; the first intervals take g = 1/2, q the remaining 0.298)
    SQRT1_2: (
        # ORIGIN
        "00000000 00000000 00000000 3f0aaef6 3f37867c 3f62bb7d 3f87297c 3f9f7da3 "
        "3fb358a9 3fc916a4 3fe313d3 3ff7503d 40087777 40128c9f 401e831b 4029341e "
        "4035d7a8 40404385 404c1df2 40584153 406197af 406d1aae 40782c8a 408224ca "
        "4087dfc5 408dfc69 4093accd 40989ef1 409e2189 40a3fd76 40a96e39 40aea7c7",
        # C0
        "00000000 00000000 00000000 3ed2f145 3f06ccbe 3f1fcbfe 3f3581b7 3f4988cb "
        "3f56bd7b 3f6241e8 3f6c8796 3f725822 3f778e6f 3f7a5c2d 3f7c9b19 3f7de6bd "
        "3f7ed989 3f7f5172 3f7fa28b 3f7fd052 3f7fe43c 3f7ff222 3f7ff917 3f7ffce1 "
        "3f7ffe93 3f7fff67 3f7fffbe 3f7fffe1 3f7ffff3 3f7ffffb 3f7ffffe 3f7fffff",
        # C1
        "3e988453 3e98844a 3e9881cc 3f3061a9 3f1df8c5 3f09fd4f 3ee9eda1 3ebbf6ae "
        "3e99135d 3e6dda79 3e295dea 3dfcb668 3da841da 3d6d8883 3d1824c0 3cc6657a "
        "3c66dc2a 3c0f6fee 3ba1a999 3b2d6ea6 3ad19f78 3a5ad272 39e328f0 3956351d "
        "38cb850f 3831a0ae 379ee388 3719e02b 36856169 35d44a4c 352f1ab1 349f3a33",
        # C2
        "359113aa 370f650f 398f182f be3f1a52 be627f9b be746d55 be770469 be6a34e5 "
        "be567b1a be3ad594 be163b69 bdf42338 bdb36307 bd87fa5d bd3c693e bd032162 "
        "bca3fc29 bc57738d bc00e604 bb92818d bb38b94c bacaab5d ba5c37de b9d9cb03 "
        "b958094b b8c50988 b83751eb b7b76f18 b724d3a2 b6880f5d b5e7bb65 3706bb94",
        # C3
        "be0837af be084638 be09b4c2 bda62520 bd4cbe09 bc9ebc36 3c0f77f1 3d0a80f5 "
        "3d44951c 3d68c894 3d72725a 3d6638c8 3d46ecd4 3d27fd12 3d023086 3cc60d2b "
        "3c881217 3c3fd76e 3bf71e12 3b968d53 3b4796d3 3ae80f22 3a84e28e 3a0ab325 "
        "3990659b 390a416a 38864950 380b62c1 37825924 36df9a69 36452c9b b831b50a",
        # C4
        "3a2ec244 3a0b01c6 3b7dcd27 3d2c138a 3d3b73f7 3d344b6d 3d1b0a0a 3ce1cd84 "
        "3c943d79 3c04b8e7 bae816d4 bbedf0a1 bc38a1fa bc4b045e bc449de7 bc2e52db "
        "bc0a9fa9 bbd86853 bb9a32ef bb4db829 bb1146de bab58b06 ba5cf2a8 b9f691f9 "
        "b987d851 b90931f9 b88b6c4f b819a205 b790fd1a b7010348 b675d172 bab5ca20",
        # C5
        "3c87d232 3c99f8f1 3c80f4c2 3bed07e3 3a629a81 bb83a226 bc14170c bc4a2fca "
        "bc45c57d bc3236e8 bc07c491 bbad350b bb30e0f5 b9e61dc7 3aa080e5 3b06fa05 "
        "3b182555 3b10968f 3af7694d 3ac1237c 3a8d088e 3a4394a4 39f7cb9e 399f420b "
        "393d0df4 38d9fc52 38758e05 380132d6 3748991c 36db1926 366c3289 3c26f147",
    ),
}
# |x| is clamped to these: erf is 1 in f32 from c |x| = 3.92 on, the last polynomial gives 1.0
# here (checked from each cut down 3000 f32 steps: <= 0.45 ULP), and 8c|x| stays below 31.5
# (index 32 would wrap to 0)
_CUT = {1.0: 3.93125, SQRT1_2: 5.559627}
_ROUNDER = 12582912.0  # 1.5 * 2^23: 8c|x| + it rounds 8c|x| to an integer in the low bits
_PERMUTE = "llvm.x86.avx512.vpermi2var.ps.512"
# g of intervals 0-2 (o = 0): erf(c x) / (c x) -> 2 / sqrt(pi), of which g takes 1 (or 1/2 in
# x's units for c = 1/sqrt 2) exactly and q the rest
_SMALL_G = {1.0: 1.0, SQRT1_2: 0.5}


def _table(words: str) -> tuple[list[float], list[float]]:
    values = [struct.unpack("<f", struct.pack("<I", int(w, 16)))[0] for w in words.split()]
    return values[:LANES], values[LANES:]


def _register(values: list[float]) -> ir.Value:
    t = ir.VectorType.get([LANES], ir.F32Type.get())
    return arith.constant(t, ir.DenseElementsAttr.get(array.array("f", values), type=t))


def erf_by_table(b, x: ir.Value, scale: float = 1.0) -> ir.Value:
    """erf(scale x) (scale 1 or SQRT1_2) on a vector of whole f32 registers (see the module
    docstring); `b` is fast_math's builder for x's type. NaN stays NaN (t is NaN), +-inf and
    large |x| give +-1, -0.0 gives -0.0."""
    # |x| clamped to the cut (one vminps, NaN kept), where the last polynomial gives 1.0
    a = b.clamp(math.absf(x), None, _CUT[scale])
    s = b.fma(a, b.c(8.0 * scale), b.c(_ROUNDER))
    index = b.bits(s)
    halves = [_table(words) for words in _TABLES[scale]]
    f32 = ir.F32Type.get()

    def pick(part_index: ir.Value, lo: ir.Value, hi: ir.Value) -> ir.Value:
        return llvm.call_intrinsic(lo.type, _PERMUTE, [lo, part_index, hi], [], [])

    def lookup(k: int) -> ir.Value:
        lo, hi = (_register(h) for h in halves[k])
        return per_register([index], f32, lambda i: pick(i, lo, hi))

    origin, c0, *coeffs = (lookup(k) for k in range(len(halves)))
    t = arith.subf(a, origin)
    # g t + c0: on intervals 0-2 (s < R + 3) c0 is 0 and g is _SMALL_G, elsewhere g is 0; a
    # compare and a blend where a table was two permutes: two zmm fewer live, which stopped
    # the LayerNorm+GELU row loop's spills (ln_gelu_residual -8 to -10%)
    small = b.cmp("OLT", s, b.c(_ROUNDER + 3))
    g = _SMALL_G[scale]
    inner = arith.select(small, t if g == 1.0 else arith.mulf(t, b.c(g)), c0)
    q = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        q = b.fma(q, t, c)
    y = b.fma(t, q, inner)
    return math.copysign(y, x)  # NaN: t is NaN
