"""cumprod's scan lowering against eager: every dtype cumsum takes, zeros, infinities and NaN in
the running product, static and dynamic scan dims (a dynamic one used to run eagerly)."""

import pytest
import torch

from tests.support.lowering import assert_lowers

NAN, INF = float("nan"), float("inf")


def _with_specials(*shape, dtype=torch.float32):
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(*shape, generator=g) * 1.5).to(dtype)
    flat = x.view(-1)
    flat[2] = 0  # everything after a zero is 0 (or NaN after inf * 0)
    if dtype.is_floating_point:
        flat[5], flat[9], flat[11] = INF, -0.0, NAN
    return x


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.int32, torch.int64, torch.int16, torch.int8]
)
def test_cumprod(dtype, dynamic):
    x = _with_specials(3, 5, 4, dtype=dtype)
    assert_lowers("aten.cumprod", [x], dynamic=dynamic, dim=1)
    assert_lowers("aten.cumprod", [x], dynamic=dynamic, dim=-1)


@pytest.mark.parametrize("dynamic", [False, True])
def test_cumprod_casts(dynamic):
    x = _with_specials(4, 6)
    assert_lowers("aten.cumprod", [x], dynamic=dynamic, dim=0, dtype=torch.float64)
    assert_lowers("aten.cumprod", [torch.rand(5, 4) > 0.3], dynamic=dynamic, dim=0)  # -> int64
    h = _with_specials(3, 8, dtype=torch.float16)
    assert_lowers("aten.cumprod", [h], dynamic=dynamic, dim=1, atol=1e-2, rtol=1e-3)
    b = _with_specials(3, 8, dtype=torch.bfloat16)
    assert_lowers("aten.cumprod", [b], dynamic=dynamic, dim=1, atol=1e-2, rtol=1e-2)


def test_cumprod_edges():
    assert_lowers("aten.cumprod", [torch.randn(3, 0)], dynamic=True, dim=1)
    assert_lowers("aten.cumprod", [torch.tensor(2.5)], dim=0)
    big = torch.full((2, 40), 3, dtype=torch.int64)  # wraps around like eager's int64 product
    assert_lowers("aten.cumprod", [big], dynamic=True, dim=1)


@pytest.mark.parametrize("op", ["aten.cumsum", "aten.cumprod", "aten.logcumsumexp"])
def test_scan_along_a_unit_dim_beside_other_unit_dims(op):
    """`[1, 6, 1]` scanned along dim 2: the scan is its input (a rank-dropping slice there was
    folded into one dropping dim 0: "runs out-of-bounds")."""
    x = torch.randn(1, 6, 1)
    x[0, 0, 0] = -0.0  # the running value starts from the element, not 0 + element
    assert_lowers(op, [x], dim=2)
    assert_lowers(op, [x], dim=0)
