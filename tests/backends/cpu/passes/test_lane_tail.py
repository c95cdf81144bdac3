"""`cpu-vectorize-generics` on rows of a run-time length (lane_tail.py): the main loop of whole
steps, then halving unmasked steps and one masked one-register step, all decided outside the
row loops. One compile per program, every row length from empty to several main steps,
against eager."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import aten_mlir
from tests.modules import Fn

# 0 (no elements), 1, below a register, a register and one, the bench's 33 / 77, whole
# 64-lane steps plus every halving bit (127 = 64 + 32 + 16 + 15), and long rows.
LENGTHS = (0, 1, 7, 16, 17, 33, 48, 64, 77, 127, 129, 200)


def _compile(fn, example, tmp_path):
    n = Dim("n", max=4096)
    ep = torch.export.export(Fn(fn), (example,), dynamic_shapes=(({1: n},),))
    return aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)


def _rows(x):
    """Several reductions and elementwise passes over the `?` row: max, exp (a polynomial
    body), sum, scale, an integer sum and a product of two reductions in one expression."""
    soft = torch.softmax(x, -1)
    keys = (x * 4).to(torch.int32)
    spread = x.amax(-1) - x.amin(-1)
    return soft * 2 + 1, keys.sum(-1), spread, torch.nn.functional.gelu(x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_dynamic_rows_at_every_tail(dtype, tmp_path):
    torch.manual_seed(0)
    compiled = _compile(_rows, torch.randn(5, 40).to(dtype), tmp_path)
    text = (tmp_path / "06-loops.mlir").read_text()
    if dtype == torch.float32:
        # the last partial step is one register wide; its mask is built once per nest, not
        # inside a row's branch
        assert re.search(r"vector\.create_mask %\w+ : vector<16xi1>", text), text
        assert not re.search(r"scf\.if[^\n]*\{\s+%\w+ = vector\.create_mask", text), text
    tol = {"atol": 2e-2, "rtol": 2e-2} if dtype == torch.bfloat16 else {}
    for n in LENGTHS:
        x = (torch.randn(5, n) * 3).to(dtype)
        if n == 0:  # eager's amax rejects an empty row: the other outputs are checked
            soft, keys, _, gelu = compiled(x)
            assert soft.shape == gelu.shape == (5, 0)
            torch.testing.assert_close(keys, torch.zeros(5, dtype=torch.int64))
            continue
        for got, want in zip(compiled(x), _rows(x)):
            torch.testing.assert_close(got, want, **tol)


def test_nan_and_infinities_survive_the_folds(tmp_path):
    """A NaN or an infinity in any part of the row (main steps, a halving step, the masked
    step) reaches the row's max and sum."""
    compiled = _compile(lambda x: (x.amax(-1), x.sum(-1)), torch.randn(3, 40), tmp_path)
    for n in (1, 33, 77, 127):
        for at in sorted({0, n // 2, n - 1}):
            for value in (float("nan"), float("inf"), float("-inf")):
                x = torch.randn(3, n)
                x[1, at] = value
                got = compiled(x)
                for g, w in zip(got, (x.amax(-1), x.sum(-1))):
                    torch.testing.assert_close(g, w, equal_nan=True)
