"""`cpu-native-bf16-rounding` (`backends/cpu/passes/native_bf16.py`): the "some lane is
subnormal" test before vcvtneps2bf16 is one vfpclassps per register (AVX512-DQ); a register with
a subnormal lane (of either sign, anywhere in a 32- or 64-lane vector) still takes the integer
rounding, so the values equal eager's and the integer test's bit for bit."""

import pytest
import torch

import aten_mlir
from aten_mlir.backends.cpu.target import cpu_target
from tests.modules import Fn

needs = pytest.mark.skipif(
    not (cpu_target().avx512_bf16 and "avx512dq" in cpu_target().features),
    reason="host without AVX512-BF16/DQ",
)


def _scaled(x):
    return (x.float() * 0.75).bfloat16()


def _compile(x, tmp_path, monkeypatch, fpclass: bool):
    with monkeypatch.context() as m:
        m.setenv("ATEN_MLIR_FPCLASS", "1" if fpclass else "0")
        ep = torch.export.export(Fn(_scaled), (x,))
        program = aten_mlir.compile(ep, cache=False, dump_dir=tmp_path)
    return program, (tmp_path / "07-llvm.mlir").read_text()


@needs
@pytest.mark.parametrize("n", [16, 32, 64, 100, 257])
def test_subnormal_lanes_found_by_fpclass(tmp_path, monkeypatch, n):
    x = torch.randn(5, n).bfloat16()
    x[1, n // 3] = 2.9387e-39  # subnormal lane in some register
    x[2, n - 1] = -5.0e-39  # negative subnormal, last lane
    x[3, 0] = float("nan")
    x[4, :] = 1e-38  # times 0.75: subnormal results in every lane
    program, text = _compile(x, tmp_path / "on", monkeypatch, True)
    assert "llvm.x86.avx512.fpclass.ps.512" in text
    old, old_text = _compile(x, tmp_path / "off", monkeypatch, False)
    assert "fpclass" not in old_text
    out = program(x)
    want = _scaled(x)
    assert torch.equal(out.view(torch.int16), old(x).view(torch.int16))
    assert torch.equal(out.isnan(), want.isnan())
    assert torch.equal(out.nan_to_num(), want.nan_to_num())
    assert (out[4] != 0).all() and out[1, n // 3] != 0 and out[2, n - 1] != 0
