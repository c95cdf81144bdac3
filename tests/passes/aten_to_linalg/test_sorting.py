"""sort, topk and nonzero lowerings against eager (static and dynamic shapes, NaN, ties)."""

import pytest
import torch

import aten_mlir
from tests.support.lowering import assert_lowers, assert_module_lowers, compile_op

NAN, INF = float("nan"), float("inf")


def _floats(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g)
    x.view(-1)[:5] = torch.tensor([NAN, -0.0, INF, -INF, NAN])[: x.numel()]
    return x


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_float(dim, descending, dynamic):
    assert_lowers("aten.sort", [_floats(6, 9)], dynamic=dynamic, dim=dim, descending=descending)


@pytest.mark.parametrize(
    "dtype, descending, dim",
    [
        (torch.int64, False, 2),
        (torch.int32, True, 1),
        (torch.int8, False, 1),
        (torch.bool, True, 2),
    ],
)
def test_sort_int_ties_are_stable(dtype, descending, dim):
    # Many ties: eager's unstable sort may order them any way (it does past 16 elements); the
    # merge sort is stable, so its indices are those of torch.sort(stable=True).
    x = torch.randint(-3, 3, (3, 5, 17)).to(dtype)
    _, compiled = compile_op("aten.sort", [x], dim=dim, descending=descending)
    assert not compiled.fallbacks
    values, indices = compiled(x)
    expected = torch.sort(x, dim=dim, descending=descending, stable=True)
    assert values.dtype == dtype and torch.equal(values, expected.values)
    assert torch.equal(indices, expected.indices)


def test_sort_edge_shapes():
    assert_lowers("aten.sort", [torch.tensor(3.0)])
    assert_lowers("aten.sort", [torch.randn(0, 4)], dim=1)
    assert_lowers("aten.sort", [torch.randn(4, 1)], dim=1)
    assert_lowers("aten.sort", [torch.randn(7).double()], descending=True)
    assert_lowers("aten.sort", [torch.randn(5, 6).half()], dim=0)


def test_sort_long_rows_are_n_log_n():
    # 2 x 4099 (not a power of two) stays fast: bottom-up merge passes, not insertion sort.
    # Distinct values: among 4099 random floats a tie is likely, and eager orders ties its own
    # way (ours is stable).
    x = (torch.randperm(2 * 4099, generator=torch.Generator().manual_seed(0)) / 7.0).view(2, -1)
    assert_lowers("aten.sort", [x], dim=1, dynamic=True)


@pytest.mark.parametrize("largest, dynamic", [(True, False), (False, True)])
def test_topk(largest, dynamic):
    x = torch.randperm(40).float().reshape(5, 8)  # distinct: ties pick implementation indices
    x[1, 2] = NAN
    assert_lowers("aten.topk", [x], dynamic=dynamic, k=3, dim=1, largest=largest)
    assert_lowers("aten.topk", [x], dynamic=dynamic, k=2, dim=0, largest=largest)


def test_topk_int_and_edges():
    x = torch.randperm(30).reshape(3, 10)
    assert_lowers("aten.topk", [x], k=4)
    assert_lowers("aten.topk", [x], k=0)
    assert_lowers("aten.topk", [x.int()], k=10, largest=False)


class _Nonzero(torch.nn.Module):
    def forward(self, x):
        return torch.nonzero(x)


@pytest.mark.parametrize(
    "x",
    [
        torch.tensor([[True, False, True], [False, False, True]]),
        torch.tensor([[0.0, -0.0, NAN], [1.0, 0.0, -INF]]),
        torch.randint(-1, 2, (3, 4, 5), dtype=torch.int32),
        torch.zeros(4, 3),
        torch.tensor(2.0),
        torch.arange(7),
    ],
    ids=["bool", "float-edges", "int3d", "all-zero", "0-d", "1-d"],
)
def test_nonzero(x):
    assert_module_lowers(_Nonzero(), [x])


def test_nonzero_dynamic():
    x = torch.randint(0, 2, (5, 6)).float()
    dims = ({0: torch.export.Dim("a"), 1: torch.export.Dim("b")},)
    compiled = assert_module_lowers(_Nonzero(), [x], dynamic_shapes=dims)
    other = torch.randint(0, 2, (3, 11)).float()
    torch.testing.assert_close(compiled(other), torch.nonzero(other))


def _randperm(*shape, seed=0):
    n = 1
    for s in shape:
        n *= s
    return torch.randperm(n, generator=torch.Generator().manual_seed(seed)).float().view(*shape)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim, dynamic", [(1, False), (1, True), (0, False), (2, True)])
def test_topk_by_selection(largest, dim, dynamic):
    # k <= n / 4: one pass per row keeping the k best (sorting_select); distinct values, so the
    # indices must equal eager's; NaN and infinities sort as torch's comparator puts them
    x = _randperm(37, 41, 29) / 3.0 - 100.0
    x[3, 5, 7] = NAN
    x[4, 6, 8] = INF
    x[5, 7, 9] = -INF
    for k in (1, 3, 7):
        assert_lowers("aten.topk", [x], dynamic=dynamic, k=k, dim=dim, largest=largest)


@pytest.mark.parametrize("dtype", [torch.int64, torch.bfloat16])
def test_topk_by_selection_with_ties(dtype):
    # few distinct values: eager may order equal values its own way, so compare the values
    # and that each index points at its value, once each
    x = torch.randint(-4, 5, (6, 300), generator=torch.Generator().manual_seed(1)).to(dtype)
    for largest in (True, False):
        (values, indices), (want, _) = assert_lowers_values(x, k=50, largest=largest)
        torch.testing.assert_close(values, want)
        torch.testing.assert_close(x.gather(1, indices), values)
        assert all(len(set(row.tolist())) == 50 for row in indices)


def assert_lowers_values(x, **kwargs):
    program, compiled = compile_op("aten.topk", [x], **kwargs)
    assert not compiled.fallbacks
    return compiled(x.clone()), aten_mlir.run_reference(program, x.clone())
