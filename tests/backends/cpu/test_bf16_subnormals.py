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


# extrema narrow exactly (cpu-exact-bf16-extrema): subnormals, NaN and inf pass through a
# strided max pool's scalar window loop, an amax, a clamp unchanged
POOLED = torch.tensor(
    [1e-40, -2.9e-39, -0.0, 0.0, float("nan"), 3.0, -float("inf"), 5e-39, -1e-40] * 12
).reshape(1, 4, 3, 9)


@pytest.mark.parametrize(
    "name, fn",
    [
        ("max_pool", lambda x: torch.nn.functional.max_pool2d(x, 3, 2, 1)),
        ("neg_max_pool", lambda x: -torch.nn.functional.max_pool2d(-x, 2, 1)),
        ("amax", lambda x: torch.amax(x, [1, 3])),
        ("maximum", lambda x: torch.maximum(x, x.flip(-1))),
        ("clamp", lambda x: torch.clamp(x, min=-1e-39, max=2e-40)),
    ],
)
@pytest.mark.parametrize("dynamic", [False, True])
def test_bf16_extrema_are_exact(name, fn, dynamic):
    x = POOLED.bfloat16()
    shapes = (({2: Dim.AUTO, 3: Dim.AUTO},),) if dynamic else None
    ep = torch.export.export(Fn(fn), (x,), dynamic_shapes=shapes)
    compiled = aten_mlir.compile(ep, cache=False)
    # exact, NaN where eager has one; -0 and +0 equal (eager's pool keeps the first of equal
    # values, maximumf orders -0 below +0)
    torch.testing.assert_close(compiled(x), fn(x), rtol=0, atol=0, equal_nan=True)
