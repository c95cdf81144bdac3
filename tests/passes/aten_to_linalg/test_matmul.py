"""mm / bmm / addmm lowerings (linalg.matmul, linalg.batch_matmul) against eager."""

import pytest
import torch

from tests.support.lowering import assert_lowers, assert_module_lowers

NAN, INF = float("nan"), float("inf")


def _floats(*shape, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


@pytest.mark.parametrize("dynamic", [False, True])
def test_mm_bmm_float(dynamic):
    a = _floats(3, 4)
    a[0, 0], a[1, 1], a[2, 2] = NAN, INF, -0.0
    assert_lowers("aten.mm", [a, _floats(4, 5, seed=1)], dynamic=dynamic)
    assert_lowers("aten.bmm", [_floats(2, 3, 4), _floats(2, 4, 5, seed=1)], dynamic=dynamic)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8, torch.float64])
def test_mm_bmm_other_dtypes(dtype):
    a = torch.randint(-9, 9, (2, 3, 4)).to(dtype)
    b = torch.randint(-9, 9, (2, 4, 5)).to(dtype)
    assert_lowers("aten.mm", [a[0], b[0]])
    assert_lowers("aten.bmm", [a, b])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_mm_reduced_floats_accumulate_in_f32(dtype):
    a, b = _floats(8, 64, dtype=dtype), _floats(64, 3, seed=1, dtype=dtype)
    assert_lowers("aten.mm", [a, b], atol=1e-2, rtol=1e-2)
    assert_lowers(
        "aten.addmm", [_floats(3, dtype=dtype), a, b], beta=0.5, alpha=2, atol=2e-2, rtol=2e-2
    )


def test_empty_reduction_and_empty_result():
    assert_lowers("aten.mm", [_floats(3, 0), _floats(0, 4)])
    assert_lowers("aten.mm", [_floats(0, 2), _floats(2, 4)])


@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 3), (0, 1)])
def test_addmm_scales_and_broadcasts(beta, alpha):
    self_ = _floats(5)
    self_[0] = NAN  # beta = 0 must not propagate it
    assert_lowers("aten.addmm", [self_, _floats(3, 4), _floats(4, 5)], beta=beta, alpha=alpha)
    assert_lowers(
        "aten.addmm",
        [_floats(3, 1), _floats(3, 4), _floats(4, 5)],
        beta=beta,
        alpha=alpha,
        dynamic=[[0], [0], [1]],
    )


def test_addmm_int():
    a = torch.randint(-5, 5, (3, 4))
    assert_lowers(
        "aten.addmm",
        [torch.randint(-5, 5, (3, 5)), a, torch.randint(-5, 5, (4, 5))],
        beta=2,
        alpha=3,
    )


def test_linear_module_dynamic_batch():
    m = torch.nn.Linear(6, 4)
    dim = torch.export.Dim("batch", min=2, max=64)
    assert_module_lowers(m, [torch.randn(5, 6)], dynamic_shapes=({0: dim},), atol=1e-5)


def test_bool_mm_left_to_eager():
    """torch's CPU gemm has no bool kernel either: the rule does not apply."""
    from tests.support.lowering import compile_op

    _, compiled = compile_op("aten.mm", [torch.ones(2, 2, dtype=torch.bool)] * 2)
    assert [f.op for f in compiled.fallbacks] == ["aten.mm"]
