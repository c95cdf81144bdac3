"""`cpu-vectorize-contractions` vdpbf16ps kernel (`backends/cpu/passes/vnni_kernel.py`): bf16
products with many rows on AVX512-BF16 targets without AMX, B copied into VNNI panels, results
as close to float64 as eager's (oneDNN); AMX targets keep AMX, others the FMA kernels.

Tests that run the kernel are skipped on hosts without AVX512-BF16 (vdpbf16ps would be SIGILL).
"""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.passes.vnni_kernel import MIN_ROWS_ALONG_K
from aten_mlir.backends.cpu.target import cpu_target
from tests.support.narrow_products import (
    assert_close_as_eager,
    check_as_eager,
    compile_vectorized,
    vectorized_bf16_product,
)

requires_bf16_dot = pytest.mark.skipif(
    not cpu_target("native").avx512_bf16 or cpu_target("native").amx_bf16,
    reason="host without AVX512-BF16, or with AMX (which runs these products)",
)


def _vectorized(cpu: str, m="64", k="100", n="70", transposed=True) -> str:
    return vectorized_bf16_product(cpu, m, k, n, transposed)


@pytest.mark.parametrize("transposed", [True, False], ids=["x@W.T", "x@W"])
@pytest.mark.parametrize("m", ["64", "?"])
def test_pair_dots_only_on_bf16_targets_without_amx(m, transposed, monkeypatch):
    """The kernel follows the pass's CPU: vdpbf16ps into VNNI panels on Zen 4 and Cooper Lake,
    AMX tiles on Sapphire Rapids, widened fmas on Skylake-AVX512 (no BF16)."""
    for cpu in ("znver4", "cooperlake"):
        text = _vectorized(cpu, m=m, transposed=transposed)
        assert "x86vector.avx512.dot" in text and "vector.broadcast" in text
        # `?` rows of x @ W.T: 1..8 of them on narrow_dot's blocks (which split into fmas)
        assert "vector.fma" not in text or (m == "?" and transposed)
    assert "amx.tile_mulf" in _vectorized("sapphirerapids", m=m, transposed=transposed)
    monkeypatch.setenv("ATEN_MLIR_AMX", "0")  # an AMX target keeps the FMA kernels then
    assert "x86vector" not in _vectorized("sapphirerapids", m="64", transposed=transposed)
    assert "x86vector" not in _vectorized("skylake-avx512", m=m, transposed=transposed)


def test_off_small_or_few_rows_stay_on_other_kernels(monkeypatch):
    assert "x86vector" not in _vectorized("znver4", m="64", k="8", n="16")  # 8192 multiply-adds
    # 8 rows: the pair-dot kernel of narrow_dot (sums reduced across lanes), no panels
    assert "vector.reduction" in _vectorized("znver4", m="8", k="100", n="70")
    # 9 rows of x @ W.T: the FMA dot kernel reads W in place (the copy would read W first)
    assert "x86vector" not in _vectorized("znver4", m="9", k="100", n="70")
    assert "x86vector.avx512.dot" in _vectorized("znver4", m="9", k="100", n="70", transposed=False)
    monkeypatch.setenv("ATEN_MLIR_VNNI", "0")
    assert "x86vector" not in _vectorized("znver4", m="64")


def _linear(x, w):
    return x @ w.t()


def _matmul(x, w):
    return x @ w


SHAPES = [
    (33, 129, 70),
    (129, 7, 1000),
    (1000, 33, 129),
    (64, 1, 1000),
    (1000, 1, 33),
    (12, 1000, 129),
    (9, 1000, 129),
]


@requires_bf16_dot
@pytest.mark.parametrize("fn", [_linear, _matmul], ids=["x@W.T", "x@W"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_static_as_close_as_eager(fn, shape, tmp_path):
    m, k, n = shape
    torch.manual_seed(m * k + n)
    x = torch.randn(m, k, dtype=torch.bfloat16)
    w = torch.randn(*((n, k) if fn is _linear else (k, n)), dtype=torch.bfloat16)
    program, text = compile_vectorized(fn, (x, w), tmp_path)
    if fn is _linear and m < MIN_ROWS_ALONG_K:  # swapped (vnni_swap): W read in place
        assert "vector.constant_mask [12] : vector<16xi1>" in text
    else:
        assert "x86vector.avx512.dot" in text and "vector.reduction" not in text
    check_as_eager(program, fn, x, w)


@requires_bf16_dot
@pytest.mark.parametrize("fn", [_linear, _matmul], ids=["x@W.T", "x@W"])
def test_dynamic_m_n_k_from_one_compile(fn, tmp_path):
    """`?` rows, columns and k, at odd sizes; 1..8 rows run narrow_dot's few-row blocks (x @
    W.T) or the same kernel (x @ W)."""
    x = torch.randn(40, 64, dtype=torch.bfloat16)
    w = torch.randn(*((48, 64) if fn is _linear else (64, 48)), dtype=torch.bfloat16)
    m, n, k = Dim("m", max=4096), Dim("n", max=4096), Dim("k", max=4096)
    wdims = {0: n, 1: k} if fn is _linear else {0: k, 1: n}
    program, text = compile_vectorized(fn, (x, w), tmp_path, (({0: m, 1: k}, wdims),))
    assert "x86vector.avx512.dot" in text
    for m, k, n in [(1, 7, 33), (7, 33, 129), (33, 129, 7), (129, 1, 1000), (1000, 33, 17)]:
        torch.manual_seed(m + k + n)
        x = torch.randn(m, k, dtype=torch.bfloat16)
        w = torch.randn(*((n, k) if fn is _linear else (k, n)), dtype=torch.bfloat16)
        check_as_eager(program, fn, x, w)


@requires_bf16_dot
def test_subnormal_and_special_inputs(tmp_path):
    """Subnormal bf16 inputs are read as zero (DAZ), as eager's oneDNN; inf and NaN propagate."""
    x = torch.randn(40, 65, dtype=torch.bfloat16)
    w = torch.randn(50, 65, dtype=torch.bfloat16)
    x[3, 5], x[7, 64], w[9, 0] = float("inf"), float("nan"), 1e-39
    program, _ = compile_vectorized(_linear, (x, w), tmp_path)
    out, eager = program(x, w), _linear(x, w)
    assert torch.equal(out.isnan(), eager.isnan()) and torch.equal(out.isinf(), eager.isinf())
    finite = eager.isfinite()
    exact = _linear(x.double(), w.double())
    assert_close_as_eager(out[finite], eager[finite], exact[finite])


def _bmm(a, b):
    return torch.bmm(a, b)


def _scores(q, k):
    return q @ k.transpose(-1, -2)


def _weighted(p, v):
    return p @ v


@requires_bf16_dot
@pytest.mark.parametrize(
    "fn, shapes",
    [
        (_bmm, ((3, 33, 129), (3, 129, 70))),
        (_scores, ((2, 4, 77, 64), (2, 4, 77, 64))),
        (_weighted, ((2, 4, 77, 77), (2, 4, 77, 64))),
    ],
    ids=["bmm", "q@k.T", "p@v"],
)
def test_batched_as_close_as_eager(fn, shapes, tmp_path):
    torch.manual_seed(len(shapes[0]))
    args = [torch.randn(*s, dtype=torch.bfloat16) for s in shapes]
    program, text = compile_vectorized(fn, tuple(args), tmp_path)
    assert "x86vector.avx512.dot" in text
    check_as_eager(program, fn, *args)


@requires_bf16_dot
def test_dynamic_attention_products(tmp_path):
    """Attention's two products with `?` batch and sequence, at sizes no block divides."""

    def attention(q, k, v):
        return torch.softmax(_scores(q, k) * 0.125, dim=-1) @ v

    b, s = Dim("b", max=64), Dim("s", max=2048)
    args = [torch.randn(2, 4, 40, 64, dtype=torch.bfloat16) for _ in range(3)]
    dims = (({0: b, 2: s},) * 3,)
    program, text = compile_vectorized(attention, tuple(args), tmp_path, dims)
    assert "x86vector.avx512.dot" in text
    for batch, seq in [(1, 7), (3, 33), (1, 129)]:
        args = [torch.randn(batch, 4, seq, 64, dtype=torch.bfloat16) for _ in range(3)]
        torch.testing.assert_close(program(*args), attention(*args), rtol=1.6e-2, atol=1.6e-2)


@requires_bf16_dot
def test_linear_gelu_linear_with_dynamic_batch(tmp_path):
    """A bf16 MLP exported with Dim on the batch, called at batches no block divides."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 1000), torch.nn.GELU(), torch.nn.Linear(1000, 129)
    ).to(torch.bfloat16)
    x = torch.randn(64, 256, dtype=torch.bfloat16)
    ep = torch.export.export(model, (x,), dynamic_shapes=({0: Dim("batch", max=4096)},))
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    assert "x86vector.avx512.dot" in (tmp_path / "05-vectorize.mlir").read_text()
    with torch.no_grad():
        for batch in (1, 7, 33, 129, 1000):
            x = torch.randn(batch, 256, dtype=torch.bfloat16)
            torch.testing.assert_close(program(x), model(x), rtol=1.6e-2, atol=1.6e-2)


@requires_bf16_dot
@pytest.mark.parametrize("shape", [(300, 200, 1100), (600, 300, 300)], ids=["n-blocks", "m-blocks"])
def test_blocks_shared_across_threads(shape, tmp_path):
    """The n blocks (each with its own panels), or with one n block the m blocks of each k
    block, are an scf.parallel that cpu-parallelize-loops shares out (an scf.for holding
    vdpbf16ps is not provably independent); two threads give what one does."""
    m, k, n = shape
    torch.manual_seed(m + n)
    x = torch.randn(m, k, dtype=torch.bfloat16)
    w = torch.randn(n, k, dtype=torch.bfloat16)
    program, text = compile_vectorized(_linear, (x, w), tmp_path)
    assert "scf.parallel" in text and "x86vector.avx512.dot" in text
    loops = (tmp_path / "06-loops.mlir").read_text()
    outlined = [f for f in loops.split("func.func")[1:] if "_parallel" in f.split("(")[0]]
    assert any("x86vector.avx512.dot" in f for f in outlined)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        check_as_eager(program, _linear, x, w)
    finally:
        torch.set_num_threads(threads)
