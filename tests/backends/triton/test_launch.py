"""Host helpers of generated launchers (`backends/triton/launch.py`)."""

import pytest
import torch

import aten_mlir
from aten_mlir.backends.triton.launch import subview


@pytest.mark.parametrize(
    "sizes, result, kept",
    [
        ([1, 5, 1], [1, 5], [0, 1]),  # the trailing unit dim goes, as MLIR matches greedily
        ([1, 1, 5], [1, 5], [0, 2]),
        ([1, 5, 1], [None, 1], [1, 2]),  # dynamic: a leading unit dim goes while dims remain
        ([2, 1, 3], [2, 3], [0, 2]),
    ],
)
def test_rank_reducing_subview_keeps_the_dims_mlir_keeps(sizes, result, kept):
    t = torch.arange(4 * 6 * 5, dtype=torch.float32).view(4, 6, 5)
    full = subview(t, [1, 0, 2], sizes, [1, 1, 1], [None] * 3)
    view = subview(t, [1, 0, 2], sizes, [1, 1, 1], result)
    assert list(view.shape) == [sizes[d] for d in kept]
    assert torch.equal(view.flatten(), full.flatten())


class Cdist(torch.nn.Module):
    def forward(self, x, y):
        return torch.ops.aten._cdist_forward(x, y, 2.0, None)


def test_buffers_that_may_alias_are_freed_on_the_host():
    # with dynamic rows cdist picks its route at run time; the deallocation pipeline then
    # compares base pointers and frees under a condition, all of it launcher code
    x, y = torch.randn(5, 4), torch.randn(6, 4)
    rows = torch.export.Dim("rows", min=2)
    ep = torch.export.export(Cdist(), (x, y), dynamic_shapes=({0: rows}, None))
    compiled = aten_mlir.compile(ep, target="triton")
    assert "untyped_storage().data_ptr()" in compiled.library.source
    for n in (5, 30):
        x = torch.randn(n, 4)
        torch.testing.assert_close(compiled(x, y), Cdist()(x, y), atol=1e-4, rtol=1e-4)
