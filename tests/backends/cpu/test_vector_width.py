"""The native build uses the whole vector register of its target CPU: zmm on every AVX-512
`-mcpu` (LLVM tunes recent Intel CPUs for 256-bit vectors, `prefer-256-bit`, which opt's loop
vectorizer follows: `CpuTarget.llvm_flags()` turns it off), ymm and no zmm on AVX2 CPUs. Code
built for a CPU this host lacks is only read (assembly), not run."""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import aten_mlir
from aten_mlir.backends.cpu import native
from aten_mlir.backends.cpu.target import cpu_target

AVX512 = [
    "rocketlake",
    "skylake-avx512",
    "icelake-server",
    "sapphirerapids",
    "emeraldrapids",
    "znver4",
    "x86-64-v4",
]
AVX2 = ["x86-64-v3", "haswell"]

# a loop only opt's loop vectorizer makes vector code of (no vector type in it)
LOOP = b"""
define void @saxpy(ptr noalias %x, ptr noalias %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %py = getelementptr float, ptr %y, i64 %i
  %a = load float, ptr %px
  %b = load float, ptr %py
  %s = call float @llvm.fmuladd.f32(float %a, float 2.0, float %b)
  store float %s, ptr %py
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
declare float @llvm.fmuladd.f32(float, float, float)
"""

_LINEAR: dict[int, bytes] = {}


def _linear_ir(cpu: str, tmp_path_factory) -> bytes:
    """LLVM IR of a Linear(256, 200) lowered for `cpu`'s vector width (one lowering per
    width: the MLIR passes read only that of the target)."""
    width = cpu_target(cpu).vector_bytes
    if width not in _LINEAR:
        torch.manual_seed(0)
        ep = torch.export.export(nn.Linear(256, 200), (torch.randn(33, 256),))
        dump = tmp_path_factory.mktemp(f"linear{width}")
        saved = native.CPU
        native.CPU = cpu
        try:
            aten_mlir.compile(ep, target="cpu", dump_dir=dump, cache=False)
        finally:
            native.CPU = saved
        text = (dump / "07-llvm.mlir").read_text()
        _LINEAR[width] = native._translate(text.encode())
    return _LINEAR[width]


def _fmas(asm: str, register: str) -> int:
    return len(re.findall(rf"vfmadd\w*\s+[^\n]*%{register}", asm))


@pytest.mark.parametrize("cpu", AVX512)
def test_avx512_targets_use_zmm(cpu, tmp_path_factory):
    target = cpu_target(cpu)
    assert target.vector_bytes == 64
    linear = native.assembly(_linear_ir(cpu, tmp_path_factory), target)
    assert _fmas(linear, "zmm") >= 8, linear[:2000]
    loop = native.assembly(LOOP, target)
    assert _fmas(loop, "zmm") >= 1 and _fmas(loop, "ymm") <= 1, loop


@pytest.mark.parametrize("cpu", AVX2)
def test_avx2_targets_use_ymm(cpu, tmp_path_factory):
    target = cpu_target(cpu)
    assert target.vector_bytes == 32
    for ir in (_linear_ir(cpu, tmp_path_factory), LOOP):
        asm = native.assembly(ir, target)
        assert "zmm" not in asm and _fmas(asm, "ymm") >= 1, asm[:2000]


def test_prefer_256_bit_is_what_the_flag_turns_off(monkeypatch):
    """Without `-mattr=-prefer-256-bit` (the flags before), opt vectorizes the loop for ymm
    on Sapphire Rapids: the test above can fail."""
    target = cpu_target("sapphirerapids")
    monkeypatch.setattr(type(target), "llvm_flags", lambda self: ["-mcpu=sapphirerapids"])
    loop = native.assembly(LOOP, target)
    assert "zmm" not in loop and _fmas(loop, "ymm") >= 1, loop


def test_the_host_build_runs_512_bit_loops():
    """The host (`-mcpu=native`) gets the flag too when it has AVX-512."""
    host = cpu_target("native")
    if host.vector_bytes != 64:
        pytest.skip("the host has no AVX-512")
    assert "-mattr=-prefer-256-bit" in host.llvm_flags()
    assert _fmas(native.assembly(LOOP, host), "zmm") >= 1
