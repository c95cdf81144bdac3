"""constant_pad_nd, reflection and replication pad lowerings against eager."""

import pytest
import torch

from .test_views import Dim, _floats, _of, lowers, module_lowers


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize(
    "pad", [[1, 2], [1, 2, 0, 3], [-1, 2, 1, -2], [0, 0], [-2, -2], [1, 1, 1, 1, 1, 1]]
)
def test_constant_pad(pad, dynamic):
    lowers("aten.constant_pad_nd", [_floats(3, 4, 5)], dynamic=dynamic, pad=pad, value=1.5)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int8, torch.bool])
def test_constant_pad_dtypes(dtype):
    lowers("aten.constant_pad_nd", [_of(dtype, 3, 4)], pad=[1, 2, 2, 0], value=1)


def test_constant_pad_values_and_empty():
    lowers("aten.constant_pad_nd", [_floats(2, 3)], pad=[1, 0], value=float("nan"))
    lowers("aten.constant_pad_nd", [_floats(2, 3)], pad=[1, 0], value=float("-inf"))
    lowers("aten.constant_pad_nd", [_floats(2, 3)], pad=[1, 1])
    lowers("aten.constant_pad_nd", [_floats(0, 3)], pad=[0, 0, 1, 1], value=2.0)
    lowers("aten.constant_pad_nd", [_floats(2, 3)], pad=[-3, 1], value=2.0)


REFLECT = [
    ("aten.reflection_pad1d", (2, 6), [2, 3]),
    ("aten.reflection_pad1d", (3, 2, 4), [3, 0]),
    ("aten.reflection_pad2d", (2, 4, 5), [2, 3, 1, 3]),
    ("aten.reflection_pad2d", (1, 2, 4, 5), [0, 4, 3, 0]),
    ("aten.reflection_pad3d", (1, 3, 4, 5), [1, 2, 3, 0, 2, 1]),
    ("aten.replication_pad2d", (2, 4, 5), [2, 3, 1, 3]),
    ("aten.replication_pad2d", (1, 2, 1, 5), [0, 4, 3, 0]),
    ("aten.replication_pad3d", (1, 3, 4, 5), [1, 2, 3, 0, 2, 5]),
]


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("op,shape,padding", REFLECT)
def test_index_pads(op, shape, padding, dynamic):
    lowers(op, [_floats(*shape)], dynamic=dynamic, padding=padding)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int8])
def test_index_pads_dtypes(dtype):
    lowers("aten.reflection_pad2d", [_of(dtype, 2, 3, 4)], padding=[1, 2, 2, 1])
    lowers("aten.replication_pad2d", [_of(dtype, 2, 3, 4)], padding=[1, 2, 2, 1])


class _Pads(torch.nn.Module):
    def forward(self, x):
        f = torch.nn.functional
        return (
            f.pad(x, (1, 2, 0, 1), value=-1.0),
            f.pad(x, (2, 1, 1, 2), mode="reflect"),
            f.pad(x, (2, 1, 1, 2), mode="replicate"),
            f.pad(x, (1, 1), mode="reflect"),
        )


def test_pads_module_dynamic():
    module_lowers(
        _Pads(),
        [_floats(2, 4, 5)],
        dynamic_shapes=({0: Dim("B"), 1: Dim("H", min=3), 2: Dim("W", min=3)},),
    )
