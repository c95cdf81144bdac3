"""`cpu-vectorize-contractions` swapped vdpbf16ps kernel (`backends/cpu/passes/vnni_swap.py`):
`x @ W.T` with few static rows of x and a wide W runs as C^T = W @ x^T (W read in place, x
copied), C stored through register transposes; results as close to float64 as eager's.

Tests that run the kernel are skipped on hosts without AVX512-BF16 (vdpbf16ps would be SIGILL)
or with AMX (which runs these products)."""

from __future__ import annotations

import pytest
import torch

from aten_mlir.backends.cpu.passes.vnni_swap import MAX_COPY, MAX_ROWS, ROWS, WIDER
from aten_mlir.backends.cpu.target import cpu_target
from tests.support import narrow_products
from tests.support.narrow_products import assert_close_as_eager, check_as_eager, compile_vectorized

requires_bf16_dot = pytest.mark.skipif(
    not cpu_target("native").avx512_bf16 or cpu_target("native").amx_bf16,
    reason="host without AVX512-BF16, or with AMX (which runs these products)",
)


def vectorized_bf16_product(cpu: str, m: str, k: str, n: str, transposed: bool = True) -> str:
    """C = 0, then C += x[m, k] @ W.T (W [n, k]; `transposed=False`: x @ W) after
    `cpu-vectorize-contractions{cpu=...}` (the swapped kernel folds C's zero fill)."""
    return narrow_products.vectorized_bf16_product(cpu, m, k, n, transposed, zero_fill=True)


def _swapped(text: str) -> bool:
    """The swapped kernel's mark: C written by masked stores of ROWS columns (the unswapped
    kernel stores whole 16-column vectors)."""
    return f"vector.constant_mask [{ROWS}] : vector<16xi1>" in text


def test_taken_for_few_rows_and_wide_weights_only():
    """Swapped: static rows from 9 (narrow_dot's blocks below) up to MAX_ROWS, W at least WIDER
    times as many rows, x's copy at most MAX_COPY; not `?` rows, a narrow W, x @ W, nor a target
    with AMX."""
    assert _swapped(vectorized_bf16_product("znver4", "64", "1024", "1024"))
    assert _swapped(vectorized_bf16_product("znver4", "9", "128", str(WIDER * 9)))
    assert not _swapped(vectorized_bf16_product("znver4", "9", "128", str(WIDER * 9 - 1)))
    assert not _swapped(vectorized_bf16_product("znver4", "8", "100", "1000"))
    assert not _swapped(vectorized_bf16_product("znver4", "?", "1024", "1024"))
    assert not _swapped(vectorized_bf16_product("znver4", str(MAX_ROWS + 1), "64", "4096"))
    k = MAX_COPY // (2 * 64) + 1
    assert not _swapped(vectorized_bf16_product("znver4", "64", str(k), "1024"))
    assert not _swapped(vectorized_bf16_product("znver4", "64", "1024", "1024", False))
    assert "amx.tile_mulf" in vectorized_bf16_product("sapphirerapids", "64", "1024", "1024")


def _linear(x, w):
    return x @ w.t()


# (m, k, n): rows 9..256 (odd ones leave a part of 1..15 rows of C), k 1, odd, even, past
# vnni_kernel's 2048-deep k block (one block here), n with a rest of 1..11 columns of C
SHAPES = [
    (9, 65, 100),
    (11, 1000, 45),
    (12, 7, 1000),
    (33, 129, 133),
    (64, 1, 4096),
    (129, 33, 777),
    (16, 4100, 64),
    (64, 1024, 1024),
    (256, 1000, 1031),
    (17, 2, 1025),
]


@requires_bf16_dot
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_static_as_close_as_eager(shape, tmp_path):
    m, k, n = shape
    torch.manual_seed(m * k + n)
    x = torch.randn(m, k, dtype=torch.bfloat16)
    w = torch.randn(n, k, dtype=torch.bfloat16)
    program, text = compile_vectorized(_linear, (x, w), tmp_path)
    assert _swapped(text) and "x86vector.avx512.dot" in text
    check_as_eager(program, _linear, x, w)


@requires_bf16_dot
def test_c_written_exactly(tmp_path):
    """Every element of C is written once, nothing past it: a view of a larger output whose
    other rows and columns keep their values (C is a slice of the result here)."""

    def fn(x, w):
        y = torch.full((40, 600), 7.0, dtype=torch.float32)
        y[3:36, 5:597] = (x @ w.t()).float()
        return y

    torch.manual_seed(3)
    x = torch.randn(33, 65, dtype=torch.bfloat16)
    w = torch.randn(592, 65, dtype=torch.bfloat16)
    program, _ = compile_vectorized(fn, (x, w), tmp_path)
    out, eager = program(x, w), fn(x, w)
    inner = (slice(3, 36), slice(5, 597))
    outside = torch.ones_like(out, dtype=torch.bool)
    outside[inner] = False
    assert torch.equal(out[outside], eager[outside])
    exact = _linear(x.double(), w.double())
    assert_close_as_eager(out[inner], eager[inner], exact)


@requires_bf16_dot
def test_batched_weights(tmp_path):
    """A batch dim around the product (each batch its own W and its own copy of x)."""

    def fn(x, w):
        return x @ w.transpose(1, 2)

    torch.manual_seed(5)
    x = torch.randn(3, 20, 67, dtype=torch.bfloat16)
    w = torch.randn(3, 100, 67, dtype=torch.bfloat16)
    program, text = compile_vectorized(fn, (x, w), tmp_path)
    assert _swapped(text)
    check_as_eager(program, fn, x, w)


@requires_bf16_dot
def test_subnormal_and_special_inputs(tmp_path):
    """Subnormal bf16 inputs read as zero (DAZ), as eager's oneDNN; inf and NaN propagate to
    their row and column of C."""
    torch.manual_seed(7)
    x = torch.randn(40, 65, dtype=torch.bfloat16)
    w = torch.randn(200, 65, dtype=torch.bfloat16)
    x[3, 5], x[7, 64], w[9, 0], w[150, 33] = float("inf"), float("nan"), 1e-39, float("-inf")
    program, text = compile_vectorized(_linear, (x, w), tmp_path)
    assert _swapped(text)
    out, eager = program(x, w), _linear(x, w)
    assert torch.equal(out.isnan(), eager.isnan()) and torch.equal(out.isinf(), eager.isinf())
    finite = eager.isfinite()
    exact = _linear(x.double(), w.double())
    assert_close_as_eager(out[finite], eager[finite], exact[finite])


@requires_bf16_dot
def test_blocks_shared_across_threads(tmp_path):
    """The blocks of W's rows are an scf.parallel that cpu-parallelize-loops shares out; two
    threads give what one does."""
    torch.manual_seed(11)
    x = torch.randn(64, 300, dtype=torch.bfloat16)
    w = torch.randn(1100, 300, dtype=torch.bfloat16)
    program, text = compile_vectorized(_linear, (x, w), tmp_path)
    assert _swapped(text) and "scf.parallel" in text
    loops = (tmp_path / "06-loops.mlir").read_text()
    outlined = [f for f in loops.split("func.func")[1:] if "_parallel" in f.split("(")[0]]
    assert any("x86vector.avx512.dot" in f for f in outlined)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        check_as_eager(program, _linear, x, w)
    finally:
        torch.set_num_threads(threads)
