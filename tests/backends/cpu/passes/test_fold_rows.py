"""cpu-vectorize-contractions folds a product's contiguous row dims (A [b, s, k], C [b, s, n],
(b, s) absent from B) into one m of b*s rows: values vs eager at odd sizes, static and `?`
batch, and the IR runs the kernel on the collapsed views."""

import pytest
import torch

import aten_mlir
from aten_mlir.backends.cpu.passes import fold_rows


class Lin(torch.nn.Module):
    def __init__(self, k: int, n: int):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(n, k))

    def forward(self, x):
        return x @ self.w.T


class MatMul(torch.nn.Module):
    def __init__(self, k: int, n: int):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(k, n))

    def forward(self, x):
        return x @ self.w


def _vectorized_ir(tmp_path, mod, x, dynamic=None):
    ep = torch.export.export(mod, (x,), dynamic_shapes=dynamic)
    prog = aten_mlir.compile(ep, target="cpu", dump_dir=str(tmp_path), cache=False)
    return prog, (tmp_path / "05-vectorize.mlir").read_text()


@pytest.mark.parametrize("make", [Lin, MatMul])
@pytest.mark.parametrize(
    "b,s,k,n", [(1, 1, 7, 9), (3, 7, 33, 17), (2, 100, 257, 130), (4, 257, 64, 600)]
)
def test_static_rows_fold(tmp_path, make, b, s, k, n):
    torch.manual_seed(0)
    mod, x = make(k, n).eval(), torch.randn(b, s, k)
    prog, ir = _vectorized_ir(tmp_path, mod, x)
    if b > 1 and s > 1:  # unit dims are dropped before this pass
        assert f"{b}x{s}x{k}xf32> into memref<{b * s}x{k}xf32>" in ir
    assert "vector<" in ir
    with torch.no_grad():
        torch.testing.assert_close(prog(x), mod(x), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("make", [Lin, MatMul])
def test_dynamic_batch_folds(tmp_path, make):
    torch.manual_seed(0)
    k, n, s = 65, 257, 33
    mod = make(k, n).eval()
    batch = torch.export.Dim("batch", min=1, max=4096)
    prog, ir = _vectorized_ir(tmp_path, mod, torch.randn(2, s, k), ({0: batch},))
    assert f"?x{s}x{k}xf32> into memref<?x{k}xf32>" in ir
    for b in (1, 3, 31):
        x = torch.randn(b, s, k)
        with torch.no_grad():
            torch.testing.assert_close(prog(x), mod(x), rtol=1e-4, atol=1e-3)


def test_off_switch_keeps_batch_loop(tmp_path, monkeypatch):
    monkeypatch.setattr(fold_rows, "ENABLED", False)
    mod, x = Lin(64, 600).eval(), torch.randn(2, 100, 64)
    prog, ir = _vectorized_ir(tmp_path, mod, x)
    assert "2x100x64xf32> into memref<200x64xf32>" not in ir
    with torch.no_grad():
        torch.testing.assert_close(prog(x), mod(x), rtol=1e-4, atol=1e-3)


class LinearGelu(torch.nn.Module):
    """A ConvNeXt block's channels-last Linear with its bias and GELU (the epilogue the AMX
    kernel would take from C)."""

    def __init__(self, k: int, n: int):
        super().__init__()
        self.lin = torch.nn.Linear(k, n)

    def forward(self, x):
        return torch.nn.functional.gelu(self.lin(x))


def test_bf16_rows_fold_without_amx(tmp_path):
    """bf16 products fold too where no AMX kernel reads C as its epilogue: unfolded, each
    [b, 14] row block of a [b, 14, 14, 96] Linear was a product of its own (0.33x eager)."""
    from aten_mlir.backends.cpu.target import cpu_target

    torch.manual_seed(0)
    mod = LinearGelu(96, 384).eval().bfloat16()
    batch = torch.export.Dim("batch", min=1, max=64)
    x = torch.randn(3, 14, 14, 96).bfloat16()
    prog, ir = _vectorized_ir(tmp_path, mod, x, ({0: batch},))
    folded = "x14x14x96xbf16> into memref<?x96xbf16>" in ir
    assert folded == (not cpu_target().amx_bf16)
    for b in (1, 3, 7):
        x = torch.randn(b, 14, 14, 96).bfloat16()
        with torch.no_grad():
            torch.testing.assert_close(prog(x), mod(x), rtol=2e-2, atol=2e-2)
