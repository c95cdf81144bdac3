"""The lowering rewriter's result types (passes/aten_to_linalg/builder.py): a rule's result
that is more dynamic than the op's FX type is cast to it, not refused."""

from __future__ import annotations

import pytest
import torch
from mlir import ir

from aten_mlir.passes.aten_to_linalg.builder import _cast_compatible
from aten_mlir.tests.support.dynamo import fresh_dynamo


def test_a_dynamic_recompile_of_a_batch_norm_over_1x1_images_compiles():
    # the recompile makes the image dims `?`; the conv's 1x1 output is specialized by torch,
    # so the batch norm's FX type is ?x8x1x1 while its lowering derives ?x8x?x? from the input
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(5, 8, 3, 2, bias=False), torch.nn.BatchNorm2d(8))
    twin = __import__("copy").deepcopy(model)
    with fresh_dynamo() as counts:
        compiled = torch.compile(model, backend="aten_mlir", options={"fallback": "error"})
        for n, size in ((3, 7), (16, 4), (5, 3)):  # 3x3, then 1x1 outputs
            x = torch.randn(n, 5, size, size)
            got, want = compiled(x), twin(x)
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
            got.square().sum().backward()
            want.square().sum().backward()
        for p, q in zip(model.parameters(), twin.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-4)
        assert counts["op_fallbacks"] == 0


@pytest.mark.parametrize(
    "a, b, ok",
    [
        ("tensor<?x8x?x?xf32>", "tensor<?x8x1x1xf32>", True),
        ("tensor<2x8xf32>", "tensor<?x8xf32>", True),
        ("tensor<2x8xf32>", "tensor<3x8xf32>", False),
        ("tensor<?x8xf32>", "tensor<?x8xf16>", False),
        ("tensor<?x8xf32>", "tensor<?x8x1xf32>", False),
    ],
)
def test_cast_compatible_types(a, b, ok):
    with ir.Context():
        assert _cast_compatible(ir.Type.parse(a), ir.Type.parse(b)) is ok
