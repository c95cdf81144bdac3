"""b_panels: the f32 outer kernel reads an unaliased B (rows not a multiple of 4 KiB apart, at
most IN_PLACE_MAX_B_BYTES) in place at any rows, an aliased or large B from panels; and the
panel copy loads whole panels unmasked, the last partial one masked. Values against eager at odd
sizes, static and `?` rows, batched and strided operands."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.passes import b_panels
from tests.modules import Fn
from tests.support.dynamic_products import ODD_SIZES
from tests.support.panel_loops import loops_around_copy_and_tiles


def _compile(fn, args, tmp_path, dynamic_shapes=None):
    dynamic = None if dynamic_shapes is None else (dynamic_shapes,)  # Fn's *args
    ep = torch.export.export(Fn(fn), args, dynamic_shapes=dynamic)
    return aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)


def _check(program, fn, args):
    torch.testing.assert_close(program(*args), fn(*args), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("rows", [1, 7, 33, 64, 129, 300])
def test_unaliased_b_is_read_in_place_at_any_rows(rows, tmp_path):
    """B [531, 1100] (4400 B rows, k odd, n not a multiple of 16): no panels, even past
    PANEL_MIN_ROWS."""
    a, b = torch.randn(rows, 531), torch.randn(531, 1100)
    program = _compile(torch.mm, (a, b), tmp_path)
    _check(program, torch.mm, (a, b))
    assert loops_around_copy_and_tiles(tmp_path) is None


@pytest.mark.parametrize("rows", [64, 129])
def test_b_rows_4k_apart_keep_the_panels(rows, tmp_path):
    """B [300, 1024]: its rows 4 KiB apart alias in the caches read in place; a strided view
    B[:, :1000] of it too, its last panel (1000 = 31 x 32 + 8) loaded masked."""
    a, full = torch.randn(rows, 300), torch.randn(300, 1024)
    program = _compile(torch.mm, (a, full), tmp_path / "whole")
    _check(program, torch.mm, (a, full))
    assert loops_around_copy_and_tiles(tmp_path / "whole") is not None

    def view(a, b):
        return a @ b[:, :1000]

    program = _compile(view, (a, full), tmp_path / "view")
    _check(program, view, (a, full))
    assert loops_around_copy_and_tiles(tmp_path / "view") is not None


def test_a_b_larger_than_the_bound_keeps_the_panels(tmp_path, monkeypatch):
    """A B of more than IN_PLACE_MAX_B_BYTES (lowered to 1 MiB here) is copied as panels."""
    monkeypatch.setattr(b_panels, "IN_PLACE_MAX_B_BYTES", 1 << 20)
    a, b = torch.randn(100, 531), torch.randn(531, 600)  # 1.27 MB
    program = _compile(torch.mm, (a, b), tmp_path)
    _check(program, torch.mm, (a, b))
    assert loops_around_copy_and_tiles(tmp_path) is not None


def test_dynamic_rows_read_b_in_place_without_a_run_time_choice(tmp_path):
    """`?` rows with an unaliased B: one in-place kernel (no panels under an scf.if), every
    row count equal to eager, 1000 rows over several m blocks."""
    b = torch.randn(531, 1100)
    rows = Dim("rows", min=1, max=4096)
    program = _compile(torch.mm, (torch.randn(300, 531), b), tmp_path, ({0: rows}, None))
    assert loops_around_copy_and_tiles(tmp_path) is None
    for size in (*ODD_SIZES, 64, 1000):
        a = torch.randn(size, 531)
        _check(program, torch.mm, (a, b))


@pytest.mark.parametrize("transposed_a", [False, True], ids=["a@b", "a.T@b"])
def test_batched_products_in_place(transposed_a, tmp_path):
    """[3, 129, 33] @ [3, 33, 65] (attention's p @ v form, odd sizes), and with A along m."""
    a, b = torch.randn(3, 129, 33), torch.randn(3, 33, 65)
    if transposed_a:
        a = a.transpose(1, 2).contiguous()

        def fn(a, b):
            return a.transpose(1, 2) @ b
    else:
        fn = torch.matmul
    program = _compile(fn, (a, b), tmp_path)
    _check(program, fn, (a, b))
    # (C is a rank-3 buffer too: look for the panels' [panels, k, 32] alloc itself)
    text = (tmp_path / "05-vectorize.mlir").read_text()
    assert not re.search(r"memref\.alloc\(\)[^\n]*: memref<\d+x\d+x32xf32>", text)


def test_a_along_m_4k_apart_keeps_the_copies(tmp_path):
    """dY^T @ X with dY's rows 4 KiB apart: a_pack copies A as strips, on the panel path."""
    dy, x = torch.randn(300, 1024), torch.randn(300, 200)

    def fn(dy, x):
        return dy.t() @ x

    program = _compile(fn, (dy, x), tmp_path)
    _check(program, fn, (dy, x))
    assert loops_around_copy_and_tiles(tmp_path) is not None


@pytest.mark.parametrize("n", [1100, 1024, 37])
def test_panel_path_with_whole_loads_off_and_on(n, tmp_path, monkeypatch):
    """The panel copy with whole panels unmasked (and the switch off: every vector masked)
    equals eager, n a multiple of the panel or not, rows over two m blocks."""
    monkeypatch.setattr(b_panels, "IN_PLACE_UNALIASED_B", False)
    a, b = torch.randn(257, 531), torch.randn(531, n)
    for whole in (True, False):
        monkeypatch.setattr(b_panels, "WHOLE_PANEL_LOADS", whole)
        program = _compile(torch.mm, (a, b), tmp_path / str(whole))
        _check(program, torch.mm, (a, b))
        assert loops_around_copy_and_tiles(tmp_path / str(whole)) is not None
