"""What the loss rules share: ATen's `apply_loss_reduction` and a per-class weight laid along
the class dim (the helpers of `aten/src/ATen/native/Loss.cpp` and `LossNLL.cpp`)."""

from __future__ import annotations

from mlir import ir

from .common import dtype
from .views import rank

__all__ = [
    "MEAN",
    "NONE",
    "SUM",
    "apply_reduction",
    "class_weight",
    "is_float",
    "rank",
    "zeros_like",
]

# at::Reduction
NONE, MEAN, SUM = 0, 1, 2


def apply_reduction(rewriter, loss: ir.Value, reduction: int) -> ir.Value:
    """ATen's `apply_loss_reduction`: `loss.mean()`, `loss.sum()`, or the loss itself."""
    if reduction == MEAN:
        return rewriter.aten("aten.mean", loss)
    if reduction == SUM:
        return rewriter.aten("aten.sum.dim_IntList", loss, None)
    return loss


def class_weight(rewriter, weight: ir.Value, rank_: int, class_dim: int) -> ir.Value:
    """A `[C]` weight broadcastable against a rank-`rank_` tensor with C at `class_dim` (ATen
    views it as `[1, C, 1, ...]`; leading 1s are implied by broadcasting)."""
    for _ in range(rank_ - class_dim - 1):
        weight = rewriter.aten("aten.unsqueeze", weight, -1)
    return weight


def zeros_like(rewriter, x: ir.Value) -> ir.Value:
    return rewriter.aten("aten.full_like", x, 0)


def is_float(v: ir.Value) -> bool:
    return dtype(v).is_floating_point
