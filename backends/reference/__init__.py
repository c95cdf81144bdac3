"""The reference backend: runs aten IR with eager ATen kernels (the oracle for every stage)."""

from .interpreter import REFERENCE_KERNELS, ReferenceError, reference_kernel, run_reference

__all__ = ["REFERENCE_KERNELS", "ReferenceError", "reference_kernel", "run_reference"]
