"""Matrix products -> `linalg.matmul` / `linalg.batch_matmul` on a zero-filled accumulator.

Reduced floats (f16/bf16) accumulate in f32 and round once on the output, as ATen's CPU gemm does;
integers accumulate in their own type (wrapping, as torch does).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg

from .builder import LoweringRewriter, elem, is_float
from .elementwise_core import elementwise, is_unsigned
from .registry import register_lowering


def acc_type(t: ir.Type) -> ir.Type:
    """The accumulator element type of a product with result element type `t`."""
    if isinstance(t, (ir.F16Type, ir.BF16Type)):
        return ir.F32Type.get(t.context)
    return t


def _with_elem(t: ir.RankedTensorType, e: ir.Type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(t.shape, e, loc=ir.Location.unknown(t.context))


def _unsupported(rw: LoweringRewriter) -> bool:
    """Unsigned, complex and bool element types (torch's CPU gemm rejects bool)."""
    for v in (*rw.op.results, *rw.op.operands):
        e = elem(v)
        if is_unsigned(e) or not (is_float(e) or isinstance(e, ir.IntegerType)):
            return True
        if isinstance(e, ir.IntegerType) and ir.IntegerType(e).width == 1:
            return True
    return False


def product(rw: LoweringRewriter, a: ir.Value, b: ir.Value, batched: bool) -> ir.Value:
    """`a @ b` (rank 2, or rank 3 when `batched`) in the accumulator type of the result."""
    result = rw.result_type()
    acc = _with_elem(result, acc_type(result.element_type))
    if batched:
        sizes = [rw.size(a, 0), rw.size(a, 1), rw.size(b, 2)]
    else:
        sizes = [rw.size(a, 0), rw.size(b, 1)]
    init = rw.full(acc, sizes, 0)
    with rw.at():
        if batched:
            return linalg.batch_matmul(a, b, outs=[init])
        return linalg.matmul(a, b, outs=[init])


def _round(rw: LoweringRewriter, acc: ir.Value) -> ir.Value:
    if acc.type == rw.result_type():
        return acc
    return elementwise(rw, [acc], lambda x: x)


@register_lowering("aten.mm")
def lower_mm(op, rw):
    """aten.mm -> linalg.matmul, linalg.fill"""
    a, b = rw.args["self"], rw.args["mat2"]
    if _unsupported(rw):
        return None
    return _round(rw, product(rw, a, b, batched=False))


@register_lowering("aten.bmm")
def lower_bmm(op, rw):
    """aten.bmm -> linalg.batch_matmul, linalg.fill"""
    a, b = rw.args["self"], rw.args["mat2"]
    if _unsupported(rw):
        return None
    return _round(rw, product(rw, a, b, batched=True))


@register_lowering("aten.addmm")
def lower_addmm(op, rw):
    """aten.addmm -> linalg.matmul, linalg.generic(beta * self + alpha * product)"""
    a = rw.args
    self_, m1, m2 = a["self"], a["mat1"], a["mat2"]
    beta, alpha = a.get("beta", 1), a.get("alpha", 1)
    if _unsupported(rw) or any(isinstance(s, complex) for s in (beta, alpha)):
        return None
    prod = product(rw, m1, m2, batched=False)
    floating = is_float(rw.result_type().element_type)

    def scaled(x, s):
        if s == 1:
            return x
        c = arith.constant(x.type, float(s) if floating else int(s))
        return arith.mulf(x, c) if floating else arith.muli(x, c)

    def add(x, y):
        return arith.addf(x, y) if floating else arith.addi(x, y)

    if beta == 0:  # torch ignores `self` then (its NaNs and infs do not propagate)
        if alpha == 1:
            return _round(rw, prod)
        return elementwise(rw, [prod], lambda p: scaled(p, alpha))
    return elementwise(rw, [prod, self_], lambda p, s: add(scaled(s, beta), scaled(p, alpha)))
