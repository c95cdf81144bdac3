"""Pooling window geometry shared by the pooling lowerings (forward and backward).

Output o along a dim reads the window starting at o*s - p (in input coordinates), of k elements
spaced d apart; sizes are mixed (ints when static, `index` values when dynamic).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from . import convolution_tensors as T
from .builder import convert, tensor_type

CMPI, CMPF = arith.CmpIPredicate, arith.CmpFPredicate


def expand_list(values, n: int, default=None) -> list[int]:
    values = list(values) if values else list(default or [])
    return values * n if len(values) == 1 else values


def pool_out_size(rw, i, k, s, p, d, ceil_mode) -> T.Size:
    """torch's `pooling_output_shape`: the last window must start inside input + left pad."""
    span = T.sub(rw, T.add(rw, i, 2 * p), d * (k - 1) + 1 - (s - 1 if ceil_mode else 0))
    o = T.add(rw, T.floordiv(rw, span, s), 1)
    if not ceil_mode:
        return o
    if isinstance(o, int) and isinstance(i, int):
        return o - 1 if (o - 1) * s >= i + p else o
    o, last, bound = (
        T.to_index(rw, v) for v in (o, T.mul(rw, T.sub(rw, o, 1), s), T.add(rw, i, p))
    )
    with rw.at():
        starts_in_pad = arith.cmpi(CMPI.sge, last, bound)
        return arith.select(starts_in_pad, arith.subi(o, rw._index(1)), o)


def check_pool_params(sizes, kernel, stride, padding, dilation, ceil_mode, n: int) -> None:
    """ATen's `pool2d_shape_check` / `pooling_output_shape` checks (eager raises on them; the
    lowering would read windows of no element or out of the padding): a ValueError the lowering
    pass reports at the op's location."""
    for name, values in (("kernel_size", kernel), ("stride", stride), ("padding", padding)):
        if len(values) != n:
            raise ValueError(f"{name} must have {n} elements (or one), got {list(values)}")
    if len(dilation) != n:
        raise ValueError(f"dilation must have {n} elements (or one), got {list(dilation)}")
    if any(k <= 0 for k in kernel):
        raise ValueError(f"kernel size should be greater than zero, but got {list(kernel)}")
    if any(s <= 0 for s in stride):
        raise ValueError(f"stride should be greater than zero, but got {list(stride)}")
    if any(d <= 0 for d in dilation):
        raise ValueError(f"dilation should be greater than zero, but got {list(dilation)}")
    for i, k, s, p, d in zip(sizes, kernel, stride, padding, dilation):
        _check_pool_dim(i, k, s, p, d, ceil_mode)


def _check_pool_dim(i, k: int, s: int, p: int, d: int, ceil_mode: bool) -> None:
    if p < 0:
        raise ValueError(f"pad must be non-negative, but got pad: {p}")
    if p > k // 2 or p > ((k - 1) * d + 1) // 2:
        raise ValueError(
            f"pad should be at most half of kernel size, but got pad={p}, "
            f"kernel_size={k} and dilation={d}"
        )
    if not isinstance(i, int):
        return  # a dynamic size: the window fits or not at run time
    o = (i + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (o - 1) * s >= i + p:
        o -= 1
    if o < 1:
        raise ValueError(
            f"input size {i} (padding {p}) is smaller than the window "
            f"(kernel_size={k}, dilation={d}): output size {o} is too small"
        )


class Windows:
    """The geometry of a pooling op on `x` [lead..., I...] with `n` spatial dims; the output
    sizes `out` are the op's result sizes unless given (backward ops pass grad_output's)."""

    def __init__(self, rw, x, n, kernel, stride, padding, dilation, ceil_mode, out=None):
        self.n, self.lead = n, tensor_type(x).rank - n
        self.k = expand_list(kernel, n)
        self.s = expand_list(stride, n, self.k)
        self.p = expand_list(padding, n, [0])
        self.d = expand_list(dilation, n, [1])
        self.sizes = rw.sizes(x)
        self.i = self.sizes[self.lead :]
        check_pool_params(self.i, self.k, self.s, self.p, self.d, ceil_mode, n)

        def size(dm):
            if dm < self.lead:
                return self.sizes[dm]
            j = dm - self.lead
            return pool_out_size(
                rw, self.i[j], self.k[j], self.s[j], self.p[j], self.d[j], ceil_mode
            )

        self.out = out if out is not None else T.result_sizes(rw, 0, size)
        self.o = self.out[self.lead :]

    def padded(self, rw, x, value):
        """`x` padded so that every window of every output is in bounds."""
        high = []
        for o, i, k, s, p, d in zip(self.o, self.i, self.k, self.s, self.p, self.d):
            reach = T.add(rw, T.mul(rw, T.sub(rw, o, 1), s), d * (k - 1) + 1)
            high.append(T.smax(rw, p, T.sub(rw, T.sub(rw, reach, i), p)))
        return T.pad(rw, x, [0] * self.lead + self.p, [0] * self.lead + high, value)

    def read_map(self):
        """(lead, o, k) -> the padded input position o*s + k*d."""
        total = self.lead + 2 * self.n
        exprs = [T.dim(j) for j in range(self.lead)]
        for j in range(self.n):
            o, k = T.dim(self.lead + j), T.dim(self.lead + self.n + j)
            exprs.append(o * self.s[j] + k * self.d[j])
        return T.amap(total, exprs)

    def positions(self, idx):
        """(input positions, all-in-bounds i1) of a window element (inside a body)."""
        pos, valid = [], None
        for j in range(self.n):
            o, k = idx[self.lead + j], idx[self.lead + self.n + j]
            q = arith.subi(
                arith.addi(arith.muli(o, T.icst(self.s[j])), arith.muli(k, T.icst(self.d[j]))),
                T.icst(self.p[j]),
            )
            inside = arith.andi(
                arith.cmpi(CMPI.sge, q, T.icst(0)), arith.cmpi(CMPI.slt, q, T.ival(self.i[j]))
            )
            valid = inside if valid is None else arith.andi(valid, inside)
            pos.append(q)
        return pos, valid

    def flat(self, pos):
        """The index of `pos` in the flattened spatial input (torch's max-pool indices)."""
        out = pos[0]
        for j in range(1, self.n):
            out = arith.addi(arith.muli(out, T.ival(self.i[j])), pos[j])
        return out


def all_windows_full(w: Windows, count_include_pad: bool) -> bool:
    """Whether every window counts k elements (statically): then the divisor is a constant."""
    for o, i, k, s, p in zip(w.o, w.i, w.k, w.s, w.p):
        if not (isinstance(o, int) and isinstance(i, int)):
            return False
        if (p and not count_include_pad) or (o - 1) * s - p + k > i + p:
            return False
    return True


def avg_divisor(w: Windows, idx, count_include_pad: bool, divisor_override, t: ir.Type):
    """The divisor of the window of output `idx` (torch's avg_pool rule), as a scalar of `t`."""
    i64 = ir.IntegerType.get_signless(64)
    if divisor_override:
        return convert(arith.constant(i64, divisor_override), t)
    if all_windows_full(w, count_include_pad):
        full = 1
        for k in w.k:
            full *= k
        return convert(arith.constant(i64, full), t)
    count = None
    for j in range(w.n):
        start = arith.subi(arith.muli(idx[w.lead + j], T.icst(w.s[j])), T.icst(w.p[j]))
        end = arith.minsi(
            arith.addi(start, T.icst(w.k[j])), arith.addi(T.ival(w.i[j]), T.icst(w.p[j]))
        )
        if not count_include_pad:
            start = arith.maxsi(start, T.icst(0))
            end = arith.minsi(end, T.ival(w.i[j]))
        size = arith.subi(end, start)
        count = size if count is None else arith.muli(count, size)
    return convert(arith.index_cast(ir.IntegerType.get_signless(64), count), t)


# Adaptive pools: output o along a dim of input size i and output size out covers
# [floor(o*i/out), ceil((o+1)*i/out)).
def adaptive_start(o, i, out):
    return arith.divui(arith.muli(o, i), out)


def adaptive_end(o, i, out):
    one = T.icst(1)
    return arith.divui(arith.subi(arith.addi(arith.muli(arith.addi(o, one), i), out), one), out)


def widest_extent(i, o) -> T.Size:
    """The largest window extent (exact when static, a bound otherwise)."""
    if isinstance(i, int) and isinstance(o, int):
        return max((-(-(j + 1) * i // o)) - (j * i // o) for j in range(o)) if o else 1
    return None


def covering_count(i, o) -> T.Size:
    """The most windows one input element lies in (exact when static, a bound otherwise)."""
    if not (isinstance(i, int) and isinstance(o, int)):
        return None
    counts = [0] * max(i, 1)
    for j in range(o):
        for h in range(j * i // o, -(-(j + 1) * i // o)):
            counts[h] += 1
    return max(counts)


def adaptive_extents(rw, big, small, exact=widest_extent):
    """Per dim: how many elements of size `big` one element of size `small` can relate to."""
    out = []
    for b, s in zip(big, small):
        w = exact(b, s)
        out.append(w if w is not None else T.add(rw, T.ceildiv(rw, b, s), 1))
    return out


def divide_by_extents(v, starts, ends):
    for s, e in zip(starts, ends):
        count = arith.index_cast(ir.IntegerType.get_signless(64), arith.subi(e, s))
        v = arith.divf(v, convert(count, v.type))
    return v
