"""upsample_nearest2d.vec, upsample_bilinear2d.vec and grid_sampler_2d against eager, and the
FFT ops staying clean eager fallbacks."""

import pytest
import torch

from tests.support.lowering import assert_lowers, assert_module_lowers

SIZES = [
    dict(output_size=[10, 14]),  # ratio 2: the shifted index
    dict(output_size=[7, 3]),
    dict(output_size=[5, 7]),  # ratio 1: a copy
    dict(output_size=None, scale_factors=[2.0, 1.5]),
    dict(output_size=None, scale_factors=[0.5, 2.7]),  # scale != in / out
]


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("size", SIZES, ids=range(len(SIZES)))
def test_upsample_nearest2d(size, dynamic):
    x = torch.randn(2, 3, 5, 7)
    x[0, 0, 0, :2] = torch.tensor([float("nan"), float("-inf")])
    assert_lowers("aten.upsample_nearest2d.vec", [x], dynamic=dynamic, **size)


def test_upsample_nearest2d_dtypes():
    for x in (torch.randn(1, 2, 3, 4).double(), torch.randn(1, 2, 3, 4).half()):
        assert_lowers("aten.upsample_nearest2d.vec", [x], output_size=[5, 9])


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", SIZES, ids=range(len(SIZES)))
def test_upsample_bilinear2d(size, align_corners):
    x = torch.randn(2, 3, 5, 7)
    # Both kinds of shapes for each mode, without doubling the compiles.
    dynamic = (SIZES.index(size) + align_corners) % 2 == 1
    assert_lowers(
        "aten.upsample_bilinear2d.vec", [x], dynamic=dynamic, align_corners=align_corners, **size
    )


def test_upsample_bilinear2d_edges():
    x = torch.randn(1, 2, 4, 1).double()
    assert_lowers("aten.upsample_bilinear2d.vec", [x], output_size=[1, 3], align_corners=True)
    assert_lowers("aten.upsample_bilinear2d.vec", [x], output_size=[9, 1], align_corners=False)
    assert_lowers(
        "aten.upsample_bilinear2d.vec",
        [torch.randn(0, 2, 3, 3)],
        output_size=[4, 4],
        align_corners=False,
    )


def test_interpolate_module_dynamic_batch():
    class M(torch.nn.Module):
        def forward(self, x):
            a = torch.nn.functional.interpolate(x, scale_factor=2.0, mode="nearest")
            b = torch.nn.functional.interpolate(x, size=(6, 9), mode="bilinear")
            return a, b

    assert_module_lowers(
        M(), [torch.randn(3, 2, 4, 5)], dynamic_shapes=({0: torch.export.Dim("n")},)
    )


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding", [0, 1, 2], ids=["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", [0, 1, 2], ids=["bilinear", "nearest", "bicubic"])
def test_grid_sampler_2d(mode, padding, align_corners):
    g = torch.Generator().manual_seed(mode * 6 + padding * 2 + align_corners)
    x = torch.randn(2, 3, 5, 7, generator=g)
    grid = torch.rand(2, 4, 6, 2, generator=g) * 3.2 - 1.6  # a part outside [-1, 1]
    kw = dict(interpolation_mode=mode, padding_mode=padding, align_corners=align_corners)
    if align_corners:  # float64 and `?` dims on half the cases, without doubling the compiles
        x, grid, kw["dynamic"] = x.double(), grid.double(), [[0, 2, 3], [0, 1, 2]]
    assert_lowers("aten.grid_sampler_2d", [x, grid], **kw)


def test_grid_sample_module_nan_grid():
    # A NaN coordinate must not reach an int conversion (it reads as outside: 0 times NaN).
    x, grid = torch.randn(1, 2, 3, 4), torch.rand(1, 2, 2, 2) * 2 - 1
    grid[0, 0, 0, 0] = float("nan")
    for mode in ("bilinear", "nearest", "bicubic"):
        assert_module_lowers(_GridSample(mode), [x, grid])


class _GridSample(torch.nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode

    def forward(self, x, grid):
        return torch.nn.functional.grid_sample(x, grid, mode=self.mode, align_corners=False)
