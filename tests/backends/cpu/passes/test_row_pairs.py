"""`cpu-pair-rows` (`backends/cpu/passes/row_pairs.py`): a row nest runs two rows per iteration,
each lane loop once for both; the same values as one row per iteration, bit for bit."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import aten_mlir
from tests.modules import Fn


def _softmax(x):
    return torch.softmax(x, -1)


def _attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v)


def _compile(fn, args, tmp_path, dynamic=None):
    ep = torch.export.export(Fn(fn), args, dynamic_shapes=dynamic)
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    return program, (tmp_path / "06-loops.mlir").read_text()


def _unpaired(fn, args, monkeypatch, tmp_path, dynamic=None):
    with monkeypatch.context() as m:
        m.setenv("ATEN_MLIR_PAIR_ROWS", "0")
        return _compile(fn, args, tmp_path / "unpaired", dynamic)


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return torch.equal(
        a.view(torch.int16 if a.element_size() == 2 else torch.int32),
        b.view(torch.int16 if b.element_size() == 2 else torch.int32),
    )


def _rows(rows: int, width: int, dtype) -> torch.Tensor:
    x = torch.randn(rows, width) * 4
    x[0, width // 2] = float("nan")
    if rows > 2:
        x[1, :] = float("-inf")
        x[2, width // 3] = float("inf")
    return x.to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("rows, width", [(8, 256), (34, 100), (6, 201), (2, 1)])
def test_two_rows_per_iteration(tmp_path, monkeypatch, dtype, rows, width):
    x = _rows(rows, width, dtype)
    program, text = _compile(_softmax, (x,), tmp_path)
    single, single_text = _unpaired(_softmax, (x,), monkeypatch, tmp_path)
    if width >= 4:  # rows shorter than 4 elements run scalar (no lane loops to pair)
        # each lane loop (and the masked rest step) holds both rows' exponentials
        assert text.count("math.exp") == 2 * single_text.count("math.exp")
        assert text.count("llvm.intr.stacksave") == 1
    out = program(x)
    torch.testing.assert_close(out, _softmax(x), equal_nan=True)
    assert _same_bits(out, single(x))


@pytest.mark.parametrize("rows, width", [(1, 100), (7, 100), (33, 100), (8, 300), (4, 1024)])
def test_odd_rows_and_long_rows_stay_one_per_iteration(tmp_path, monkeypatch, rows, width):
    x = _rows(rows, width, torch.float32)
    program, text = _compile(_softmax, (x,), tmp_path)
    assert text.count("math.exp") == _unpaired(_softmax, (x,), monkeypatch, tmp_path)[1].count(
        "math.exp"
    )
    torch.testing.assert_close(program(x), _softmax(x), equal_nan=True)


def test_dynamic_rows_are_not_paired(tmp_path):
    x = torch.randn(8, 64)
    program, text = _compile(_softmax, (x,), tmp_path, (({0: Dim("r"), 1: Dim("c")},),))
    # one row: the main step, the halving steps of the rest (32 and 16 lanes on AVX-512) and
    # the masked step (lane_tail.py); a pair would have twice as many
    assert text.count("math.exp") <= 4
    for rows, width in ((7, 33), (100, 100), (2, 257)):
        x = _rows(rows, width, torch.float32)
        torch.testing.assert_close(program(x), _softmax(x), equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("seq, dim", [(256, 64), (100, 80), (17, 64)])
def test_attention_rows(tmp_path, monkeypatch, dtype, seq, dim):
    args = tuple(torch.randn(2, 3, seq, dim).to(dtype) for _ in range(3))
    program, _ = _compile(_attention, args, tmp_path)
    out = program(*args)
    tol = {"atol": 3e-2, "rtol": 3e-2} if dtype == torch.bfloat16 else {}
    torch.testing.assert_close(out, _attention(*args), **tol)
    assert _same_bits(out, _unpaired(_attention, args, monkeypatch, tmp_path)[0](*args))
