"""Triton tests run the kernels in Triton's interpreter on CPU tensors when no GPU is present
(always, here); the interpreter is switched on before any kernel module is defined."""

import triton

from aten_mlir.backends.triton.launch import interpreting

if interpreting():
    triton.knobs.runtime.interpret = True
