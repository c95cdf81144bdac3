"""Scalar ops as emitted into kernels (`backends/triton/codegen/ops.py`)."""

import torch

import aten_mlir


class Var(torch.nn.Module):
    def forward(self, x):
        return torch.ops.aten.var.correction(x, [1], correction=0)


def test_a_helper_takes_a_scalar_kernel_argument():
    # with dynamic sizes the divisor max(n - correction, 0) is computed on the host and passed
    # in: a plain number in the interpreter, which H.maximum_nan must still take
    x = torch.randn(3, 4, 5)
    dims = {d: torch.export.Dim(f"d{d}", min=2) for d in range(3)}
    ep = torch.export.export(Var(), (x,), dynamic_shapes=(dims,))
    compiled = aten_mlir.compile(ep, target="triton")
    assert "H.maximum_nan(tl.full([], " in compiled.library.source
    for shape in [(3, 4, 5), (2, 7, 3)]:
        y = torch.randn(shape)
        torch.testing.assert_close(compiled(y), Var()(y))
