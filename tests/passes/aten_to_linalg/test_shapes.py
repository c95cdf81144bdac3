"""cat, repeat, flip, select/slice scatters and resize_ lowerings against eager."""

import pytest
import torch

from .test_views import DTYPES, Dim, _floats, _of, lowers, module_lowers


class _Cat(torch.nn.Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = dim

    def forward(self, a, b, c):
        return torch.cat([a, b, c], self.dim)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cat(dtype):
    module_lowers(_Cat(1), [_of(dtype, 3, 2), _of(dtype, 3, 4), _of(dtype, 3, 0)])


def test_cat_promotes_and_skips_legacy_empty():
    ints = torch.arange(8, dtype=torch.int32).view(2, 4)
    module_lowers(_Cat(), [_floats(3, 4), ints, torch.ones(0)])
    module_lowers(_Cat(-1), [_floats(2, 3), ints > 3, ints.to(torch.int64)])
    # uint8 widens zero-extended (200 stays 200 in int16), real parts join complex ones
    u = torch.tensor([[0, 200, 255, 1]], dtype=torch.uint8)
    module_lowers(_Cat(), [u, torch.tensor([[-1, 5, -128, 127]], dtype=torch.int8), u > 100])
    z = torch.randn(2, 4, dtype=torch.complex64)
    module_lowers(_Cat(), [z, _floats(1, 4), ints.to(torch.float64)])


def test_cat_dynamic():
    dyn = ({0: Dim("A")}, {0: Dim("B")}, {0: Dim("C")})
    module_lowers(_Cat(), [_floats(3, 4), _floats(2, 4), _floats(5, 4)], dynamic_shapes=dyn)
    dyn = ({1: Dim("A")}, {1: Dim("B")}, None)
    module_lowers(_Cat(1), [_floats(3, 2), _floats(3, 4), _floats(3, 5)], dynamic_shapes=dyn)


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.int32, torch.bool, torch.uint8, torch.complex64]
)
@pytest.mark.parametrize("repeats", [[2, 1, 3], [1, 1], [0, 3], [3, 2]])
def test_repeat(repeats, dtype):
    lowers("aten.repeat", [_of(dtype, 3, 4)], repeats=repeats)


def test_repeat_dynamic_and_rank0():
    lowers("aten.repeat", [_floats(3, 4)], dynamic=True, repeats=[2, 2, 1])
    lowers("aten.repeat", [torch.tensor(1.5)], repeats=[2, 3])


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("dims", [[0], [-1], [0, 2], []])
def test_flip(dims, dynamic):
    lowers("aten.flip", [_floats(3, 4, 5)], dynamic=dynamic, dims=dims)


def test_flip_dtypes():
    lowers("aten.flip", [_of(torch.bool, 3, 4)], dims=[1])
    lowers("aten.flip", [_of(torch.int8, 0, 4)], dims=[0])
    lowers("aten.flip", [_of(torch.uint8, 3, 4)], dims=[0, 1])
    lowers("aten.flip", [_of(torch.complex128, 3, 4)], dims=[1])


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("dim,index", [(0, 1), (1, -1), (-1, 0)])
def test_select_scatter(dim, index, dynamic):
    x = _floats(3, 4, 5)
    src = _floats(*[s for d, s in enumerate(x.shape) if d != dim % 3]) * 2
    lowers("aten.select_scatter", [x, src], dynamic=dynamic, dim=dim, index=index)


def test_select_scatter_bool():
    x = _of(torch.bool, 3, 4)
    lowers("aten.select_scatter", [x, ~x[0]], dim=0, index=2)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize(
    "dim,start,end,step,n", [(0, 1, 3, 1, 2), (1, None, None, 2, 3), (1, -3, 100, 1, 3)]
)
def test_slice_scatter(dim, start, end, step, n, dynamic):
    x = _floats(4, 5)
    shape = list(x.shape)
    shape[dim] = n
    lowers(
        "aten.slice_scatter",
        [x, _floats(*shape) * 3],
        dynamic=dynamic,
        dim=dim,
        start=start,
        end=end,
        step=step,
    )


def test_slice_scatter_int():
    x = _of(torch.int64, 4, 5)
    lowers("aten.slice_scatter", [x, x[:, 1:3] * 7], dim=1, start=1, end=3)


class _Scatters(torch.nn.Module):
    def forward(self, x, y):
        n = x.shape[0]
        return x.select_scatter(y[0], 0, n - 1), x.slice_scatter(y[:2], 0, 1, 3)


def test_scatters_symbolic():
    module_lowers(
        _Scatters(), [_floats(5, 3), _floats(4, 3)], dynamic_shapes=({0: Dim("A", min=3)}, None)
    )


@pytest.mark.parametrize("size", [[2, 5], [12], [2, 2, 3], [1], []])
def test_resize(size):
    # shrinking only: ATen leaves the elements past the old ones uninitialised
    lowers("aten.resize_", [_floats(3, 4)], size=size)
