"""The statistics of the norms: (mean, rstd) over the reduced dims, kept-dims tensors.

`stats`: two passes (mean, then the mean of squared deviations: biased, as torch normalises) in
the sum accumulator type (f64 for f32). `stats_f32`: a layer norm's static f32 rows of at most
F32_ROW_MAX elements in cache-sized inputs (`f32_rows`), in f32 sums as exact as those (a
scaled, shifted second pass).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, math

from .builder import convert, tensor_type
from .reductions_common import count, elementwise, ranked, reduce, shape_of

# A layer norm's f32 rows of at most this many static elements take f32 statistics: the vector
# loops keep 64 partial sums, so each sums at most 64 terms (the f64 sums cost ~20% of a
# LayerNorm + GELU row nest converting every element). Wider or dynamic rows keep f64.
F32_ROW_MAX = 4096
# ...but only while the input stays in the caches (at most F32_CACHED_BYTES, or a `?` dim),
# or its rows are in F32_STREAMED_ROWS. Measured on znver5, 1 thread, paired alternated blocks
# of calls, thread time, f32/f64 median ratio: inputs of <= 4 MiB gain at every width
# ([128, 768..4096] 0.80-0.90, [512|1024, 1000|1024] 0.86-0.89, [512, 2048] 0.88; 8 MiB
# ~1.0); 16 MiB inputs, streamed from memory, gain at 640 (0.65) and 768 (0.88-1.02, median
# 0.95) but lose at 512 (1.07-1.12) and 896-3072 (1.02-1.10 in most runs: 896, 1000, 1024,
# 1152, 3072 worst). Not LLVM's unrolling nor spills: the ratios stay with full unrolling off.
# Where f32 loses, its first pass waits longer on the row's loads (perf), see
# /work/notes/ln1024-note.md.
F32_CACHED_BYTES = 4 << 20
F32_STREAMED_ROWS = range(513, 769)
# LN + GELU + residual, streamed, f32/f64 statistics (1 thread, thread time, same process
# alternated; runs differ by up to 20% per instance): [8,512,1024] 0.76, 0.96 (paired blocks:
# 0.86), [2048,2048] 0.92, 0.99, [4096,1536] 1.04, 1.00, [1024,4096] 1.00, [8,512,512] 1.01.
# Wider rows keep the size rule until they gain clearly.
F32_GELU_ROW_MAX = 1024
_CONTRACT = "#arith.fastmath<contract>"


def stats(x: ir.Value, dims: list[int], acc: ir.Type, eps: float | None):
    """(mean, rstd) over `dims` as kept-dims tensors of type `acc`; rstd = 1/sqrt(var + eps)
    of the biased variance (eps None: the variance itself)."""
    (s,) = reduce(x, dims, [(acc, 0.0)], lambda v, a: arith.addf(a, convert(v, acc)))
    n = count(x, dims, acc)
    kept = ranked(shape_of(tensor_type(s)), acc)
    mean = elementwise([s], kept, lambda v, _o: arith.divf(v, n), like=s)

    def squares(v, m, a):
        d = arith.subf(convert(v, acc), m)
        return arith.addf(a, arith.mulf(d, d))

    (ss,) = reduce(x, dims, [(acc, 0.0)], squares, per_output=[mean])

    def rstd_of(v, _o):
        var = arith.divf(v, n)
        if eps is None:
            return var
        one = arith.constant(acc, 1.0)
        rstd = arith.divf(one, math.sqrt(arith.addf(var, arith.constant(acc, float(eps)))))
        # squares past the accumulator's range (a bf16 row holding 1e30, summed in f32): NaN,
        # as eager's kernel gives, rather than a 1/inf = 0 that would return the bias alone
        inf = arith.constant(acc, float("inf"))
        overflow = arith.cmpf(arith.CmpFPredicate.OEQ, var, inf)
        return arith.select(overflow, arith.constant(acc, float("nan")), rstd)

    return mean, elementwise([ss], kept, rstd_of, like=ss)


def f32_rows(x: ir.Value, dims: list[int], acc: ir.Type, into_gelu: bool = False) -> bool:
    """Whether `stats_f32` serves an f32 `x` reduced over its trailing `dims` (f64 sums):
    static rows of at most F32_ROW_MAX elements, in an input of at most F32_CACHED_BYTES or
    rows of a width in F32_STREAMED_ROWS, or rows of at most F32_GELU_ROW_MAX whose normalized
    values go into a GELU (`into_gelu`): its erf work in the same row nest hides the streamed
    loads that the f32 passes leave exposed. A `?` outer dim keeps f32 (as before the size
    rule: dynamic batches are mostly small ones, decode steps and short sequences)."""
    xt = tensor_type(x)
    if not isinstance(xt.element_type, ir.F32Type) or not isinstance(acc, ir.F64Type):
        return False
    n = 1
    for d in dims:
        if xt.is_dynamic_dim(d):
            return False
        n *= xt.get_dim_size(d)
    if dims != list(range(xt.rank - len(dims), xt.rank)) or n > F32_ROW_MAX:
        return False
    if not xt.has_static_shape or (into_gelu and n <= F32_GELU_ROW_MAX):
        return True
    elements = 1
    for d in range(xt.rank):
        elements *= xt.get_dim_size(d)
    return elements * 4 <= F32_CACHED_BYTES or n in F32_STREAMED_ROWS


def stats_f32(x: ir.Value, dims: list[int], eps: float):
    """(mean, rstd) of f32 rows as f32 kept-dims tensors, from f32 sums as exact as f64 ones.

    Pass 1 sums x (shift m0 = sum / n, 0 if that overflowed) and |x| (2^-64 |x|, no overflow),
    whose inverse `scale` (at most 2^126) brings the row into [-1, 1]. Pass 2 sums
    d = x * scale - m0 * scale (one FMA, so x * scale is exact) and d^2: |d| <= 2, so rows of
    1e30 (whose squares overflow f32) or of subnormals (whose squares underflow) lose nothing
    (a max |x| would do too, but LLVM's maxnum takes 4 ops a vector and arith.bitcast has no
    host form on the Triton target). The corrected two-pass form takes (sum d)^2 / n off
    sum d^2 in f64 per row, cancelling m0's rounding, and undoes the scale there (var up to
    1e77). Every per-row value is recomputed in the generic that reads it (one result each), so that
    linalg-fuse-elementwise-ops fuses them and the row nest keeps one pass per statistic."""
    f32, f64 = ir.F32Type.get(), ir.F64Type.get()
    contract = ir.Attribute.parse(_CONTRACT)

    def first(v, s, a):
        # 2^-64 |x|: no overflow (4096 x 2^64 at most), |x| < 2^-62 only underflows
        tiny = arith.mulf(math.absf(v), arith.constant(f32, 2.0**-64), fastmath=contract)
        return arith.addf(s, v), arith.addf(a, tiny, fastmath=contract)

    s, sa = reduce(x, dims, [(f32, 0.0), (f32, 0.0)], first)
    rows = 1
    for d in dims:
        rows *= tensor_type(x).get_dim_size(d)
    # multiplies by 1/n: the per-row chain runs between the row's passes, and each divide
    # there adds ~13 cycles of latency to every row
    inv_n32, inv_n = arith.constant(f32, 1.0 / rows), arith.constant(f64, 1.0 / rows)

    def scale_of(a):
        # 1 / sum |x|, at most 2^126: rows of zeros (1/0) and of values below 2^-86 (sums
        # underflowed to 0) take 2^126, under which |x| * scale < 2^40; inf rows take 0 and
        # NaN rows NaN (their statistics are NaN through their sums)
        inverse = arith.divf(arith.constant(f32, 1.0), a)
        scale = arith.mulf(inverse, arith.constant(f32, 2.0**-64))
        return arith.minimumf(scale, arith.constant(f32, 2.0**126))

    def scale_shift(s, m):
        scale = scale_of(m)
        m0 = arith.mulf(s, inv_n32)
        finite = arith.cmpf(arith.CmpFPredicate.OLT, math.absf(m0), arith.constant(f32, 3e38))
        m0 = arith.select(finite, m0, arith.constant(f32, 0.0))
        return scale, arith.negf(arith.mulf(m0, scale))

    def deviations(v, s, m, sd, sq):
        k, c = scale_shift(s, m)
        d = arith.addf(arith.mulf(v, k, fastmath=contract), c, fastmath=contract)
        sq = arith.addf(arith.mulf(d, d, fastmath=contract), sq, fastmath=contract)
        return arith.addf(sd, d), sq

    sd, sq = reduce(x, dims, [(f32, 0.0), (f32, 0.0)], deviations, per_output=[s, sa])

    def centred(d, m):
        """(mean of d, 1 / scale) in f64 (the reciprocal's rounding: 2^-53)."""
        inv = arith.divf(arith.constant(f64, 1.0), convert(scale_of(m), f64))  # overlaps pass 2
        return arith.mulf(convert(d, f64), inv_n), inv

    def mean_of(d, s, m, _o):
        mean_d, inv = centred(d, m)
        c = convert(scale_shift(s, m)[1], f64)
        return convert(arith.mulf(arith.subf(mean_d, c), inv), f32)

    def rstd_of(d, q, m, _o):
        mean_d, inv = centred(d, m)
        mean_sq = arith.mulf(convert(q, f64), inv_n)
        var_d = arith.subf(mean_sq, arith.mulf(mean_d, mean_d))
        # below the f32 sums' rounding (each lane sums <= 64 terms: 2^-18 of mean_sq) the
        # difference is noise, not spread: a constant row of 3e10 (d an ulp of the shift off,
        # equal in every lane) gave var 1.5e-3 instead of 0, rstd 25 instead of 1/sqrt(eps)
        floor = arith.mulf(mean_sq, arith.constant(f64, 2.0**-17))
        noise = arith.cmpf(arith.CmpFPredicate.OLE, var_d, floor)  # NaN stays NaN
        var_d = arith.select(noise, arith.constant(f64, 0.0), var_d)
        var = arith.mulf(var_d, arith.mulf(inv, inv))
        one = arith.constant(f64, 1.0)
        rstd = arith.divf(one, math.sqrt(arith.addf(var, arith.constant(f64, float(eps)))))
        return convert(rstd, f32)

    kept = ranked(shape_of(tensor_type(s)), f32)
    mean = elementwise([sd, s, sa], kept, mean_of, like=s)
    return mean, elementwise([sd, sq, sa], kept, rstd_of, like=s)
