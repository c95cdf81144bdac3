"""Operand indices that are sums of loop dims (`ow * 2 + kw`: a convolution's window copy) in
`cpu-vectorize-generics`, and the vector read of a row whose last index steps the lane dim by a
small constant stride.

A strided read of `width` lanes at stride s loads s contiguous chunks of `width` elements and
keeps every s-th element with `vector.shuffle`s (two chunks and one even-lane shuffle for s = 2:
a `vpermt2ps` on AVX-512) instead of `width` scalar loads. It never reads past the last element
the scalar loop reads (base + s * (count - 1)): the last chunk's s - 1 trailing elements are
masked off, and a masked step (the row's end) reads only the elements of its live lanes.

An index `d floordiv s` (s = 2 or 4) of the lane dim d spreads each element over s lanes (a
2x2/2 max pool's backward reads grad_output at [h / 2, w / 2] for gradient element [h, w]): one
load of width / s elements and a one-input shuffle [0, 0, 1, 1, ...]. Lane steps start at
multiples of their width (the main loop's and the tail's, `lane_tail.plan_tail`), and widths
and s are powers of two, so a step's first lane starts a group of s (or, narrower than s, all
its lanes are in one group).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, vector

# Largest lane stride read as contiguous chunks: stride s loads s times the lanes it keeps.
MAX_LANE_STRIDE = 4


@dataclass(frozen=True)
class Sum:
    """A memref index `sum(coefficient * loop dim) + constant` other than one plain dim, or
    that floordiv a constant `divisor`."""

    terms: tuple[tuple[int, int], ...]  # (loop dim, coefficient != 0), by dim
    constant: int = 0
    divisor: int = 1  # > 1: the sum floordiv this

    def coefficient(self, d: int) -> int:
        return dict(self.terms).get(d, 0) if self.divisor == 1 else 0


class Spread(int):
    """The lane stride of `d floordiv s`: s lanes read each element. Its int value is s (> 1, so
    a caller routes it to `strided_load` like a stride), the type says the direction."""


# The spreads read as one load and one shuffle (widths are powers of two).
SPREADS = (2, 4)


def parse_index(e: ir.AffineExpr) -> int | str | Sum | None:
    """A loop dim (int), a constant (str), a linear Sum, or None (a non-linear expression)."""
    if isinstance(e, ir.AffineDimExpr):
        return e.position
    if isinstance(e, ir.AffineConstantExpr):
        return str(e.value)
    divisor = 1
    if isinstance(e, ir.AffineFloorDivExpr) and isinstance(e.rhs, ir.AffineConstantExpr):
        divisor, e = e.rhs.value, e.lhs
        if divisor <= 0:
            return None
    linear = _linear(e)
    if linear is None:
        return None
    coefficients, constant = linear
    terms = tuple(sorted((d, c) for d, c in coefficients.items() if c))
    if divisor > 1 and not terms:
        return str(constant // divisor)
    return Sum(terms, constant, divisor)


def _linear(e: ir.AffineExpr) -> tuple[dict[int, int], int] | None:
    if isinstance(e, ir.AffineDimExpr):
        return {e.position: 1}, 0
    if isinstance(e, ir.AffineConstantExpr):
        return {}, e.value
    if isinstance(e, ir.AffineAddExpr):
        a, b = _linear(e.lhs), _linear(e.rhs)
        if a is None or b is None:
            return None
        out = dict(a[0])
        for d, c in b[0].items():
            out[d] = out.get(d, 0) + c
        return out, a[1] + b[1]
    if isinstance(e, ir.AffineMulExpr):
        a, b = _linear(e.lhs), _linear(e.rhs)
        if a is None or b is None:
            return None
        if a[0] and b[0]:
            return None  # a product of dims
        (terms, constant), k = (a, b[1]) if not b[0] else (b, a[1])
        return {d: c * k for d, c in terms.items()}, constant * k
    return None


def dims_of(index) -> tuple[int, ...]:
    if isinstance(index, int):
        return (index,)
    if isinstance(index, Sum):
        return tuple(d for d, _ in index.terms)
    return ()


def uses(indices, d: int) -> int:
    """How many of an operand's indices involve loop dim `d`."""
    return sum(d in dims_of(i) for i in indices)


def lane_stride(index, d: int) -> int:
    """The stride in elements at which `index` steps with loop dim `d` (the lane dim) when it is
    `d` or a Sum with `d` at a coefficient 1..MAX_LANE_STRIDE; a Spread for `d floordiv s`
    (s in SPREADS); else 0."""
    if index == d:
        return 1
    if isinstance(index, Sum) and index.divisor > 1:
        plain = index.terms == ((d, 1),) and index.constant == 0
        return Spread(index.divisor) if plain and index.divisor in SPREADS else 0
    if isinstance(index, Sum):
        c = index.coefficient(d)
        return c if 0 < c <= MAX_LANE_STRIDE else 0
    return 0


def index_value(index, ivs: dict) -> ir.Value:
    """`index` at the loop values `ivs` (loop dim -> index value)."""
    if isinstance(index, str):
        return _const(int(index))
    if isinstance(index, int):
        return ivs[index]
    total = _const(index.constant) if index.constant else None
    for d, c in index.terms:
        term = ivs[d] if c == 1 else arith.muli(ivs[d], _const(c))
        total = term if total is None else arith.addi(total, term)
    total = total if total is not None else _const(0)
    return arith.floordivsi(total, _const(index.divisor)) if index.divisor > 1 else total


def strided_load(base: ir.Value, indices: list, stride: int, width: int, mask) -> ir.Value:
    """`width` lanes: lane j reads base[..., last + stride * j]; `mask` (or None: all lanes)
    says which lanes are live. Only elements the live lanes read are touched."""
    t = ir.VectorType.get([width], ir.MemRefType(base.type).element_type)
    if isinstance(stride, Spread):
        return _spread_load(base, indices, stride, width, mask)
    *lead, last = indices
    chunks = []
    for k in range(stride):
        at = [*lead, last if k == 0 else arith.addi(last, _const(k * width))]
        chunk_mask = _chunk_mask(k, stride, width, mask)
        if chunk_mask is None:
            chunks.append(vector.load(t, base, at))
        else:
            zeros = arith.constant(t, ir.DenseElementsAttr.get_splat(t, _zero(t.element_type)))
            chunks.append(vector.maskedload(t, base, at, chunk_mask, zeros))
    if stride == 1:
        return chunks[0]
    joined = chunks[0]
    for chunk in chunks[1:-1]:  # one vector of all but the last chunk
        size = ir.VectorType(joined.type).shape[0]
        joined = vector.shuffle(joined, chunk, list(range(size + width)))
    return vector.shuffle(joined, chunks[-1], [stride * j for j in range(width)])


def _spread_load(base: ir.Value, indices: list, s: int, width: int, mask) -> ir.Value:
    """Lane j of a step starting at element `indices[-1]` (its first lane's) reads element
    j // s after it (width >= s: the step starts a group of s), or that element (width < s: the
    step lies in one group). Only the elements of live lanes are loaded."""
    t = ir.VectorType.get([width], ir.MemRefType(base.type).element_type)
    i1 = ir.VectorType.get([width], ir.IntegerType.get_signless(1))
    count = max(width // s, 1)  # elements the step reads
    picks = [j // s for j in range(width)] if width >= s else [0] * width
    if mask is None:
        element_mask = vector.constant_mask(i1, [count])
    else:  # element e is read by lane e * s (the first of its group)
        false = arith.constant(i1, ir.DenseElementsAttr.get_splat(i1, ir.BoolAttr.get(False)))
        element_mask = vector.shuffle(
            mask, false, [e * s if e < count else width for e in range(width)]
        )
    zeros = arith.constant(t, ir.DenseElementsAttr.get_splat(t, _zero(t.element_type)))
    elements = vector.maskedload(t, base, indices, element_mask, zeros)
    return vector.shuffle(elements, elements, picks)


def _chunk_mask(k: int, stride: int, width: int, mask):
    """Chunk k's mask over its `width` elements (element e = k * width + i of the row): only
    e = stride * j of a live lane j. None when every element may be read."""
    i1 = ir.VectorType.get([width], ir.IntegerType.get_signless(1))
    if stride == 1:
        return mask
    if mask is None:
        if k < stride - 1:
            return None
        # the last lane reads element stride * (width - 1), the last chunk's element
        # width - stride: the stride - 1 elements after it are no lane's (maybe past the row)
        return vector.constant_mask(i1, [width - stride + 1])
    false = arith.constant(i1, ir.DenseElementsAttr.get_splat(i1, ir.BoolAttr.get(False)))
    picks = []
    for i in range(width):
        e = k * width + i
        picks.append(e // stride if e % stride == 0 else width)  # lane e / s, or false
    return vector.shuffle(mask, false, picks)


def _const(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _zero(t: ir.Type) -> ir.Attribute:
    return ir.FloatAttr.get(t, 0.0) if isinstance(t, ir.FloatType) else ir.IntegerAttr.get(t, 0)
