"""dot_kernel: the dot kernel's tiles (x @ W.T with k >= 3 rows) prefetch the next cache block
of W when W is at least PREFETCH_MIN_B_BYTES (not for a static M <= FEW_ROWS, one row tile).
The prefetched row is clamped to W's last row: values vs eager at odd rows, k and n (a partial
last block, a k tail, batched W, `?` rows), and the IR has the prefetches only with the switch
on and W over the bound. (A prefetch never faults, so the clamp shows in the IR, the lit test
dot-prefetch.mlir, not in values.)"""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.passes import dot_kernel, kernel_choice
from aten_mlir.passes.ir import nested_ops


class _Linear(torch.nn.Module):
    def forward(self, x, w):
        return x @ w.transpose(-1, -2)


def _prefetches(dump_dir) -> int:
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse((dump_dir / "05-vectorize.mlir").read_text())
        return sum(op.name == "memref.prefetch" for op in nested_ops(module.operation))


def _compile(args, dump_dir, bound, monkeypatch, **export_options):
    monkeypatch.setattr(dot_kernel, "PREFETCH_MIN_B_BYTES", bound)
    # the dot kernel's own tiles: not the swapped outer kernel (outer_swap) whole 32-row
    # blocks of x with a wide W take
    monkeypatch.setenv("ATEN_MLIR_OUTER_SWAP", "0")
    ep = torch.export.export(_Linear(), args, **export_options)
    return aten_mlir.compile(ep, target="cpu", dump_dir=dump_dir, cache=False)


@pytest.mark.parametrize(
    "m, k, n, prefetched",
    [
        (1, 1024, 1100, False),  # a few rows: one row tile streams W once, no prefetch
        (7, 1001, 1100, False),
        (9, 1001, 1100, True),  # an 8-row tile, then a 1-row tile of 4 columns; a k tail
        (33, 1030, 1033, True),  # partial m and n tiles, the last n block partial
        (129, 1000, 1063, True),
        (64, 768, 5003, True),  # many n blocks, k in whole vectors
    ],
)
def test_linear_prefetching_next_block_matches_eager(tmp_path, monkeypatch, m, k, n, prefetched):
    torch.manual_seed(0)
    x, w = torch.randn(m, k), torch.randn(n, k)
    expected = x @ w.t()
    counts = {}
    for bound in (None, 1 << 20):
        dump = tmp_path / str(bound)
        compiled = _compile((x, w), dump, bound, monkeypatch)
        torch.testing.assert_close(compiled(x, w), expected, rtol=1e-4, atol=1e-3)
        counts[bound] = _prefetches(dump)
    assert counts[None] == 0
    assert (counts[1 << 20] > 0) == prefetched


def test_a_weight_under_the_bound_is_not_prefetched(tmp_path, monkeypatch):
    x, w = torch.randn(64, 512), torch.randn(512, 512)  # 1 MiB
    compiled = _compile((x, w), tmp_path, (1 << 20) + 4, monkeypatch)
    torch.testing.assert_close(compiled(x, w), x @ w.t(), rtol=1e-4, atol=1e-3)
    assert _prefetches(tmp_path) == 0


def test_batched_weights_prefetch_inside_their_own_batch(tmp_path, monkeypatch):
    torch.manual_seed(1)
    x, w = torch.randn(3, 33, 700), torch.randn(3, 1500, 700)
    compiled = _compile((x, w), tmp_path, 1 << 20, monkeypatch)
    torch.testing.assert_close(compiled(x, w), x @ w.transpose(-1, -2), rtol=1e-4, atol=1e-3)
    assert _prefetches(tmp_path) > 0


def test_dynamic_rows_prefetch_at_every_size(tmp_path, monkeypatch):
    # k above K_PER_ROW x rows for every size tried: the dot kernel of the run-time choice
    monkeypatch.setattr(kernel_choice, "LONG_K", 1 << 30)
    torch.manual_seed(2)
    w = torch.randn(1100, 1031)
    rows = Dim("rows", min=1, max=300)
    x0 = torch.randn(9, 1031)
    compiled = _compile((x0, w), tmp_path, 1 << 20, monkeypatch, dynamic_shapes=({0: rows}, None))
    assert _prefetches(tmp_path) > 0
    for m in (1, 2, 5, 7, 8, 9, 33, 129, 300):
        x = torch.randn(m, 1031)
        torch.testing.assert_close(compiled(x, w), x @ w.t(), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("m, prefetched", [(33, True), (128, True), (129, False), (200, False)])
def test_a_streamed_weight_runs_4x4_and_prefetches_up_to_128_rows(
    tmp_path, monkeypatch, m, prefetched
):
    # W (4.4 MB) over a lowered STREAMED_B_BYTES: 4 x 4 blocks, the prefetch only up to 128 rows
    monkeypatch.setattr(dot_kernel, "STREAMED_B_BYTES", 4 << 20)
    torch.manual_seed(3)
    x, w = torch.randn(m, 1001), torch.randn(1100, 1001)
    compiled = _compile((x, w), tmp_path, 1 << 20, monkeypatch)
    torch.testing.assert_close(compiled(x, w), x @ w.t(), rtol=1e-4, atol=1e-3)
    assert (_prefetches(tmp_path) > 0) == prefetched
    text = (tmp_path / "05-vectorize.mlir").read_text()
    assert "step %c4 " in text and "step %c8 " not in text  # 4-row tiles, no 8-row ones
