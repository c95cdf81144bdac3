"""`cpu-vectorize-contractions` pair-dot kernel (`backends/cpu/passes/narrow_dot.py`): bf16
products with a few rows (decode) as `x86vector.avx512.dot` (vdpbf16ps) on AVX512-BF16 targets
(past 4 rows, the same bf16 pairs split into f32 halves for fmas), results as close to float64
as eager's; the FMA kernels on targets without it.

Tests that run the kernel are skipped on hosts without AVX512-BF16 (vdpbf16ps would be SIGILL).
"""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.target import cpu_target
from tests.modules import Fn
from tests.support.guarded import run_isolated
from tests.support.narrow_products import assert_close_as_eager, vectorized_bf16_product

requires_bf16_dot = pytest.mark.skipif(
    not cpu_target("native").avx512_bf16, reason="host without AVX512-BF16"
)


def _vectorized(cpu: str, m="4", k="100", n="17") -> str:
    return vectorized_bf16_product(cpu, m, k, n)


def _linear(x, w):
    return x @ w.t()


def _compile(args, tmp_path, dynamic=None):
    ep = torch.export.export(Fn(_linear), args, dynamic_shapes=dynamic)
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    return program, (tmp_path / "05-vectorize.mlir").read_text()


@pytest.mark.parametrize("m", ["4", "?"])
def test_pair_dots_only_on_avx512_bf16_targets(m):
    """The kernel follows the pass's CPU, not the host: vdpbf16ps on Sapphire Rapids, widened
    fmas on x86-64-v3 (AVX2) and on Skylake-AVX512 (no BF16)."""
    dot = _vectorized("sapphirerapids", m=m)
    assert "x86vector.avx512.dot" in dot and "vector<32xbf16>" in dot
    for cpu in ("x86-64-v3", "skylake-avx512"):
        fma = _vectorized(cpu, m=m)
        assert "x86vector" not in fma and "vector.fma" in fma


def test_more_rows_or_off_stay_on_other_kernels(monkeypatch):
    assert "x86vector" not in _vectorized("sapphirerapids", m="9")
    monkeypatch.setenv("ATEN_MLIR_NARROW_DOT", "0")
    assert "x86vector" not in _vectorized("sapphirerapids", m="4")


def test_dynamic_rows_test_m_once():
    """A `?` M: the pair-dot nest runs up to 8 rows, the other kernel past them."""
    text = _vectorized("sapphirerapids", m="?")
    assert "arith.cmpi ule" in text and "scf.if" in text
    assert "vector.fma" in text or "amx.tile_mulf" in text


@requires_bf16_dot
@pytest.mark.parametrize(
    "shape", [(1, 64, 17), (3, 100, 17), (8, 257, 33), (1, 4095, 17), (5, 4095, 40)], ids=str
)
def test_few_rows_asassert_close_as_eager(shape, tmp_path):
    m, k, n = shape
    torch.manual_seed(m * k + n)
    x = torch.randn(m, k, dtype=torch.bfloat16)
    w = torch.randn(n, k, dtype=torch.bfloat16)
    program, text = _compile((x, w), tmp_path)
    # past 4 rows the pairs are split into f32 halves for fmas (faster than the dots there)
    assert ("x86vector.avx512.dot" in text) == (m <= 4), text
    assert "vector<32xbf16>" in text and ("vector.bitcast" in text) == (m > 4)
    assert_close_as_eager(program(x, w), _linear(x, w), _linear(x.double(), w.double()))


@requires_bf16_dot
def test_dynamic_rows_from_one_compile(tmp_path):
    """One compile with `?` rows (and k odd): 1..8 rows on the pair-dot blocks (rows past M
    never stored), more on the other kernel."""
    x = torch.randn(4, 4095, dtype=torch.bfloat16)
    w = torch.randn(17, 4095, dtype=torch.bfloat16)
    program, text = _compile((x, w), tmp_path, (({0: Dim("m", max=4096)}, {}),))
    assert "x86vector.avx512.dot" in text and "vector.bitcast" in text  # 1..4 rows, 8 rows
    for m in (1, 2, 3, 5, 8, 9, 40):
        x = torch.randn(m, 4095, dtype=torch.bfloat16)
        out = program(x, w)
        assert out.shape == (m, 17)
        assert_close_as_eager(out, _linear(x, w), _linear(x.double(), w.double()))


_NO_ROWS = """
import torch
from torch.export import Dim
import aten_mlir
from tests.modules import Fn
w = torch.randn(40, 64, dtype=torch.bfloat16)
f = Fn(lambda x: x @ w.t())
ep = torch.export.export(
    f, (torch.randn(5, 64, dtype=torch.bfloat16),), dynamic_shapes=(({0: Dim("m", max=64)},),)
)
program = aten_mlir.compile(ep, cache=False)
for m in (0, 1, 0, 3):
    x = torch.randn(m, 64, dtype=torch.bfloat16)
    assert program(x).shape == (m, 40)
    torch.testing.assert_close(program(x), f(x), rtol=2e-2, atol=2e-2)
print("ok")
"""


@requires_bf16_dot
def test_no_rows_run_no_block():
    """M = 0 of `?` rows: the blocks read and stored row 0 of empty buffers (a segfault); in a
    child process so that a crash fails the test, not the runner."""
    run = run_isolated(_NO_ROWS)
    assert run.returncode == 0 and "ok" in run.stdout, run.stderr[-2000:]


@requires_bf16_dot
def test_decode_linear_in_a_model(tmp_path):
    """A bf16 Linear + bias at one token, as a decode step runs it."""
    torch.manual_seed(0)
    model = torch.nn.Linear(768, 300).to(torch.bfloat16)
    x = torch.randn(1, 768, dtype=torch.bfloat16)
    ep = torch.export.export(model, (x,))
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    assert "x86vector.avx512.dot" in (tmp_path / "05-vectorize.mlir").read_text()
    with torch.no_grad():
        torch.testing.assert_close(program(x), model(x), rtol=1.6e-2, atol=1e-2)


requires_amx = pytest.mark.skipif(
    not cpu_target("native").amx_bf16, reason="host without AMX-BF16 (or not granted)"
)


def test_tiles_only_on_amx_targets():
    """k a multiple of 32 and two blocks of 16 weight rows: AMX tiles (W read in place as the
    16-row operand) on Sapphire Rapids, pair dots on Cooper Lake (AVX512-BF16, no AMX)."""
    text = _vectorized("sapphirerapids", m="4", k="256", n="100")
    assert "amx.tile_mulf" in text and "x86vector.avx512.dot" in text  # the last 4 columns
    assert "!amx.tile<16x8xf32>" in text and "vector.scatter" in text
    text = _vectorized("cooperlake", m="4", k="256", n="100")
    assert "amx." not in text and "x86vector.avx512.dot" in text


@requires_amx
@pytest.mark.parametrize(
    "shape", [(2, 256, 100), (2, 64, 32), (5, 768, 130), (8, 96, 200), (7, 4096, 97)], ids=str
)
def test_tile_columns_asassert_close_as_eager(shape, tmp_path):
    m, k, n = shape
    torch.manual_seed(m + k + n)
    x = torch.randn(m, k, dtype=torch.bfloat16)
    w = torch.randn(n, k, dtype=torch.bfloat16)
    program, text = _compile((x, w), tmp_path)
    assert "amx.tile_mulf" in text and "!amx.tile<16x8xf32>" in text
    assert_close_as_eager(program(x, w), _linear(x, w), _linear(x.double(), w.double()))


@requires_amx
def test_tile_columns_with_dynamic_rows(tmp_path):
    """One compile, `?` rows: x's VNNI copy zero past M, only M rows added into C; more than
    8 rows on the AMX kernel of `amx.py`."""
    w = torch.randn(100, 256, dtype=torch.bfloat16)
    x = torch.randn(4, 256, dtype=torch.bfloat16)
    program, text = _compile((x, w), tmp_path, (({0: Dim("m", max=4096)}, {}),))
    assert "!amx.tile<16x8xf32>" in text
    for m in (1, 3, 6, 8, 9, 33):
        x = torch.randn(m, 256, dtype=torch.bfloat16)
        out = program(x, w)
        assert out.shape == (m, 100)
        assert_close_as_eager(out, _linear(x, w), _linear(x.double(), w.double()))
