"""The outer kernel's A copied as k-major strips of register-block rows (a_pack): values vs
eager at odd sizes (remainders in m, k and n), `?` rows and `?` k from one compile, A strided
along k (the element-at-a-time copy), the 256-bit blocks, and the IR has the copy only when
PACK_A is on."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.passes import a_pack, b_panels, contractions, kernels, outer_kernel
from tests.modules import Fn

ODD_ROWS = (1, 7, 17, 33, 100, 257, 1000)
# the strips' alloc: [k blocks, strips, block_k, R] (R 8 on AVX-512, 6 on AVX2)
STRIPS = re.compile(
    r"memref\.alloc\([^)]*\) \{alignment = 64 : i64\} : memref<[\d?]+x[\d?]+x256x[68]xf32>"
)


def _matmul(a, b):
    return a @ b


def _linear(a, w):
    return a @ w.t()


def _compile(fn, args, tmp_path, dynamic_shapes=None):
    dynamic = None if dynamic_shapes is None else (dynamic_shapes,)  # Fn's *args
    ep = torch.export.export(Fn(fn), args, dynamic_shapes=dynamic)
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    return program, (tmp_path / "05-vectorize.mlir").read_text()


@pytest.mark.parametrize("rows", ODD_ROWS)
@pytest.mark.parametrize("fn", [_matmul, _linear], ids=["a@b", "x@W.T"])
def test_packed_a_equals_eager_at_odd_sizes(fn, rows, tmp_path, monkeypatch):
    """k 530: 3 k blocks, the last one partial and not a whole vector; n 600: a masked tail."""
    # the panel path (an unaliased f32 B would be read in place: test_b_in_place.py)
    monkeypatch.setattr(b_panels, "IN_PLACE_UNALIASED_B", False)
    k, n = 530, 600
    a = torch.randn(rows, k)
    b = torch.randn(k, n) if fn is _matmul else torch.randn(n, k)
    program, text = _compile(fn, (a, b), tmp_path)
    torch.testing.assert_close(program(a, b), fn(a, b), rtol=1e-4, atol=1e-3)
    # on the panel path (fewer rows: in place; x @ W.T at fewer rows per k: the dot kernel)
    if rows >= (outer_kernel.PANEL_MIN_ROWS if fn is _matmul else 1000):
        assert STRIPS.search(text), "A not copied as strips"
        assert "vector.extract_strided_slice" in text  # the copy by register transposes
        assert "vector.fma" in text


def test_no_strips_when_off(tmp_path, monkeypatch):
    monkeypatch.setattr(outer_kernel, "PACK_A", False)
    a, b = torch.randn(100, 530), torch.randn(530, 600)
    program, text = _compile(_matmul, (a, b), tmp_path)
    torch.testing.assert_close(program(a, b), a @ b, rtol=1e-4, atol=1e-3)
    assert not STRIPS.search(text)


def test_narrow_products_do_not_copy_a(tmp_path):
    """Fewer columns than a_pack.MIN_COLUMNS: the copy would not pay."""
    a, b = torch.randn(300, 256), torch.randn(256, a_pack.MIN_COLUMNS - 16)
    program, text = _compile(_matmul, (a, b), tmp_path)
    torch.testing.assert_close(program(a, b), a @ b, rtol=1e-4, atol=1e-3)
    assert not STRIPS.search(text)


@pytest.mark.parametrize("fn", [_matmul, _linear], ids=["a@b", "x@W.T"])
def test_packed_a_with_dynamic_rows(fn, tmp_path, monkeypatch):
    """`?` rows: the strips sized at run time, one compile for every size."""
    # the panel path (an unaliased f32 B would be read in place: test_b_in_place.py)
    monkeypatch.setattr(b_panels, "IN_PLACE_UNALIASED_B", False)
    k, n = 300, 521
    b = torch.randn(k, n) if fn is _matmul else torch.randn(n, k)
    rows = Dim("rows", min=1, max=4096)
    program, text = _compile(fn, (torch.randn(64, k), b), tmp_path, ({0: rows}, None))
    assert STRIPS.search(text) and "memref.dim" in text
    for m in ODD_ROWS:
        a = torch.randn(m, k)
        torch.testing.assert_close(program(a, b), fn(a, b), rtol=1e-4, atol=1e-3)


def test_packed_a_with_dynamic_rows_and_k(tmp_path):
    """`?` rows and `?` k: the strips' k blocks counted at run time, k's tail masked."""
    rows, depth = Dim("rows", min=1, max=4096), Dim("depth", min=1, max=4096)
    a, b = torch.randn(64, 64), torch.randn(64, 520)
    program, text = _compile(_matmul, (a, b), tmp_path, ({0: rows, 1: depth}, {0: depth}))
    assert STRIPS.search(text)
    for m, k in ((1, 1), (7, 17), (33, 256), (100, 257), (257, 530), (1000, 33)):
        a, b = torch.randn(m, k), torch.randn(k, 520)
        torch.testing.assert_close(program(a, b), a @ b, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("rows", [7, 100, 257])
def test_a_strided_along_k(rows, tmp_path):
    """A read through a transposed view: copied an element at a time (values only: the view
    may be copied contiguous before the kernel)."""
    a, b = torch.randn(530, rows), torch.randn(530, 600)

    def fn(a, b):
        return a.t() @ b

    program, _ = _compile(fn, (a, b), tmp_path)
    torch.testing.assert_close(program(a, b), fn(a, b), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("shape", [(100, 530, 600), (257, 17, 529)], ids=str)
def test_packed_a_on_avx2_blocks(shape, tmp_path, monkeypatch):
    """6-row strips from 8-lane transposes (two rows of zeros), run on the host."""
    monkeypatch.setattr(contractions, "_blocking", lambda cpu: kernels.AVX2)
    m, k, n = shape
    a, b = torch.randn(m, k), torch.randn(k, n)
    program, text = _compile(_matmul, (a, b), tmp_path)
    torch.testing.assert_close(program(a, b), a @ b, rtol=1e-4, atol=1e-3)
    assert STRIPS.search(text) and "x256x6xf32>" in text
