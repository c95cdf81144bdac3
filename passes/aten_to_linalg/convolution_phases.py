"""A strided transposed convolution as one stride-1 convolution per output phase.

Output position `Y = q*s + r` of a transposed convolution sums `x[i] * w[k]` over `i*s - p + k*d
= Y`: only the taps with `(r + p - k*d) % s == 0` reach phase `r`, and for those `i = q + b +
j*delta` as the taps go down (`delta = d / gcd(s, d)`). So each phase is an ordinary stride-1
convolution of `x` with a sub-kernel of the flipped weight, written into every `s`-th output
element. Convolving the zero-dilated input instead (`transposed_as_conv`) multiplies zeros for
all but one in `s**n` products: a stride-2 2d grad_input ran at 2.5x eager's time.
"""

from __future__ import annotations

import itertools
from math import gcd

from mlir import ir
from mlir.dialects import arith

from . import convolution_tensors as T
from .builder import PARALLEL, tensor_type


def phase_taps(k: int, s: int, p: int, d: int, r: int) -> tuple[int, int, int, int]:
    """(first tap, tap step, tap count, offset b) of phase `r`: taps `k0, k0 - t, ...` read
    `x[q + b + j*delta]`."""
    taps = [t for t in range(k - 1, -1, -1) if (r + p - t * d) % s == 0]
    if not taps:
        return 0, 1, 0, 0
    step = s // gcd(s, d)
    return taps[0], step, len(taps), (r + p - taps[0] * d) // s


def phase_weight(rw, w, groups, taps) -> ir.Value:
    """[G*C, F, K...] (a transposed conv's weight) -> [G*F, C, J...]: for each spatial dim the
    taps `k0 - j*t` of `taps[i] = (k0, t, J)`, so the sub-kernel reads upward as `x` does."""
    ws = rw.sizes(w)
    n = len(ws) - 2
    c = T.floordiv(rw, ws[0], groups)
    wg = T.expand(rw, w, [[0, 1], *[[d + 1] for d in range(1, n + 2)]], [groups, c, *ws[1:]])
    rank = n + 3
    e = tensor_type(w).element_type
    init = T.empty(rw, [groups, ws[1], c, *[count for _, _, count in taps]], e)
    picked = [ir.AffineConstantExpr.get(k0) - T.dim(3 + i) * t for i, (k0, t, _) in enumerate(taps)]
    maps = [T.amap(rank, [T.dim(0), T.dim(2), T.dim(1), *picked]), T.identity(rank)]
    out = rw.generic([wg], [init], maps, [PARALLEL] * rank, lambda a, _: a)[0]
    return T.collapse(rw, out, [[0, 1], *[[d] for d in range(2, rank)]])


def transposed_by_phases(rw, x, w, stride, padding, dilation, groups, out_sizes, init, conv_nd):
    """The transposed convolution of `x` with `w` of sizes `out_sizes`, phase by phase.
    `init(sizes)` is an accumulator [N, F, O...] (the bias broadcast, or zeros); `conv_nd(rw, x,
    w, acc, stride, dilation, groups)` adds an ordinary unpadded convolution into `acc`. Each
    phase is computed into its own contiguous accumulator (the kernels want one), then copied
    into every `s`-th element of the result."""
    n = len(stride)
    ks = [tensor_type(w).get_dim_size(d) for d in range(2, tensor_type(w).rank)]
    xs = rw.sizes(x)
    phases = list(itertools.product(*[range(s) for s in stride]))
    plans = [
        [phase_taps(k, s, p, d, r) for k, s, p, d, r in zip(ks, stride, padding, dilation, phase)]
        for phase in phases
    ]
    # Every phase written: the result starts uninitialized (its zero fill was a memset of the
    # whole grad_input, all of it overwritten).
    covered = all(count > 0 for plan in plans for _, _, count, _ in plan)
    out = None if covered else init(out_sizes)
    live = [(phase, plan) for phase, plan in zip(phases, plans) if all(c for _, _, c, _ in plan)]
    deltas = [d // gcd(s, d) for s, d in zip(stride, dilation)]
    reads = [_phase_reads(rw, plan, phase, out_sizes, xs, stride, deltas) for phase, plan in live]
    shared = _shared_pad(rw, x, reads) if SHARED_PAD and len(reads) > 1 else None
    # Every phase, all as wide as each other: the phases of one row parity are interleaved
    # into their rows by one vector copy (below) instead of one scalar strided copy each.
    last = out_sizes[-1]
    woven = covered and INTERLEAVE and stride[-1] in (2, 4) and isinstance(last, int)
    woven = woven and last % stride[-1] == 0
    summed_by_phase = {}
    for (phase, plan), (sizes, low, crop, high) in zip(live, reads):
        if shared is not None:
            xp, top = shared
            ps = rw.sizes(x)
            xp = T.extract_slice(
                rw,
                xp,
                [0, 0, *[t - lo + c for t, lo, c in zip(top, low, crop)]],
                [
                    ps[0],
                    ps[1],
                    *[
                        T.sub(rw, T.add(rw, T.add(rw, v, lo), hi), c)
                        for v, lo, hi, c in zip(ps[2:], low, high, crop)
                    ],
                ],
            )
        else:
            xp = T.pad(rw, x, [0, 0, *low], [0, 0, *high], 0)
            if any(crop):
                ps = rw.sizes(xp)
                xp = T.extract_slice(
                    rw,
                    xp,
                    [0, 0, *crop],
                    [ps[0], ps[1], *[T.sub(rw, v, c) for v, c in zip(ps[2:], crop)]],
                )
        wp = phase_weight(rw, w, groups, [(k0, t, count) for k0, t, count, _ in plan])
        summed = conv_nd(rw, xp, wp, init([*out_sizes[:2], *sizes]), [1] * n, deltas, groups)
        if out is None:
            out = T.empty(rw, out_sizes, tensor_type(summed).element_type)
        if woven:
            summed_by_phase[phase] = summed
        else:
            out = T.place(rw, summed, out, [0, 0, *phase], [1, 1, *stride])
    if woven:
        for rows in itertools.product(*[range(s) for s in stride[:-1]]):
            parts = [summed_by_phase[(*rows, r)] for r in range(stride[-1])]
            out = _interleave(rw, parts, out, rows, stride)
    return out


# The phases of a last-dim stride of 2 or 4 interleaved by one vector copy per row parity
# (`_interleave`); off, each phase is placed by its own copy into every s-th element, which the
# CPU runs one scalar store at a time (train_cnn's stride-2 grad_inputs: 2.2% of the step).
INTERLEAVE = True


def _interleave(rw, parts, out, rows, stride) -> ir.Value:
    """`out` with the phases `parts` (last-dim phases 0..s-1 of the row phase `rows`, each
    [N, F, Q.., W/s]) written into its rows `rows` (every stride-th): out[.., w] =
    parts[w % s][.., w / s]. Each part is read at `w floordiv s` (on the CPU one half- or
    quarter-width load spread over the lanes) and the lane's own picked by `w % s`."""
    s = stride[-1]
    sizes = [*rw.sizes(parts[0])[:-1], T.mul(rw, rw.sizes(parts[0])[-1], s)]
    rank = len(sizes)
    offsets, strides = [0, 0, *rows, 0], [1, 1, *stride[:-1], 1]
    window = T.extract_slice(rw, out, offsets, sizes, strides)
    spread = T.amap(
        rank,
        [*[T.dim(d) for d in range(rank - 1)], ir.AffineExpr.get_floor_div(T.dim(rank - 1), s)],
    )
    i64 = ir.IntegerType.get_signless(64)

    def body(*args):
        # in i64, not index: an index vector captured by a parallel loop cannot reach LLVM
        lane = arith.andi(arith.index_cast(i64, T.index(rank - 1)), arith.constant(i64, s - 1))
        picked = args[s - 1]
        for r in range(s - 2, -1, -1):
            at_r = arith.cmpi(arith.CmpIPredicate.eq, lane, arith.constant(i64, r))
            picked = arith.select(at_r, args[r], picked)
        return picked

    maps = [spread] * s + [T.identity(rank)]
    woven = rw.generic(parts, [window], maps, [PARALLEL] * rank, body)[0]
    return T.insert_slice(rw, woven, out, offsets, strides)


# One padded copy of the input serves every phase (each reads a view of it): train_cnn's
# stride-2 grad_inputs padded grad_output three times, once per phase with taps past its end.
SHARED_PAD = True


def _phase_reads(rw, plan, phase, out_sizes, xs, stride, deltas):
    """(output sizes Q, low pad, crop, high pad) of one phase: it reads x[q + b + j*delta] for
    q < Q, j < J: crop b when positive, pad -b when negative, and pad the end up to what the
    last output reads."""
    sizes = [T.ceildiv(rw, T.sub(rw, o, r), s) for o, r, s in zip(out_sizes[2:], phase, stride)]
    low = [max(-b, 0) for *_, b in plan]
    crop = [max(b, 0) for *_, b in plan]
    high = [
        T.smax(rw, T.sub(rw, T.add(rw, q, delta * (count - 1) + b), i), 0)
        for q, delta, (_, _, count, b), i in zip(sizes, deltas, plan, xs[2:])
    ]
    return sizes, low, crop, high


def _shared_pad(rw, x, reads):
    """x padded by the most any phase needs on each side, and that low pad."""
    top = [max(r[1][d] for r in reads) for d in range(len(reads[0][1]))]
    bottom = list(reads[0][3])
    for r in reads[1:]:
        bottom = [T.smax(rw, a, b) for a, b in zip(bottom, r[3])]
    return T.pad(rw, x, [0, 0, *top], [0, 0, *bottom], 0), top
