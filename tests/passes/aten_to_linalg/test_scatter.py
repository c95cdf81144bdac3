"""Scatter, scatter_add, scatter_reduce, index_put and masked_scatter lowerings against eager."""

import pytest
import torch
import torch._dynamo  # noqa: F401  (loads triton's LLVM before MLIR's; the reverse aborts)

from tests.support.lowering import assert_lowers, assert_module_lowers

NAN = float("nan")
SRC = ["self", "index", "src"]


def _floats(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g)
    x.view(-1)[:3] = torch.tensor([NAN, -0.0, float("inf")])[: x.numel()]
    return x


def _values(dtype, *shape, seed=0):
    if dtype == torch.bool:
        return torch.rand(*shape, generator=torch.Generator().manual_seed(seed)) > 0.5
    if dtype.is_floating_point:
        return _floats(*shape, seed=seed).to(dtype)
    return torch.randint(-9, 9, shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


def _unique_index(*shape, size, dim):
    """Indices without duplicates along `dim` (where plain scatter's result is defined)."""
    perm = torch.rand(*shape[:dim], size, *shape[dim + 1 :]).argsort(dim=dim)
    return perm.narrow(dim, 0, shape[dim])


@pytest.mark.parametrize("dynamic", [False, True])
def test_scatter_src_and_value(dynamic):
    x, src = _floats(4, 5, 6), _floats(3, 4, 7, seed=1)
    index = _unique_index(3, 4, 6, size=5, dim=1)
    assert_lowers("aten.scatter.src", [x, index, src], names=SRC, dim=1, dynamic=dynamic)
    assert_lowers(
        "aten.scatter.value", [x, index], names=SRC[:2], dim=1, value=-2.5, dynamic=dynamic
    )


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool, torch.float64])
def test_scatter_dtypes(dtype):
    index = _unique_index(2, 4, size=3, dim=0)
    x, src = _values(dtype, 3, 4), _values(dtype, 2, 4, seed=1)
    assert_lowers("aten.scatter.src", [x, index, src], names=SRC, dim=0)
    assert_lowers("aten.scatter.value", [x, index], names=SRC[:2], dim=-1, value=1)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool])
def test_scatter_add_duplicates(dtype, dynamic):
    x, src = _values(dtype, 4, 5), _values(dtype, 6, 5, seed=1)
    index = torch.randint(0, 4, (6, 5))
    assert_lowers("aten.scatter_add", [x, index, src], names=SRC, dim=0, dynamic=dynamic)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce(reduce, include_self):
    index = torch.randint(0, 5, (3, 4, 6))
    for dtype in (torch.float32, torch.int64):
        x, src = _values(dtype, 4, 5, 6), _values(dtype, 3, 4, 6, seed=1)
        assert_lowers(
            "aten.scatter_reduce.two",
            [x, index, src],
            names=SRC,
            dim=1,
            reduce=reduce,
            include_self=include_self,
        )


def test_scatter_reduce_dynamic_half():
    index = torch.randint(0, 3, (4, 2))
    x, src = torch.randn(3, 2).half(), torch.randn(4, 2).half()
    for reduce in ["sum", "mean", "amax"]:
        assert_lowers(
            "aten.scatter_reduce.two",
            [x, index, src],
            names=SRC,
            dim=0,
            reduce=reduce,
            include_self=False,
            dynamic=True,
            atol=1e-3,
            rtol=1e-3,
        )


class _IndexPut(torch.nn.Module):
    def forward(self, x, i, j, m, v):
        a = x.index_put((i,), v, accumulate=True)
        b = x.clone()
        b[:, j] = 3.0
        c = x.clone()
        c[m] = -1.0
        d = x.clone()
        d[i[:2], :, j[:, 0]] = v[None, :, 0]
        return a, b, c, d


@pytest.mark.parametrize("dynamic", [False, True])
def test_index_put(dynamic):
    x, v = _floats(4, 5, 6), _floats(5, 6, seed=1)
    i, j = torch.tensor([0, 1, -1, 1]), torch.tensor([[1], [2]])
    m = torch.rand(4, 5) > 0.5
    shapes = None
    if dynamic:
        shapes = (
            {2: torch.export.Dim("c", min=2)},
            {0: torch.export.Dim("n", min=2)},
            None,
            None,
            {1: torch.export.Dim("c", min=2)},
        )
    assert_module_lowers(_IndexPut(), [x, i, j, m, v], dynamic_shapes=shapes)


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool])
def test_index_put_dtypes(dtype):
    class Put(torch.nn.Module):
        def forward(self, x, i, v):
            put = torch.ops.aten.index_put.default
            return put(x, [None, i], v, True), x.index_put((i,), v[:, 0])

    x, v = _values(dtype, 3, 3), _values(dtype, 3, 2, seed=1)
    assert_module_lowers(Put(), [x, torch.tensor([2, 0]), v])


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_masked_scatter(dtype, dynamic):
    x, source = _values(dtype, 4, 5), _values(dtype, 3, 9, seed=1)
    mask = torch.rand(5) > 0.4  # broadcast over rows
    assert_lowers("aten.masked_scatter", [x, mask, source], dynamic=dynamic)
    assert_lowers("aten.masked_scatter", [x, torch.zeros(4, 5, dtype=torch.bool), source])
