"""View lowerings (reshape, permute, expand, squeeze, slices, diagonal, as_strided) vs eager."""

import pytest
import torch

import aten_mlir
from tests.support.lowering import assert_lowers, assert_module_lowers

Dim = torch.export.Dim
NAN = float("nan")


def lowers(op, tensors, **kwargs):
    return assert_lowers(op, tensors, **kwargs)


def module_lowers(module, inputs, **kwargs):
    return assert_module_lowers(module, inputs, **kwargs)


def _floats(*shape):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
    x.view(-1)[:3] = torch.tensor([NAN, -0.0, float("inf")])[: x.numel()]
    return x


# uint8 and complex64 travel as their bytes (signless i8 storage, complex<f32>): views of them
# need no arithmetic and lower like any other dtype.
DTYPES = [torch.float32, torch.int64, torch.int8, torch.bool, torch.uint8, torch.complex64]


def _of(dtype, *shape):
    x = _floats(*shape)
    if dtype == torch.bool:
        return x > 0
    if dtype.is_complex:
        return torch.complex(x, torch.arange(x.numel(), dtype=x.dtype).view(shape)).to(dtype)
    return x if dtype.is_floating_point else torch.arange(x.numel(), dtype=dtype).view(shape)


@pytest.mark.parametrize(
    "size", [[24], [2, 12], [6, 4], [4, 2, 3], [-1, 3], [3, 8], [1, 24, 1], [2, 1, 3, 4]]
)
def test_view_static(size):
    lowers("aten.view", [_floats(4, 6)], size=size)


@pytest.mark.parametrize("dtype", DTYPES)
def test_view_dtypes(dtype):
    lowers("aten.view", [_of(dtype, 4, 6)], size=[3, -1])


def test_view_rank0_and_empty():
    lowers("aten.view", [torch.tensor(3.0)], size=[1, 1])
    lowers("aten.view", [torch.ones(1, 1)], size=[])
    lowers("aten.view", [torch.ones(0, 3)], size=[3, 0])
    lowers("aten.select.int", [torch.ones(5, 0, 5)], dim=0, index=1)
    lowers("aten.slice.Tensor", [torch.ones(0, 4)], dim=1, start=1, end=3)
    lowers("aten.split_with_sizes", [torch.ones(3, 0)], split_sizes=[1, 2])


class _Reshapes(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        return x.view(n * 2, -1), x.reshape(-1), x.view(n, 2, 3), x.view(-1, 2, 1), x[None]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bool])
def test_view_dynamic(dtype):
    module_lowers(_Reshapes(), [_of(dtype, 4, 6)], dynamic_shapes=({0: Dim("B")},))


class _CollapseBySizes(torch.nn.Module):
    """torch-mlir's ViewCollapseDynamicWithAtenSizeInt: the sizes read with x.size(i), the
    sizes passed as ints specialised at export."""

    def __init__(self, unsafe: bool):
        super().__init__()
        self.unsafe = unsafe

    def forward(self, x):
        sizes = [x.size(0), 3, 5, x.size(3), 384]
        if self.unsafe:
            return torch.ops.aten._unsafe_view(x, sizes)
        return x.view(sizes)


@pytest.mark.parametrize("unsafe", [False, True])
def test_view_collapse_dynamic_sizes(unsafe):
    """Dims 4 and 5 (both `?`) collapse into the constant 384 behind two other dynamic dims:
    lowered as matched groups (one dynamic size each), not one all-dims group; called at
    another size than exported."""
    module = _CollapseBySizes(unsafe)
    x = _floats(2, 3, 5, 4, 12, 32)
    ep = torch.export.export(module, (x,), dynamic_shapes=({d: Dim.AUTO for d in range(6)},))
    compiled = aten_mlir.compile(ep)
    assert compiled.fallbacks == []
    for shape in [(2, 3, 5, 4, 12, 32), (3, 3, 5, 2, 6, 64)]:
        y = _floats(*shape)
        torch.testing.assert_close(compiled(y), module(y), equal_nan=True)


class _Views(torch.nn.Module):
    def forward(self, x):
        return (
            x.permute(2, 0, 1),
            x.unsqueeze(1),
            x.unsqueeze(-1),
            x[:, :, None].squeeze(2),
            x.expand(2, -1, -1, -1),
            x[:, :1].expand(-1, 5, -1),
            x[:1, :, None, :].squeeze((0, 2)),
        )


@pytest.mark.parametrize("dtype", DTYPES)
def test_permute_expand_squeeze(dtype):
    module_lowers(_Views(), [_of(dtype, 4, 3, 5)])


def test_permute_expand_squeeze_dynamic():
    dyn = ({0: Dim("B", min=2), 2: Dim("C")},)
    module_lowers(_Views(), [_floats(4, 3, 5)], dynamic_shapes=dyn)


def test_expand_from_unit_and_rank0():
    lowers("aten.expand", [_floats(3, 1)], size=[2, 3, 4])
    lowers("aten.expand", [torch.tensor(2.5)], size=[3, 2])
    lowers("aten.expand", [_floats(1, 1)], size=[0, 1])
    lowers("aten.permute", [_floats(2, 3, 4)], dims=[-1, 0, 1], dynamic=True)
    lowers("aten.unsqueeze", [torch.tensor(1.0)], dim=0)
    lowers("aten.squeeze.dim", [_floats(3, 1)], dim=0)  # not size 1: unchanged


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize(
    "dim,start,end,step",
    [
        (0, 1, 3, 1),
        (1, -4, -1, 2),
        (2, None, None, 3),
        (1, -100, 100, 1),
        (0, 5, 2, 1),
        (2, 2, 9223372036854775807, 1),
    ],
)
def test_slice(dim, start, end, step, dynamic):
    lowers(
        "aten.slice.Tensor",
        [_floats(4, 5, 6)],
        dynamic=dynamic,
        dim=dim,
        start=start,
        end=end,
        step=step,
    )


def test_slice_clamps_end():
    # static only: a single-op program infers a `?` result from a stand-in size
    lowers("aten.slice.Tensor", [_floats(4, 5, 6)], dim=0, start=3, end=10)


@pytest.mark.parametrize("dtype", [torch.int32, torch.bool, torch.uint8, torch.complex128])
def test_slice_select_dtypes(dtype):
    x = _of(dtype, 4, 5)
    lowers("aten.slice.Tensor", [x], dim=1, start=1, end=4, step=2)
    lowers("aten.select.int", [x], dim=0, index=-1)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("dim,index", [(0, 0), (1, -1), (2, 3), (-1, -6)])
def test_select(dim, index, dynamic):
    lowers("aten.select.int", [_floats(4, 5, 6)], dynamic=dynamic, dim=dim, index=index)


class _SymbolicSlices(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        return x[1 : n - 1], x[:, ::2], x[-2:], x[n - 1], x.narrow(0, 1, n - 2)


def test_slices_symbolic_bounds():
    module_lowers(_SymbolicSlices(), [_floats(6, 5)], dynamic_shapes=({0: Dim("B", min=4)},))


def test_split_with_sizes():
    lowers("aten.split_with_sizes", [_floats(5, 4)], split_sizes=[2, 0, 3])
    lowers("aten.split_with_sizes", [_floats(5, 4)], dynamic=[[0]], split_sizes=[1, 3], dim=-1)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize(
    "shape,offset,dim1,dim2",
    [
        ((3, 4), 0, 0, 1),
        ((3, 4), 2, 0, 1),
        ((3, 4), -2, 0, 1),
        ((3, 4, 5), 1, 2, 0),
        ((3, 4), 7, 0, 1),
        ((2, 3, 4), -1, -1, 1),
    ],
)
def test_diagonal(shape, offset, dim1, dim2, dynamic):
    lowers("aten.diagonal", [_floats(*shape)], dynamic=dynamic, offset=offset, dim1=dim1, dim2=dim2)


def test_diagonal_bool():
    lowers("aten.diagonal", [_of(torch.bool, 4, 4)])


@pytest.mark.parametrize(
    "size,stride,offset",
    [
        ([2, 2], [1, 2], 1),
        ([3, 4], [4, 1], 0),
        ([4, 3], [1, 4], None),
        ([2, 3, 2], [0, 2, 1], 2),
        ([0, 3], [3, 1], 0),
    ],
)
def test_as_strided(size, stride, offset):
    lowers("aten.as_strided", [_floats(3, 4)], size=size, stride=stride, storage_offset=offset)


def test_as_strided_dynamic_input():
    lowers("aten.as_strided", [_floats(3, 4)], dynamic=True, size=[2, 2], stride=[2, 1])
