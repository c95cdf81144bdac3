"""Running Triton targets from tests outside tests/backends/triton (whose conftest does this)."""

from __future__ import annotations

import pytest


@pytest.fixture
def triton_interpreter():
    """Triton kernels in the interpreter when no GPU is present; switched on before any kernel
    module is defined."""
    import triton

    from aten_mlir.backends.triton.launch import interpreting

    if interpreting():
        triton.knobs.runtime.interpret = True
