"""`aten.einsum` -> core aten, as ATen's own einsum computes it: repeated subscripts of one
operand become `aten.diagonal`, subscripts only one operand has (and the output lacks) are summed
first, and operands are contracted pairwise (left to right, or along `path`) with `aten.bmm`
after a permute and reshape to (batch, kept, contracted), or multiplied when nothing is
contracted (ATen's `sumproduct_pair`).

Subscripts are ints: a letter's code point, or -1, -2, ... for the dims an ellipsis covers,
counted from the right so that ellipses of different ranks broadcast.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .common import dtype, to_dtype
from .registry import register_decomposition
from .views import aten_sized, broadcast_size, permute, rank, reshape, result_type

ELLIPSIS = "..."


def _parse_term(term: str, n: int) -> list[int]:
    """The subscripts of an operand of rank n."""
    if ELLIPSIS not in term:
        return [ord(c) for c in term]
    left, right = term.split(ELLIPSIS)
    covered = n - len(left) - len(right)
    return [ord(c) for c in left] + list(range(-covered, 0)) + [ord(c) for c in right]


def parse_equation(equation: str, ranks: list[int]) -> tuple[list[list[int]], list[int]]:
    """(subscripts of each operand, subscripts of the output)."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    inputs = [_parse_term(t, n) for t, n in zip(lhs.split(","), ranks)]
    ellipsis = max((-min(s, default=0) for s in inputs), default=0)
    if arrow:
        out_ellipsis = list(range(-ellipsis, 0))
        left, _, right = rhs.partition(ELLIPSIS)
        output = [ord(c) for c in left]
        if ELLIPSIS in rhs:
            output += out_ellipsis + [ord(c) for c in right]
        return inputs, output
    letters = [s for subs in inputs for s in subs if s >= 0]
    once = sorted(s for s in set(letters) if letters.count(s) == 1)
    return inputs, list(range(-ellipsis, 0)) + once


class _Operand:
    def __init__(self, value, subscripts):
        self.value, self.subscripts = value, list(subscripts)


def _take_diagonals(rewriter, x: _Operand) -> None:
    """A subscript repeated within one operand: `aten.diagonal` (appends the dim at the end)."""
    while True:
        repeated = next((s for s in x.subscripts if x.subscripts.count(s) > 1), None)
        if repeated is None:
            return
        p = x.subscripts.index(repeated)
        q = x.subscripts.index(repeated, p + 1)
        x.value = rewriter.aten("aten.diagonal", x.value, 0, p, q)
        x.subscripts = [s for i, s in enumerate(x.subscripts) if i not in (p, q)] + [repeated]


def _sum_out(rewriter, x: _Operand, keep: set[int]) -> None:
    dims = [d for d, s in enumerate(x.subscripts) if s not in keep]
    if dims:
        x.value = rewriter.aten("aten.sum.dim_IntList", x.value, dims, False, dtype=dtype(x.value))
        x.subscripts = [s for s in x.subscripts if s in keep]


def _aligned(rewriter, x: _Operand, order: list[int]):
    """x permuted to `order`, with unit dims for the subscripts it lacks."""
    value = x.value
    dims = [x.subscripts.index(s) for s in order if s in x.subscripts]
    if dims != list(range(len(dims))):
        value = permute(rewriter, value, dims)
    for d, s in enumerate(order):
        if s not in x.subscripts:
            value = rewriter.aten("aten.unsqueeze", value, d)
    return value


def _expanded(rewriter, x: _Operand, order: list[int], sizes: dict):
    """x permuted to `order` (all its own subscripts), unit dims broadcast to `sizes`."""
    value = _aligned(rewriter, x, order)
    own = ir.RankedTensorType(value.type)
    grow = [
        own.get_dim_size(d) == 1 and not (isinstance(sizes[s], int) and sizes[s] == 1)
        for d, s in enumerate(order)
    ]
    if not any(grow):
        return value
    shape = [
        sizes[s] if g else rewriter.size(value, d) for d, (s, g) in enumerate(zip(order, grow))
    ]
    return aten_sized(rewriter, "aten.expand", value, shape, sizes=shape, elem=dtype(value))


def _product(rewriter, sizes: list):
    out = 1
    for s in sizes:
        out = rewriter.index_arith(arith.MulIOp, out, s)
    return out


def _contract(rewriter, a: _Operand, b: _Operand, keep: set[int]) -> _Operand:
    """ATen's `sumproduct_pair`: `aten.mul.Tensor` when nothing is summed, else a `aten.bmm` of
    (batch, a-only, summed) by (batch, summed, b-only)."""
    _sum_out(rewriter, a, keep | set(b.subscripts))
    _sum_out(rewriter, b, keep | set(a.subscripts))
    sizes = {}
    for x in (a, b):
        for d, s in enumerate(x.subscripts):
            sizes.setdefault(s, []).append(rewriter.size(x.value, d))
    sizes = {s: broadcast_size(rewriter, v) for s, v in sizes.items()}
    shared = [s for s in a.subscripts if s in b.subscripts]
    summed = [s for s in shared if s not in keep]
    batch = [s for s in shared if s in keep]
    a_only = [s for s in a.subscripts if s not in b.subscripts]
    b_only = [s for s in b.subscripts if s not in a.subscripts]
    if not summed:
        order = batch + a_only + b_only
        left, right = (_aligned(rewriter, x, order) for x in (a, b))
        return _Operand(rewriter.aten("aten.mul.Tensor", left, right), order)
    left = _expanded(rewriter, a, batch + a_only + summed, sizes)
    right = _expanded(rewriter, b, batch + summed + b_only, sizes)
    nb, m, k, n = (
        _product(rewriter, [sizes[s] for s in g]) for g in (batch, a_only, summed, b_only)
    )
    left = reshape(rewriter, left, [nb, m, k])
    right = reshape(rewriter, right, [nb, k, n])
    out = rewriter.aten("aten.bmm", left, right)
    shape = [sizes[s] for s in batch + a_only + b_only]
    return _Operand(reshape(rewriter, out, shape), batch + a_only + b_only)


def _contraction_order(count: int, path) -> list[tuple[int, int]]:
    """Pairs of positions in the shrinking operand list: `path` as opt_einsum writes it (the
    result goes to the end), else left to right (the result stays in front)."""
    if path:
        return [(path[i], path[i + 1]) for i in range(0, len(path), 2)]
    return [(0, 1)] * (count - 1)


@register_decomposition("aten.einsum")
def decompose_einsum(op, rewriter):
    """aten.einsum -> aten.diagonal, aten.sum.dim_IntList, aten.permute, aten.unsqueeze,
    aten.expand, aten.clone, aten.view, aten.bmm, aten.mul.Tensor, aten._to_copy"""
    tensors, path = rewriter.args["tensors"], rewriter.args["path"]
    inputs, output = parse_equation(rewriter.args["equation"], [rank(t) for t in tensors])
    operands = [_Operand(t, s) for t, s in zip(tensors, inputs)]
    for x in operands:
        _take_diagonals(rewriter, x)
    for i, x in enumerate(operands):
        others = {s for j, y in enumerate(operands) if j != i for s in y.subscripts}
        _sum_out(rewriter, x, set(output) | others)
    for i, j in _contraction_order(len(operands), path):
        a, b = operands[i], operands[j]
        rest = [x for k, x in enumerate(operands) if k not in (i, j)]
        keep = set(output) | {s for x in rest for s in x.subscripts}
        out = _contract(rewriter, a, b, keep)
        operands = rest + [out] if path else [out] + rest
    (x,) = operands
    _sum_out(rewriter, x, set(output))
    value = x.value
    dims = [x.subscripts.index(s) for s in output]
    if dims != list(range(len(dims))):
        value = permute(rewriter, value, dims)
    value = to_dtype(rewriter, value, dtype(op.results[0]))
    if value.type != op.results[0].type:
        value = reshape(rewriter, value, rewriter.sizes(value), results=result_type(op))
    return value
