"""Core aten -> linalg on tensors: the lowering table and the `convert-aten-to-linalg` pass."""

from . import (  # noqa: F401  (each family fills LOWERINGS)
    activations,
    complex_ops,
    convolution,
    creation,
    distance,
    elementwise,
    embedding,
    fft,
    indexing,
    lower_pass,
    matmul,
    normalization,
    padding,
    pooling,
    random,
    reductions,
    rnn,
    scalars,
    scatter,
    shapes,
    sorting,
    unary,
    upsample,
    views,
)
from .registry import LOWERINGS, register_lowering

__all__ = ["LOWERINGS", "register_lowering"]
