"""`cpu-vectorize-contractions` with bf16/f16 inputs: narrow vectors loaded and widened with
`arith.extf`, the fmas and the accumulator in f32, results as close to float64 as eager's."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import aten_mlir
from tests.modules import Fn
from tests.support.narrow_products import assert_close_as_eager

NARROW = [torch.bfloat16, torch.float16]


@pytest.fixture(autouse=True)
def _fma_kernels(monkeypatch):
    """These are the FMA kernels' tests: the AMX tile kernel (its own tests) stays off."""
    monkeypatch.setenv("ATEN_MLIR_AMX", "0")
    monkeypatch.setenv("ATEN_MLIR_NARROW_DOT", "0")  # few-row bf16 products: test_narrow_dot.py
    monkeypatch.setenv("ATEN_MLIR_VNNI", "0")  # many-row bf16 products: test_vnni_kernel.py


def _compile(fn, args, tmp_path, dynamic=None):
    ep = torch.export.export(Fn(fn), args, dynamic_shapes=dynamic)
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    text = (tmp_path / "05-vectorize.mlir").read_text()
    # narrow loads widened (vectors, or scalars of A and of a packed B), fmas in f32; no scalar
    # reduction nest left
    assert "vector.fma" in text and "vector<16xf32>" in text and "arith.extf" in text
    assert '"reduction"' not in text and "linalg.matmul" not in text
    return program, text


def _linear(x, w):
    return x @ w.t()


@pytest.mark.parametrize("dtype", NARROW, ids=str)
@pytest.mark.parametrize("fn", [torch.mm, _linear], ids=["mm", "linear"])
@pytest.mark.parametrize(
    "shape", [(1, 7, 17), (7, 33, 5), (6, 300, 37), (17, 257, 33), (100, 40, 257)], ids=str
)
def test_narrow_products_are_asassert_close_as_eager(shape, fn, dtype, tmp_path):
    m, k, n = shape
    a = torch.randn(m, k, dtype=dtype)
    b = torch.randn(k, n, dtype=dtype) if fn is torch.mm else torch.randn(n, k, dtype=dtype)
    program, text = _compile(fn, (a, b), tmp_path)
    if fn is torch.mm:  # B's lanes loaded narrow: half the bytes of an f32 copy
        assert ("vector<16xbf16>" if dtype == torch.bfloat16 else "vector<16xf16>") in text
    ours = program(a, b)
    assert ours.dtype == dtype
    assert_close_as_eager(ours, fn(a, b), fn(a.double(), b.double()))


def test_a_dynamic_bf16_linear_gelu_linear(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(40, 72), torch.nn.GELU(), torch.nn.Linear(72, 24))
    model = model.to(torch.bfloat16)
    batch = Dim("batch", min=1, max=4096)
    x = torch.randn(5, 40, dtype=torch.bfloat16)
    program, _ = _compile(model, (x,), tmp_path, dynamic=(({0: batch},),))
    with torch.no_grad():
        for size in (1, 7, 17, 33, 100, 257):
            x = torch.randn(size, 40, dtype=torch.bfloat16)
            torch.testing.assert_close(program(x), model(x), rtol=1.6e-2, atol=2e-2)
