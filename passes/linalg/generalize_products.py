"""`aten-generalize-products`: `linalg.matmul` / `linalg.batch_matmul` on tensors of one float
type, or of bf16/f16 inputs into an f32 accumulator (`out + extf(a) * extf(b)`) -> the
equivalent `linalg.generic`, so that transposed operands fold into its
maps (`aten-fold-transposes`) and a fused prologue can be split out of it. `NAMED_PRODUCTS` (the
operand dims of each named product) is read by the CPU contraction kernels too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from ..ir import nested_ops
from ..registry import ModulePass, register_pass
from .generics import indexing_maps, map_dims, rebuild_product

# (A, B, C) dims of the named products over (m, n, k) / (b, m, n, k).
NAMED_PRODUCTS = {
    "linalg.matmul": ((0, 2), (2, 1), (0, 1)),
    "linalg.batch_matmul": ((0, 1, 3), (0, 3, 2), (0, 1, 2)),
}


@register_pass
@dataclass(frozen=True)
class GeneralizeProducts(ModulePass):
    """Rewrites linalg.matmul / batch_matmul on tensors of one float type as the equivalent
    `out + a * b` linalg.generic, so transposed operands fold into its maps."""

    name: ClassVar[str] = "aten-generalize-products"

    def run(self, module_op: ir.Operation) -> None:
        products = [op for op in nested_ops(module_op) if _plain_product(op)]
        with module_op.context:
            for op in products:
                if "indexing_maps" in op.attributes:
                    maps = indexing_maps(op)
                else:
                    dims = NAMED_PRODUCTS[op.name]
                    n = len(dims[2]) + 1
                    maps = [
                        ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in m]) for m in dims
                    ]
                reduced = set(range(maps[2].n_dims)) - set(map_dims(maps[2]) or ())
                iters = ["reduction" if d in reduced else "parallel" for d in range(maps[2].n_dims)]
                rebuild_product(op, list(op.operands[:2]), maps[:2], maps[2], iters)


def _plain_product(op: ir.Operation) -> bool:
    """A named product on tensors of one float element type, or with both inputs of one
    narrower float type (bf16/f16) widened into an f32 accumulator."""
    if op.name not in NAMED_PRODUCTS:
        return False
    if len(op.results) != 1 or not isinstance(op.results[0].type, ir.RankedTensorType):
        return False
    element = ir.RankedTensorType(op.results[0].type).element_type
    if not isinstance(element, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)):
        return False
    a, b, out = (ir.ShapedType(v.type).element_type for v in op.operands)
    if out != element or a != b:
        return False
    return a == element or (
        isinstance(a, (ir.F16Type, ir.BF16Type)) and isinstance(element, ir.F32Type)
    )
