"""Gather, index_select and advanced indexing (`index.Tensor`) lowerings against eager."""

import pytest
import torch
import torch._dynamo  # noqa: F401  (loads triton's LLVM before MLIR's; the reverse aborts)

from tests.support.lowering import assert_lowers, assert_module_lowers

NAN = float("nan")


def _floats(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g)
    x.view(-1)[:3] = torch.tensor([NAN, -0.0, float("inf")])[: x.numel()]
    return x


def _values(dtype, *shape):
    if dtype == torch.bool:
        return torch.rand(*shape) > 0.5
    if dtype.is_floating_point:
        return _floats(*shape).to(dtype)
    return torch.randint(-100, 100, shape, dtype=dtype)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather(dim, dynamic):
    x = _floats(4, 5, 6)
    size = x.shape[dim]
    index = torch.randint(0, size, (3, 4, 6) if dim != 0 else (2, 5, 6))
    assert_lowers("aten.gather", [x, index], names=["self", "index"], dim=dim, dynamic=dynamic)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool, torch.float64])
def test_gather_dtypes(dtype):
    index = torch.randint(0, 3, (2, 4), dtype=torch.int64)
    assert_lowers("aten.gather", [_values(dtype, 3, 4), index], names=["self", "index"], dim=0)


def test_gather_edges():
    assert_lowers(
        "aten.gather", [torch.tensor(2.5), torch.tensor(0)], names=["self", "index"], dim=0
    )
    empty = torch.zeros(0, 4, dtype=torch.int64)
    assert_lowers("aten.gather", [_floats(3, 4), empty], names=["self", "index"], dim=0)
    # an empty uint8 index (torch takes any dtype when there is nothing to read), of a rank
    # other than the input's
    for shape in [(0,), (2, 0)]:
        empty = torch.zeros(shape, dtype=torch.uint8)
        assert_lowers("aten.gather", [_floats(5), empty], names=["self", "index"], dim=0)


@pytest.mark.parametrize("dynamic", [False, True])
def test_index_select(dynamic):
    x = _floats(4, 5, 6)
    for dim, index in [
        (0, torch.tensor([3, 0, 0, 1])),
        (2, torch.tensor([5, 1])),
        (1, torch.tensor(4)),
        (1, torch.zeros(0, dtype=torch.int64)),
    ]:
        assert_lowers(
            "aten.index_select", [x, index], names=["self", "index"], dim=dim, dynamic=dynamic
        )


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool, torch.float16])
def test_index_select_dtypes(dtype):
    index = torch.tensor([2, 0], dtype=torch.int32)
    assert_lowers(
        "aten.index_select", [_values(dtype, 3, 4), index], names=["self", "index"], dim=0
    )


class _Advanced(torch.nn.Module):
    def forward(self, x, i, j):
        return x[i], x[:, i], x[i, :, j], x[:, j, i], x[..., i], x[i[:2], j.view(-1)]


@pytest.mark.parametrize("dynamic", [False, True])
def test_index_tensor(dynamic):
    x = _floats(4, 5, 6)
    i = torch.tensor([0, 3, -1])
    j = torch.tensor([[1], [-2]])
    shapes = None
    if dynamic:
        n = torch.export.Dim("n", min=2)
        shapes = ({0: torch.export.Dim("a", min=4), 2: torch.export.Dim("c", min=4)}, {0: n}, None)
    assert_module_lowers(_Advanced(), [x, i, j], dynamic_shapes=shapes)


@pytest.mark.parametrize("dtype", [torch.int32, torch.bool, torch.float64])
def test_index_tensor_dtypes(dtype):
    assert_module_lowers(
        _Advanced(), [_values(dtype, 4, 5, 6), torch.tensor([1, 0, 2]), torch.tensor([[1], [3]])]
    )


class _Masked(torch.nn.Module):
    def forward(self, x, m, i):
        return x[m], x[:, m[0]], x[m[:, 0]] * i


def test_index_bool_mask():
    x = _floats(4, 5, 6)
    m = torch.rand(4, 5) > 0.5
    assert_module_lowers(_Masked(), [x, m, torch.tensor(2)])
    assert_module_lowers(_Masked(), [x, torch.zeros(4, 5, dtype=torch.bool), torch.tensor(2)])


class _Pick(torch.nn.Module):
    def forward(self, x, i):
        return x[i], x[:, i[0]]


@pytest.mark.parametrize("dtype", [torch.uint8, torch.complex64])
def test_gathers_move_uint8_and_complex_elements(dtype):
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, 256, (4, 5), generator=g).to(torch.uint8)
    if dtype.is_complex:
        x = torch.randn(4, 5, generator=g, dtype=dtype)
    i = torch.tensor([[3, 0, 1], [2, 2, 0]])
    assert_lowers("aten.gather", [x, i.repeat(2, 1)[:, :2]], names=["self", "index"], dim=0)
    assert_lowers("aten.index_select", [x, i[0]], names=["self", "index"], dim=1)
    assert_module_lowers(_Pick(), [x, i])
