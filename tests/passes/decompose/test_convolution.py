"""Each convolution decomposition equals the op it replaces (eager kernels on both sides), batched
and unbatched, with `?` batch and spatial dims, and leaves only target-set ops."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program


def _randn(*shape) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


def _decompose_and_compare(op_name, tensors, dynamic=False, **kwargs):
    program = single_op_program(op_name, tensors, dynamic=dynamic, **kwargs)
    expected = aten_mlir.run_reference(program, *tensors)
    decomposed = aten_mlir.decompose(program)
    assert f'"{op_name}"' not in str(decomposed), str(decomposed)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    actual = aten_mlir.run_reference(decomposed, *tensors)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    torch.testing.assert_close(actual, expected, equal_nan=True)
    return decomposed


X1, W1, B1 = _randn(2, 4, 9), _randn(6, 2, 3), _randn(6)
X2, W2 = _randn(2, 4, 7, 8), _randn(6, 4, 2, 3)
X3, W3 = _randn(1, 2, 5, 6, 4), _randn(2, 2, 2, 3, 2)


def _case(op_name, tensors, dynamic, **kwargs):
    """(op, tensors, the `?` dims of each tensor, kwargs)"""
    return op_name, tensors, dynamic, kwargs


CASES = {
    "conv1d": _case(
        "aten.conv1d", [X1, W1, B1], [[0, 2], [], []], stride=[2], padding=[1], groups=2
    ),
    "conv1d_unbatched": _case("aten.conv1d", [X1[0], W1, B1], [[1], [], []], padding=[1], groups=2),
    "conv2d": _case("aten.conv2d", [X2, W2], [[0, 2, 3], []], stride=[1, 2], padding=[1, 0]),
    "conv3d": _case("aten.conv3d", [X3, W3], [[0, 4], []], padding=[1], dilation=[2]),
    "conv1d_same_odd": _case(
        "aten.conv1d.padding", [X1, W1, B1], [[0, 2], [], []], padding="same", groups=2
    ),
    "conv1d_same_even": _case(
        "aten.conv1d.padding", [X1, W1[..., :2], B1], [[0, 2], [], []], padding="same", groups=2
    ),
    "conv1d_valid": _case(
        "aten.conv1d.padding",
        [X1, W1, B1],
        [[0, 2], [], []],
        padding="valid",
        dilation=[2],
        groups=2,
    ),
    "conv2d_same": _case(
        "aten.conv2d.padding", [X2, W2], [[0, 2], []], padding="same", dilation=[3, 2]
    ),
    "conv2d_same_unbatched": _case(
        "aten.conv2d.padding", [X2[0], W2], [[1, 2], []], padding="same"
    ),
    "conv3d_same": _case("aten.conv3d.padding", [X3, W3], [[0, 2], []], padding="same"),
    "conv_transpose1d": _case(
        "aten.conv_transpose1d",
        [X1, _randn(4, 3, 3)],
        [[0, 2], []],
        stride=[2],
        padding=[1],
        output_padding=[1],
    ),
    "conv_transpose1d_unbatched": _case(
        "aten.conv_transpose1d", [X1[0], _randn(4, 3, 3), _randn(3)], [[1], [], []], stride=[2]
    ),
    "conv_transpose2d": _case(
        "aten.conv_transpose2d.input",
        [X2, _randn(4, 2, 3, 2)],
        [[0, 3], []],
        stride=[2, 1],
        padding=[1, 0],
        output_padding=[1, 0],
        groups=2,
    ),
    "conv_transpose3d": _case(
        "aten.conv_transpose3d.input", [X3, _randn(2, 3, 2, 2, 2)], [[0, 2], []], dilation=[2]
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_convolution_decomposition_matches_the_op(case):
    op_name, tensors, _, kwargs = CASES[case]
    _decompose_and_compare(op_name, tensors, **kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_convolution_decomposition_with_dynamic_dims(case):
    op_name, tensors, dynamic, kwargs = CASES[case]
    _decompose_and_compare(op_name, tensors, dynamic=dynamic, **kwargs)


def test_same_padding_with_an_even_kernel_pads_the_right():
    decomposed = _decompose_and_compare(
        "aten.conv2d.padding", [X2, W2], padding="same", dilation=[1, 1]
    )
    text = str(decomposed)
    # kernel 2x3: total padding 1 (height) and 2 (width); the odd row goes on the bottom only
    assert "aten.constant_pad_nd" in text and "pad = array<i64: 0, 0, 0, 1>" in text, text


def test_same_padding_with_a_dynamic_kernel_is_not_applicable():
    program = single_op_program(
        "aten.conv1d.padding", [X1, W1], dynamic=[[], [2]], padding="same", groups=2
    )
    assert "aten.conv1d.padding" in str(aten_mlir.decompose(program))


SPECIAL = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e-30])


@pytest.mark.parametrize("dynamic", [False, [[0, 1]]])
@pytest.mark.parametrize("padding", [[0, 0], [1, 2]])
def test_im2col_gathers_blocks_exactly(dynamic, padding):
    x = _randn(2, 3, 6, 7)
    x.view(-1)[:6] = SPECIAL  # inf and NaN stay where they are: a gather, not a product
    _decompose_and_compare(
        "aten.im2col",
        [x],
        dynamic,
        kernel_size=[2, 3],
        dilation=[1, 2],
        padding=padding,
        stride=[2, 1],
    )


def test_im2col_unbatched_double():
    x = _randn(3, 5, 5).double()
    _decompose_and_compare(
        "aten.im2col",
        [x],
        [[0]],
        kernel_size=[3, 3],
        dilation=[1, 1],
        padding=[1, 1],
        stride=[1, 1],
    )


def test_im2col_with_dynamic_spatial_dims_is_not_applicable():
    x = _randn(2, 3, 6, 7)
    program = single_op_program(
        "aten.im2col",
        [x],
        [[3]],
        kernel_size=[2, 2],
        dilation=[1, 1],
        padding=[0, 0],
        stride=[1, 1],
    )
    assert "aten.im2col" in str(aten_mlir.decompose(program))


def test_convolution_opinfo_samples():
    check_opinfo_samples(
        [
            "nn.functional.conv1d",
            "nn.functional.conv2d",
            "nn.functional.conv3d",
            "nn.functional.conv_transpose1d",
            "nn.functional.conv_transpose2d",
            "nn.functional.conv_transpose3d",
            "nn.functional.unfold",
        ],
        limit=1,
    )
