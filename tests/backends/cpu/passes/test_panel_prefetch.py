"""panel_prefetch: the tiles of the packed kernel (x @ W.T, W's rows copied as panels) and of
the outer kernel on panels (x @ W, W's rows 4 KiB apart) prefetch the block of W the next
copy reads. The prefetches are clamped inside B: values vs eager at odd rows, k and columns
(partial n tiles, k blocks and n blocks; the last block clamps), static and `?` rows, batched
q @ k.T, a strided view; the IR has the prefetches only with the switches on."""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.passes import panel_prefetch
from aten_mlir.passes.ir import nested_ops


class _Linear(torch.nn.Module):
    def forward(self, x, w):
        return x @ w.t()


class _Product(torch.nn.Module):
    def forward(self, x, w):
        return x @ w


class _FirstColumns(torch.nn.Module):
    """x @ w[:, :1000]: B a strided view of w's rows."""

    def forward(self, x, w):
        return x @ w[:, :1000]


class _Scores(torch.nn.Module):
    def forward(self, q, k):
        return q @ k.transpose(-1, -2)


def _prefetches(dump_dir) -> int:
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse((dump_dir / "05-vectorize.mlir").read_text())
        return sum(op.name == "memref.prefetch" for op in nested_ops(module.operation))


def _compile(module, args, dump_dir, on: bool, monkeypatch, **export_options):
    monkeypatch.setattr(panel_prefetch, "PREFETCH_NEXT_BLOCK", on)
    monkeypatch.setattr(panel_prefetch, "PREFETCH_OUTER", on)
    ep = torch.export.export(module, args, **export_options)
    return aten_mlir.compile(ep, target="cpu", dump_dir=dump_dir, cache=False)


@pytest.mark.parametrize(
    "m, k, n",
    [
        (100, 129, 1000),  # k < 3 rows: packed; two n blocks, a partial k block
        (64, 2500, 129),  # long k: 10 k blocks, the last partial; a partial n tile
        (300, 531, 1100),  # several m blocks
        (33, 77, 1000),
        (130, 64, 50257),  # 99 n blocks, the last one partial
    ],
)
def test_linear_prefetching_next_block_matches_eager(tmp_path, monkeypatch, m, k, n):
    torch.manual_seed(0)
    x, w = torch.randn(m, k), torch.randn(n, k)
    expected = x @ w.t()
    counts = {}
    for on in (False, True):
        dump = tmp_path / str(on)
        compiled = _compile(_Linear(), (x, w), dump, on, monkeypatch)
        torch.testing.assert_close(compiled(x, w), expected, rtol=1e-4, atol=1e-3)
        counts[on] = _prefetches(dump)
    assert counts[True] > counts[False]


@pytest.mark.parametrize(
    "m, k, n, view",
    [
        (100, 300, 1024, False),  # rows 4 KiB apart: panels; two k blocks, the last partial
        (65, 531, 2048, False),  # a 1-row m tile, four n blocks
        (129, 77, 3072, False),  # k shorter than a block
        (70, 260, 1000, True),  # w[:, :1000] of [260, 1024]: 4 KiB rows, a masked last panel
    ],
)
def test_product_on_panels_prefetching_matches_eager(tmp_path, monkeypatch, m, k, n, view):
    torch.manual_seed(0)
    x = torch.randn(m, k)
    w = torch.randn(k, 1024 if view else n)
    module = _FirstColumns() if view else _Product()
    expected = module(x, w)
    counts = {}
    for on in (False, True):
        dump = tmp_path / str(on)
        compiled = _compile(module, (x, w), dump, on, monkeypatch)
        torch.testing.assert_close(compiled(x, w), expected, rtol=1e-4, atol=1e-3)
        counts[on] = _prefetches(dump)
    assert counts[True] > counts[False]


def test_product_dynamic_rows(tmp_path, monkeypatch):
    """x[?, 300] @ W[300, 2048]: the panel branch of the run-time choice from 64 rows."""
    torch.manual_seed(0)
    w = torch.randn(300, 2048)
    compiled = _compile(
        _Product(),
        (torch.randn(129, 300), w),
        tmp_path,
        True,
        monkeypatch,
        dynamic_shapes=({0: Dim("rows")}, None),
    )
    assert _prefetches(tmp_path) > 0
    for rows in (1, 7, 33, 64, 129, 300):
        x = torch.randn(rows, 300)
        torch.testing.assert_close(compiled(x, w), x @ w, rtol=1e-4, atol=1e-3)


def test_dynamic_rows(tmp_path, monkeypatch):
    """x[?, 300] @ W[1000, 300].T: the packed branch of the run-time choice from 101 rows."""
    torch.manual_seed(0)
    w = torch.randn(1000, 300)
    compiled = _compile(
        _Linear(),
        (torch.randn(129, 300), w),
        tmp_path,
        True,
        monkeypatch,
        dynamic_shapes=({0: Dim("rows")}, None),
    )
    assert _prefetches(tmp_path) > 0
    for rows in (1, 7, 33, 101, 129, 257, 300):
        x = torch.randn(rows, 300)
        torch.testing.assert_close(compiled(x, w), x @ w.t(), rtol=1e-4, atol=1e-3)


def test_batched_scores(tmp_path, monkeypatch):
    """q @ k.T over a batch dim (the prefetch's B index carries the batch): [3, 129, 33] @
    [3, 65, 33].T, and a `?` sequence."""
    torch.manual_seed(0)
    q, k = torch.randn(3, 129, 33), torch.randn(3, 65, 33)
    compiled = _compile(_Scores(), (q, k), tmp_path / "static", True, monkeypatch)
    torch.testing.assert_close(compiled(q, k), q @ k.transpose(-1, -2), rtol=1e-4, atol=1e-4)
    seq = Dim("seq")
    compiled = _compile(
        _Scores(),
        (q, torch.randn(3, 129, 33)),
        tmp_path / "dynamic",
        True,
        monkeypatch,
        dynamic_shapes=({1: seq}, {1: seq}),
    )
    for s in (1, 7, 33, 129, 200):
        q, k = torch.randn(3, s, 33), torch.randn(3, s, 33)
        torch.testing.assert_close(compiled(q, k), q @ k.transpose(-1, -2), rtol=1e-4, atol=1e-4)
