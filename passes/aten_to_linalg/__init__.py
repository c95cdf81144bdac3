"""Core aten -> linalg on tensors: the lowering table and the `convert-aten-to-linalg` pass."""

from . import elementwise, lower_pass  # noqa: F401  (fills LOWERINGS, registers the pass)
from .registry import LOWERINGS, register_lowering

__all__ = ["LOWERINGS", "register_lowering"]
