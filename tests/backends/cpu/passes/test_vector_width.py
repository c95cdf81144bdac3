"""`cpu-vectorize-generics` takes its vector width from the target CPU: two registers of f32
per elementwise step and four per reduction step (32 and 64 lanes on AVX-512, 16 and 32 on
AVX2), four per elementwise step whose body is a polynomial expansion (exp, erf...) on AVX-512
only (64 lanes; 16 on AVX2, whose 16 registers four chains would spill), unless `lanes` /
`reduction-lanes` say otherwise."""

from __future__ import annotations

import importlib.util

import pytest
from mlir import ir

from aten_mlir.backends.cpu.passes import vectorize
from aten_mlir.dialects import make_context
from aten_mlir.passes import run_pipeline

SOURCE = """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @f(%x: memref<8x1000xf32>, %y: memref<8x1000xf32>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x1000xf32>) outs(%y : memref<8x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x1000xf32>) outs(%y : memref<8x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1000xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  }
  return
}
"""


def _vectorized(pipeline: str) -> str:
    with make_context():
        module = ir.Module.parse(SOURCE)
        run_pipeline(module, pipeline)
        return str(module)


@pytest.mark.parametrize(
    "register, step, long_step, reduction", [(16, 32, 64, 64), (8, 16, 16, 32)]
)
def test_lanes_follow_the_register_width(register, step, long_step, reduction, monkeypatch):
    monkeypatch.setattr(vectorize, "register_lanes", lambda cpu: register)
    text = _vectorized("cpu-vectorize-generics")
    assert f"math.exp %0 : vector<{long_step}xf32>" in text, text
    assert f"arith.mulf %0, %0 : vector<{step}xf32>" in text, text
    assert f"-> (vector<{reduction}xf32>)" in text, text


def test_long_bodies_switch(monkeypatch):
    monkeypatch.setattr(vectorize, "register_lanes", lambda cpu: 16)
    monkeypatch.setenv("ATEN_MLIR_LONG_BODY_LANES", "0")  # A/B: two registers for every body
    assert "math.exp %0 : vector<32xf32>" in _vectorized("cpu-vectorize-generics")


def test_explicit_lanes_win(monkeypatch):
    monkeypatch.setattr(vectorize, "register_lanes", lambda cpu: 8)
    text = _vectorized("cpu-vectorize-generics{lanes=8 reduction-lanes=128}")
    assert "math.exp %0 : vector<8xf32>" in text and "-> (vector<128xf32>)" in text, text


_TARGET = importlib.util.find_spec("aten_mlir.backends.cpu.target") is not None


@pytest.mark.skipif(not _TARGET, reason="backends/cpu/target.py (cpu_target) not there yet")
@pytest.mark.parametrize("cpu, step", [("haswell", 16), ("skylake-avx512", 32)])
def test_cpu_option(cpu, step):
    text = _vectorized(f"cpu-vectorize-generics{{cpu={cpu}}}")
    assert f"math.exp %0 : vector<{16 if step == 16 else 2 * step}xf32>" in text, text
    assert f"arith.mulf %0, %0 : vector<{step}xf32>" in text, text
    assert f"-> (vector<{2 * step}xf32>)" in text, text
