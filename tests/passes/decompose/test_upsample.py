"""Each resampling decomposition equals the op it replaces (eager kernels on both sides): nearest
indices exactly, interpolations to float rounding, on inf / NaN pixels and grid points too, with
static and `?` dims, and leaves only target-set ops."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program


def _image(*shape, dtype=torch.float32, special=True) -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(*shape, dtype=dtype)
    if special:
        flat = x.view(-1)
        flat[3], flat[7], flat[11] = float("inf"), float("nan"), -0.0
    return x


def _run(op_name, tensors, dynamic=False, exact=True, **kwargs):
    program = single_op_program(op_name, tensors, dynamic=dynamic, **kwargs)
    expected = aten_mlir.run_reference(program, *tensors)
    decomposed = aten_mlir.decompose(program)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    actual = aten_mlir.run_reference(decomposed, *tensors)
    assert actual.dtype == expected.dtype
    if exact:
        torch.testing.assert_close(actual, expected, equal_nan=True, rtol=0, atol=0)
    else:
        torch.testing.assert_close(actual, expected, equal_nan=True)
    return decomposed


SIZES_1D = [
    dict(output_size=[13], scale_factors=None),
    dict(output_size=[4], scale_factors=None),
    dict(output_size=[7], scale_factors=None),
    dict(output_size=None, scale_factors=[1.7]),
    dict(output_size=None, scale_factors=[0.6]),
    dict(output_size=None, scale_factors=[1.1]),  # 7 * 1.1 -> 7 pixels, sampled at 1 / 1.1
    dict(output_size=None, scale_factors=[2.0]),
]


@pytest.mark.parametrize(
    "op_name", ["aten.upsample_nearest1d.vec", "aten._upsample_nearest_exact1d.vec"]
)
@pytest.mark.parametrize("sizes", SIZES_1D)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.uint8])
def test_nearest_1d_picks_the_kernels_pixels(op_name, sizes, dtype):
    x = (torch.arange(2 * 3 * 7) % 251).reshape(2, 3, 7).to(dtype)
    _run(op_name, [x], **sizes)


@pytest.mark.parametrize("size", [3, 5, 40, 41, 47, 55])
def test_nearest_exact_rounds_like_the_fused_kernel(size):
    """2 -> 41 pixels puts output 20 exactly on a pixel edge: float rounding decides."""
    x = torch.arange(2.0).reshape(1, 1, 2)
    _run("aten._upsample_nearest_exact1d.vec", [x], output_size=[size], scale_factors=None)
    _run("aten.upsample_nearest1d.vec", [x], output_size=[size], scale_factors=None)


@pytest.mark.parametrize(
    "op_name",
    [
        "aten.upsample_nearest3d.vec",
        "aten._upsample_nearest_exact3d.vec",
        "aten._upsample_nearest_exact2d.vec",
    ],
)
@pytest.mark.parametrize("dynamic", [False, True])
def test_nearest_nd(op_name, dynamic):
    k = 3 if "3d" in op_name else 2
    x = _image(2, 3, *[5, 6, 4][:k])
    _run(op_name, [x], dynamic=dynamic, output_size=[7, 3, 9][:k], scale_factors=None)
    _run(op_name, [x], dynamic=dynamic, output_size=None, scale_factors=[2.0, 3.0, 1.0][:k])
    if not dynamic:
        _run(op_name, [x], output_size=None, scale_factors=[1.5, 0.7, 2.5][:k])


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("sizes", SIZES_1D + [dict(output_size=[1], scale_factors=None)])
def test_linear_1d(align_corners, sizes):
    x = _image(2, 3, 7)
    _run("aten.upsample_linear1d.vec", [x], exact=False, align_corners=align_corners, **sizes)


def test_linear_unresized_dim_copies_with_weight_zero():
    """Like the kernel: x * 1 + x * 0, so an inf pixel becomes NaN."""
    x = torch.tensor([[[1.0, float("inf"), 3.0]]])
    decomposed = _run(
        "aten.upsample_linear1d.vec", [x], output_size=[3], align_corners=False, scale_factors=None
    )
    assert torch.isnan(aten_mlir.run_reference(decomposed, x)[0, 0, 1])


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("align_corners", [False, True])
def test_trilinear_and_bicubic(dynamic, align_corners):
    x3 = _image(2, 3, 4, 5, 6, dtype=torch.float64)
    for sizes in (
        dict(output_size=[7, 5, 3]),
        dict(output_size=None, scale_factors=[2.0, 1.0, 3.0]),
    ):
        sizes.setdefault("scale_factors", None)
        _run(
            "aten.upsample_trilinear3d.vec",
            [x3],
            dynamic,
            False,
            align_corners=align_corners,
            **sizes,
        )
    x2 = _image(2, 3, 6, 7)
    for sizes in (dict(output_size=[13, 4]), dict(output_size=None, scale_factors=[2.0, 1.0])):
        sizes.setdefault("scale_factors", None)
        _run(
            "aten.upsample_bicubic2d.vec",
            [x2],
            dynamic,
            False,
            align_corners=align_corners,
            **sizes,
        )


@pytest.mark.parametrize(
    "op_name", ["aten._upsample_bilinear2d_aa.vec", "aten._upsample_bicubic2d_aa.vec"]
)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize(
    "sizes",
    [
        dict(output_size=[13, 4], scale_factors=None),
        dict(output_size=[6, 2], scale_factors=None),
        dict(output_size=None, scale_factors=[0.3, 1.7]),
    ],
)
def test_antialiased(op_name, align_corners, sizes):
    """Finite pixels: the eager kernel's NaN pattern around inf pixels differs between its two
    passes (an implementation detail not reproduced)."""
    x = _image(2, 3, 6, 7, special=False)
    _run(op_name, [x], [[0, 1]], False, align_corners=align_corners, **sizes)


@pytest.mark.parametrize("op_name", ["aten.upsample_nearest2d", "aten.upsample_bilinear2d"])
def test_default_overloads_of_core_vec_ops(op_name):
    x = _image(2, 3, 5, 6)
    kwargs = {"align_corners": False} if "bilinear" in op_name else {}
    _run(op_name, [x], exact="nearest" in op_name, output_size=[8, 4], scales_h=1.7, **kwargs)


def test_runtime_size_with_a_fractional_scale_stays():
    x = _image(2, 3, 7)
    program = single_op_program(
        "aten.upsample_nearest1d.vec", [x], dynamic=True, output_size=None, scale_factors=[1.7]
    )
    assert "aten.upsample_nearest1d.vec" in str(aten_mlir.decompose(program))


def _grid(*shape) -> torch.Tensor:
    torch.manual_seed(1)
    g = torch.rand(*shape) * 2.4 - 1.2
    flat = g.view(-1)
    flat[0], flat[4], flat[5] = float("nan"), float("inf"), -1.0
    return g


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dynamic", [False, True])
def test_grid_sampler_3d(mode, padding, align_corners, dynamic):
    x, g = _image(2, 3, 4, 5, 6), _grid(2, 3, 4, 2, 3)
    dyn = [[0, 1], [0, 1, 2, 3]] if dynamic else False
    kwargs = dict(interpolation_mode=mode, padding_mode=padding, align_corners=align_corners)
    _run("aten.grid_sampler", [x, g], dyn, **kwargs)


def test_grid_sampler_4d_becomes_the_core_2d_sampler():
    x, g = _image(2, 3, 4, 5), _grid(2, 3, 4, 2)
    out = _run(
        "aten.grid_sampler", [x, g], interpolation_mode=0, padding_mode=0, align_corners=False
    )
    assert "aten.grid_sampler_2d" in str(out)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [[2, 3, 5, 7], [2, 3, 4, 1, 6], [1, 1, 40, 33]])
def test_affine_grid_generator(align_corners, size):
    torch.manual_seed(0)
    theta = torch.randn(size[0], len(size) - 2, len(size) - 1)
    _run(
        "aten.affine_grid_generator", [theta], False, False, size=size, align_corners=align_corners
    )


@pytest.mark.parametrize("dynamic", [False, True])
def test_shuffles(dynamic):
    x = _image(2, 3, 8, 3, 5)
    _run("aten.pixel_shuffle", [x], [[0, 1]] if dynamic else False, upscale_factor=2)
    _run(
        "aten.pixel_unshuffle",
        [_image(2, 3, 4, 6)],
        [[0]] if dynamic else False,
        downscale_factor=2,
    )
    for op_name in ("aten.channel_shuffle", "aten.native_channel_shuffle"):
        _run(op_name, [_image(2, 8, 3, 5)], [[0, 2]] if dynamic else False, groups=4)


def test_opinfo_samples():
    check_opinfo_samples(
        [
            "nn.functional.interpolate.nearest-exact",
            "nn.functional.interpolate.linear",
            "nn.functional.interpolate.trilinear",
            "nn.functional.interpolate.bicubic",
            "_upsample_bilinear2d_aa",
            "nn.functional.grid_sample",
            "grid_sampler_3d",
            "nn.functional.pixel_shuffle",
            "nn.functional.channel_shuffle",
        ],
        limit=1,
    )
