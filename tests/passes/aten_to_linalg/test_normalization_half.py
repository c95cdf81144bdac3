"""Batch and instance norm in f16 match eager bit for bit: ATen's CPU batch norm rounds
its statistics to the parameter type and normalises as fma(x, a, bias - mean * a); instance
norm is batch norm of the (1, N*C, ...) view (torch-mlir's AtenInstanceNormModuleFp16)."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from tests.modules import Fn

F = torch.nn.functional


def _inputs(shape, dtype):
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(*shape, generator=g) * 3 + 5).to(dtype)
    w, b = (torch.randn(shape[1], generator=g).to(dtype) for _ in range(2))
    return x, w, b


NORMS = {
    "batch_norm": lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True, eps=1e-5),
    "batch_norm_no_affine": lambda x, w, b: F.batch_norm(x, None, None, training=True) + b[0],
    "instance_norm": lambda x, w, b: torch.ops.aten.instance_norm(
        x, w, b, None, None, True, 0.0, 1e-5, False
    ),
}


@pytest.mark.parametrize("norm", sorted(NORMS))
@pytest.mark.parametrize("shape", [(2, 5, 33, 17), (1, 2, 1, 3)], ids=["big", "tiny"])
def test_half_norm_matches_eager(norm, shape):
    fn, args = NORMS[norm], _inputs(shape, torch.float16)
    compiled = aten_mlir.compile(torch.export.export(Fn(fn), args))
    torch.testing.assert_close(compiled(*args), fn(*args), atol=0, rtol=0)


def test_instance_norm_module_f16():
    m = torch.nn.InstanceNorm2d(5, affine=True).half()
    with torch.no_grad():
        m.weight.normal_()
        m.bias.normal_()
    x = _inputs((2, 5, 9, 7), torch.float16)[0]
    compiled = aten_mlir.compile(torch.export.export(m, (x,)))
    torch.testing.assert_close(compiled(x), m(x), atol=0, rtol=0)
