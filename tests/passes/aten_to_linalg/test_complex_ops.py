"""`complex`, `view_as_complex`, `view_as_real` against eager, and a RoPE block using them."""

import pytest
import torch

from tests.support.lowering import assert_lowers, assert_module_lowers


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_complex_from_parts_broadcasts(dtype):
    re, im = torch.randn(3, 4, dtype=dtype), torch.randn(4, dtype=dtype)
    assert_lowers("aten.complex", [re, im], names=["real", "imag"])


@pytest.mark.parametrize("dynamic", [False, True])
def test_view_as_real_and_complex(dynamic):
    z = torch.randn(3, 4, dtype=torch.complex64)
    assert_lowers("aten.view_as_real", [z], dynamic=dynamic)
    assert_lowers("aten.view_as_complex", [torch.randn(2, 3, 2, dtype=torch.float64)])
    assert_lowers("aten.view_as_real", [torch.tensor(1 + 2j)])


class Rope(torch.nn.Module):
    """Rotary embeddings as LLaMA's reference code writes them (complex multiply)."""

    def forward(self, x, angles):
        xc = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        rotation = torch.polar(torch.ones_like(angles), angles)
        return torch.view_as_real(xc * rotation).flatten(-2)


def test_rope_compiles_with_no_fallback():
    x, angles = torch.randn(2, 8, 16), torch.randn(8, 8)
    assert_module_lowers(Rope(), [x, angles], atol=1e-6, rtol=1e-5)
    seq = torch.export.Dim("seq")
    assert_module_lowers(
        Rope(), [x, angles], dynamic_shapes=({1: seq}, {0: seq}), atol=1e-6, rtol=1e-5
    )
