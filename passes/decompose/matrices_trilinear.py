"""`aten._trilinear` (the forward of `nn.Bilinear` / `F.bilinear`, and of their input and weight
gradients) -> `aten.einsum`, which the einsum rule turns into `aten.bmm` / `aten.mul.Tensor`
and `aten.sum.dim_IntList` after permutes and views.

ATen's `_trilinear` (Linear.cpp) unsqueezes each operand at its `expand` dims, so that all three
have `len(i1.shape) + len(expand1)` dims, and sums `i1 * i2 * i3` over `sumdim`, contracting i1
with i2 first and the result with i3 (`sumproduct_pair`, the same bmm-or-mul pairing the einsum
rule mirrors); `unroll_dim` only chooses the dim its loop walks, not the result. As an einsum,
each dim is a subscript, an operand lacks the subscripts of its expanded dims, and the output
lacks the summed ones.
"""

from __future__ import annotations

from .registry import register_decomposition
from .views import rank, result_type


def _subscript(dim: int) -> str:
    return chr(ord("a") + dim) if dim < 26 else chr(ord("A") + dim - 26)


@register_decomposition("aten._trilinear")
def decompose_trilinear(op, rewriter):
    """aten._trilinear -> aten.einsum (operands left to right: i1 with i2, then with i3).
    Precondition: every kept dim is present in some operand (ATen gives such a dim size 0)."""
    a = rewriter.args
    operands = [a["i1"], a["i2"], a["i3"]]
    total = rank(a["i1"]) + len(a["expand1"])
    if total > 52:
        return None
    expands = [{d % total for d in a[k]} for k in ("expand1", "expand2", "expand3")]
    summed = {d % total for d in a["sumdim"]}
    if any(rank(x) + len(e) != total for x, e in zip(operands, expands)):
        return None
    if any(d not in summed and all(d in e for e in expands) for d in range(total)):
        return None
    terms = ["".join(_subscript(d) for d in range(total) if d not in e) for e in expands]
    output = "".join(_subscript(d) for d in range(total) if d not in summed)
    equation = ",".join(terms) + "->" + output
    return rewriter.aten("aten.einsum", equation, operands, results=result_type(op))
