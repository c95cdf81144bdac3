"""Two products of one A in one `tl.dot` kernel (epilogue.partner_of, matmul's pair template):
SwiGLU's gate and up projections share the A tiles, and the gate never goes to memory."""

import torch
from torch import nn
from triton.backends.compiler import GPUTarget

import aten_mlir
from aten_mlir.backends.triton.host.traffic import report


class SwiGLU(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(24, 40, bias=False)
        self.up = nn.Linear(24, 40, bias=False)
        self.down = nn.Linear(40, 24, bias=False)

    def forward(self, x):
        return self.down(nn.functional.silu(self.gate(x)) * self.up(x))


class TwoHeads(nn.Module):
    """Two projections of one input, both returned: paired, both results stored."""

    def __init__(self):
        super().__init__()
        self.k = nn.Linear(24, 16, bias=False)
        self.v = nn.Linear(24, 16, bias=False)

    def forward(self, x):
        return self.k(x), self.v(x)


def _compile(model, x):
    return aten_mlir.compile(torch.export.export(model, (x,)), target="triton")


def test_gate_and_up_run_in_one_kernel_and_the_gate_stays_in_registers():
    model, x = SwiGLU(), torch.randn(3, 10, 24)
    compiled = _compile(model, x)
    assert [k.mode for k in compiled.library.kernels] == ["matmul", "matmul"]
    first = compiled.library.kernels[0]
    assert "accq = tl.dot(" in first.source and "tl.store(cqp" not in first.source
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    r = report(compiled, x)
    weights = sum(p.numel() for p in model.parameters())
    hidden = 3 * 10 * 40  # silu(gate) * up: written once, read by the down projection
    assert r["bytes_moved"] == (x.numel() * 2 + weights + hidden * 2) * 4


def test_paired_products_without_an_epilogue_store_both_results():
    model, x = TwoHeads(), torch.randn(5, 24)
    compiled = _compile(model, x)
    (kernel,) = compiled.library.kernels
    assert "tl.store(cqp" in kernel.source and "tl.store(cp" in kernel.source
    with torch.no_grad():
        for a, e in zip(compiled(x), model(x)):
            torch.testing.assert_close(a, e, atol=1e-5, rtol=1e-5)
    asm = compiled.library.compile_for(GPUTarget("cuda", 90, 32))
    assert asm[kernel.name]["ptx"]
