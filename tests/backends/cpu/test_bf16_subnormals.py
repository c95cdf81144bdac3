"""bf16 subnormals survive compiled CPU code: llc lowers f32 -> bf16 truncation to
vcvtneps2bf16 on CPUs with AVX512-BF16, which flushes them to zero (eager keeps them; a later
`0 * inf` then gave NaN where eager gives inf). The llvm stage expands bf16 conversions into
integer ops instead (arith-expand{include-bf16=true}), and computes arith on bf16 values in f32
first (arith-emulate-unsupported-floats): a scalar bf16 max was widened and narrowed by llc."""

import pytest
import torch
from torch.export import Dim

import aten_mlir
from tests.modules import Fn

SUBNORMALS = torch.tensor([[1e-40], [2.9387e-39], [-5e-39], [3.0]]).bfloat16()


@pytest.mark.parametrize(
    "name, fn",
    [
        ("add", lambda x: x + 0),
        ("mul", lambda x: x * 1.5),
        ("logsumexp", lambda x: torch.logsumexp(x, [1])),
        ("cumprod_after", lambda x: torch.cumprod(torch.logsumexp(x, [1]), 0)),
        ("wide_rows", lambda x: x.expand(4, 37) * 0.75),
    ],
)
@pytest.mark.parametrize("dynamic", [False, True])
def test_bf16_subnormals_are_kept(name, fn, dynamic):
    shapes = (({0: Dim.AUTO},),) if dynamic else None
    ep = torch.export.export(Fn(fn), (SUBNORMALS,), dynamic_shapes=shapes)
    compiled = aten_mlir.compile(ep, cache=False)
    assert torch.equal(compiled(SUBNORMALS), fn(SUBNORMALS))
