"""a_pack's copy of an A contiguous along m (a Linear's weight gradient dY^T @ X): values vs
eager at odd sizes, `?` k and `?` rows from one compile, a strided view of dY, a batched
product, bf16 and the 256-bit blocks; the IR has the vector copy (no element-at-a-time one)
exactly where packs_a's per-layout rule says it pays."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.passes import a_pack, contractions, kernels
from tests.modules import Fn

ODD = (1, 7, 33, 129)
# the strips' alloc: [k blocks, strips, block_k, R] (R 8 on AVX-512, 6 on AVX2), always f32
STRIPS = re.compile(
    r"memref\.alloc\([^)]*\) \{alignment = 64 : i64\} : (memref<[\d?]+x[\d?]+x256x[68]xf32>)"
)


def _grad_w(dy, x):
    return dy.t() @ x


def _compile(fn, args, tmp_path, dynamic_shapes=None):
    dynamic = None if dynamic_shapes is None else (dynamic_shapes,)  # Fn's *args
    ep = torch.export.export(Fn(fn), args, dynamic_shapes=dynamic)
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    return program, (tmp_path / "05-vectorize.mlir").read_text()


def _copied_along_m(text: str) -> bool:
    """The strips exist and are written by vector stores of R-lane pieces, never a scalar."""
    found = STRIPS.search(text)
    if not found:
        return False
    strips = re.escape(found.group(1))
    scalar = re.search(rf"memref\.store [^\n]*: {strips}", text)
    pieces = re.search(rf"vector\.store [^\n]*: {strips}, vector<[68]xf32>", text)
    return scalar is None and pieces is not None


@pytest.fixture
def fma_kernels(monkeypatch):
    """bf16 products on the FMA outer kernel whatever the host (no AMX or VNNI kernel)."""
    monkeypatch.setattr(contractions, "amx_emitter", lambda *args, **kwargs: None)
    monkeypatch.setattr(contractions, "vnni_emitter", lambda *args, **kwargs: None)


@pytest.mark.parametrize("k", ODD + (300,))
def test_copy_along_m_at_a_4k_row(k, tmp_path):
    """dY [k, 1024] f32: its rows are 4 KiB apart, the copy pays (k 300: a partial k block)."""
    dy, x = torch.randn(k, 1024), torch.randn(k, 200)
    program, text = _compile(_grad_w, (dy, x), tmp_path)
    torch.testing.assert_close(program(dy, x), _grad_w(dy, x), rtol=1e-4, atol=1e-3)
    assert _copied_along_m(text)


def test_no_copy_at_other_rows(tmp_path):
    """dY [300, 768] f32 (3 KiB rows): in place is faster, no strips."""
    dy, x = torch.randn(300, 768), torch.randn(300, 256)
    program, text = _compile(_grad_w, (dy, x), tmp_path)
    torch.testing.assert_close(program(dy, x), _grad_w(dy, x), rtol=1e-4, atol=1e-3)
    assert not STRIPS.search(text)


def test_no_copy_for_few_columns(tmp_path):
    dy, x = torch.randn(300, 1024), torch.randn(300, a_pack.MIN_COLUMNS_ALONG_M - 16)
    program, text = _compile(_grad_w, (dy, x), tmp_path)
    torch.testing.assert_close(program(dy, x), _grad_w(dy, x), rtol=1e-4, atol=1e-3)
    assert not STRIPS.search(text)


@pytest.mark.parametrize("columns", [256, 512])
def test_columns_needed_grow_with_the_stride(columns, tmp_path):
    """dY [33, 4096] f32 (16 KiB rows): copied from 4 x MIN_COLUMNS_ALONG_M columns."""
    dy, x = torch.randn(33, 4096), torch.randn(33, columns)
    program, text = _compile(_grad_w, (dy, x), tmp_path)
    torch.testing.assert_close(program(dy, x), _grad_w(dy, x), rtol=1e-4, atol=1e-3)
    assert _copied_along_m(text) == (columns >= 4 * a_pack.MIN_COLUMNS_ALONG_M)


@pytest.mark.parametrize("rows", ODD + (100, 1000))
def test_copy_along_m_of_a_strided_view(rows, tmp_path):
    """The first `rows` columns of dY [77, 2048] (rows 8 KiB apart, 300 columns): the last
    group's loads masked (and clamped) to the rows left."""

    def fn(dy, x):
        return dy[:, :rows].t() @ x

    dy, x = torch.randn(77, 2048), torch.randn(77, 300)
    program, text = _compile(fn, (dy, x), tmp_path)
    torch.testing.assert_close(program(dy, x), fn(dy, x), rtol=1e-4, atol=1e-3)
    if rows >= 64:  # fewer rows: the product reads B in place, no copies
        assert _copied_along_m(text)


def test_copy_along_m_with_dynamic_k(tmp_path):
    """`?` tokens: the strips' k blocks counted at run time."""
    tokens = Dim("tokens", min=1, max=4096)
    dy, x = torch.randn(64, 1024), torch.randn(64, 256)
    program, text = _compile(_grad_w, (dy, x), tmp_path, ({0: tokens}, {0: tokens}))
    assert _copied_along_m(text) and "memref.dim" in text
    for k in ODD + (257, 530):
        dy, x = torch.randn(k, 1024), torch.randn(k, 256)
        torch.testing.assert_close(program(dy, x), _grad_w(dy, x), rtol=1e-4, atol=1e-3)


def test_batched_copy_along_m(tmp_path):
    """dY^T @ X per batch ([b, s, d] transposed): the copy inside the batch loop."""

    def fn(dy, x):
        return dy.transpose(-1, -2) @ x

    dy, x = torch.randn(3, 33, 1024), torch.randn(3, 33, 129)
    program, text = _compile(fn, (dy, x), tmp_path)
    torch.testing.assert_close(program(dy, x), fn(dy, x), rtol=1e-4, atol=1e-3)
    assert _copied_along_m(text)


def _close_bf16(actual, expected):
    torch.testing.assert_close(actual.float(), expected.float(), rtol=2e-2, atol=1e-1)


@pytest.mark.parametrize("k", ODD + (300,))
def test_bf16_copy_along_m(k, tmp_path, fma_kernels):
    """bf16 dY at any row stride: the copy widens it once."""
    dy = torch.randn(k, 768, dtype=torch.bfloat16)
    x = torch.randn(k, 256, dtype=torch.bfloat16)
    program, text = _compile(_grad_w, (dy, x), tmp_path)
    _close_bf16(program(dy, x), _grad_w(dy, x))
    assert _copied_along_m(text)


def test_bf16_copy_along_m_with_dynamic_rows_and_k(tmp_path, fma_kernels):
    """`?` rows (dY's row stride unknown) and `?` k: bf16 still copies."""
    rows, tokens = Dim("rows", min=1, max=4096), Dim("tokens", min=1, max=4096)
    dy = torch.randn(64, 96, dtype=torch.bfloat16)
    x = torch.randn(64, 256, dtype=torch.bfloat16)
    program, text = _compile(_grad_w, (dy, x), tmp_path, ({0: tokens, 1: rows}, {0: tokens}))
    assert _copied_along_m(text)
    for m, k in ((1, 1), (7, 33), (33, 7), (129, 129), (1000, 300)):
        dy = torch.randn(k, m, dtype=torch.bfloat16)
        x = torch.randn(k, 256, dtype=torch.bfloat16)
        _close_bf16(program(dy, x), _grad_w(dy, x))


def test_f32_dynamic_rows_stay_in_place(tmp_path):
    """`?` rows in f32: dY's row stride is unknown, no copy (values at odd sizes)."""
    rows = Dim("rows", min=1, max=4096)
    dy, x = torch.randn(64, 96), torch.randn(64, 256)
    program, text = _compile(_grad_w, (dy, x), tmp_path, ({1: rows}, None))
    assert not STRIPS.search(text)
    for m in ODD + (1024,):
        dy = torch.randn(64, m)
        torch.testing.assert_close(program(dy, x), _grad_w(dy, x), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("shape", [(100, 1024, 300), (17, 1024, 529)], ids=str)
def test_copy_along_m_on_avx2_blocks(shape, tmp_path, monkeypatch):
    """6-row strips from 8-lane loads masked to 6 rows, run on the host."""
    monkeypatch.setattr(contractions, "_blocking", lambda cpu: kernels.AVX2)
    k, m, n = shape
    dy, x = torch.randn(k, m), torch.randn(k, n)
    program, text = _compile(_grad_w, (dy, x), tmp_path)
    torch.testing.assert_close(program(dy, x), _grad_w(dy, x), rtol=1e-4, atol=1e-3)
    assert _copied_along_m(text) and "x256x6xf32>" in text
