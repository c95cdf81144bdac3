"""The Triton backend: segment functions at loop level -> `@triton.jit` kernels and launchers."""

from . import matmul  # noqa: F401  (registers triton-outline-matmul)
from .kernel import KernelError
from .library import TritonLibrary, build

__all__ = ["KernelError", "TritonLibrary", "build"]
