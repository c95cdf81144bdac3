"""`cpu-vectorize-contractions` on AMX: bf16 products with an f32 accumulator as tile kernels
(`backends/cpu/passes/amx.py`), results as close to float64 as eager's (which runs AMX through
oneDNN), the FMA kernels on CPUs without AMX or with `ATEN_MLIR_AMX=0`.

Tests that run tile code are skipped unless the host has AMX-BF16 and the OS granted the tile
state (`cpu_target("native").amx_bf16` asks for it): without the grant the first tile
instruction is SIGILL, which kills the process.
"""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.target import cpu_target
from aten_mlir.dialects import make_context
from aten_mlir.passes import run_pipeline
from tests.modules import Fn
from tests.support.narrow_products import assert_close_as_eager

requires_amx = pytest.mark.skipif(
    not cpu_target("native").amx_bf16, reason="host without AMX-BF16 (or not granted)"
)

MM = """
func.func @mm(%a: memref<{m}x{k}xbf16>, %b: memref<{k}x{n}xbf16>, %c: memref<{m}x{n}xf32>) {{
  linalg.matmul ins(%a, %b : memref<{m}x{k}xbf16>, memref<{k}x{n}xbf16>)
    outs(%c : memref<{m}x{n}xf32>)
  return
}}
"""


def _vectorized(text: str, cpu: str) -> str:
    with make_context():
        module = ir.Module.parse(text)
        run_pipeline(module, f"cpu-vectorize-contractions{{cpu={cpu}}}")
        return str(module)


def _compile(fn, args, tmp_path, dynamic=None):
    ep = torch.export.export(Fn(fn), args, dynamic_shapes=dynamic)
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    return program, (tmp_path / "05-vectorize.mlir").read_text()


def _linear(x, w):
    return x @ w.t()


def test_amx_ops_only_on_an_amx_cpu():
    """The kernel follows the pass's CPU, not the host: tiles on Sapphire Rapids, fmas on
    Skylake-AVX512."""
    text = MM.format(m=64, k=64, n=64)
    amx = _vectorized(text, "sapphirerapids")
    assert "amx.tile_mulf" in amx and "amx.tile_load" in amx and "vector.fma" not in amx
    fma = _vectorized(text, "skylake-avx512")
    assert "amx." not in fma and "vector.fma" in fma


def test_amx_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("ATEN_MLIR_AMX", "0")
    text = _vectorized(MM.format(m=64, k=64, n=64), "sapphirerapids")
    assert "amx." not in text and "vector.fma" in text


def test_small_products_stay_on_fmas():
    """One row (a decode step) would be padded to 32: the FMA kernels run it."""
    text = _vectorized(MM.format(m=1, k=1024, n=1024), "sapphirerapids")
    assert "amx." not in text


@requires_amx
@pytest.mark.parametrize("fn", [torch.mm, _linear], ids=["mm", "linear"])
@pytest.mark.parametrize(
    "shape",
    [(17, 33, 100), (33, 100, 17), (100, 1024, 33), (1024, 17, 100), (64, 256, 96), (15, 64, 64)],
    ids=str,
)
def test_bf16_products_on_amx_asassert_close_as_eager(shape, fn, tmp_path):
    m, k, n = shape
    a = torch.randn(m, k, dtype=torch.bfloat16)
    b = torch.randn(k, n, dtype=torch.bfloat16)
    if fn is _linear:
        b = b.t().contiguous()
    program, text = _compile(fn, (a, b), tmp_path)
    assert ("amx.tile_mulf" in text) == (min(m, n) >= 16), text
    assert_close_as_eager(program(a, b), fn(a, b), fn(a.double(), b.double()))


@requires_amx
def test_batched_bf16_products_on_amx(tmp_path):
    a = torch.randn(3, 33, 40, dtype=torch.bfloat16)
    b = torch.randn(3, 40, 65, dtype=torch.bfloat16)
    program, text = _compile(torch.bmm, (a, b), tmp_path)
    assert "amx.tile_mulf" in text
    assert_close_as_eager(program(a, b), torch.bmm(a, b), torch.bmm(a.double(), b.double()))


@requires_amx
def test_a_dynamic_bf16_mlp_on_amx(tmp_path):
    """One compile, `?` rows at 3 sizes: the padded copies and the add into C bounded by the
    runtime extents."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(96, 160), torch.nn.GELU(), torch.nn.Linear(160, 48)
    ).to(torch.bfloat16)
    batch = Dim("batch", min=1, max=4096)
    x = torch.randn(40, 96, dtype=torch.bfloat16)
    program, text = _compile(model, (x,), tmp_path, dynamic=(({0: batch},),))
    assert "amx.tile_mulf" in text
    with torch.no_grad():
        for size in (1, 17, 100):
            x = torch.randn(size, 96, dtype=torch.bfloat16)
            torch.testing.assert_close(program(x), model(x), rtol=1.6e-2, atol=2e-2)


@requires_amx
@pytest.mark.parametrize("n", [64, 40])
def test_attention_values_with_dynamic_odd_k_pack_rows(tmp_path, n):
    """`p @ v` with the sequence `?` (k odd, n not whole panels): v is interleaved two rows at a
    time into its VNNI tiles (the last odd row with zeros, a short panel masked), not copied
    element by element, and the values stay as close to float64 as eager's."""
    k = Dim("k", min=2, max=512)
    p = torch.randn(3, 33, 37, dtype=torch.bfloat16)
    v = torch.randn(3, 37, n, dtype=torch.bfloat16)
    program, ir_text = _compile(
        lambda p, v: p @ v, (p, v), tmp_path, (({1: Dim("s", max=512), 2: k}, {1: k}),)
    )
    assert "amx.tile_mulf" in ir_text and "vector.interleave" in ir_text
    for m, depth in ((33, 37), (17, 20), (5, 1), (40, 64)):
        p = torch.randn(3, m, depth, dtype=torch.bfloat16)
        v = torch.randn(3, depth, n, dtype=torch.bfloat16)
        assert_close_as_eager(program(p, v), p @ v, p.double() @ v.double())


@requires_amx
def test_rows_of_a_dynamic_batch_and_sequence_run_along_the_sequence(tmp_path):
    """A `[b, s, k]` input whose output is `[s, b, n]` (MultiheadAttention's in-projection): with
    both dims `?`, the kernel's rows are A's row dim (s, next to k in memory), so A's rows are
    copied as vectors; it ran 2-row tiles of b per s, 3x slower than the static compile."""
    b, s = Dim("b", max=64), Dim("s", max=512)
    x = torch.randn(2, 16, 256, dtype=torch.bfloat16)
    w = torch.randn(768, 256, dtype=torch.bfloat16)
    program, ir_text = _compile(
        lambda x, w: torch.nn.functional.linear(x.transpose(0, 1), w),
        (x, w),
        tmp_path,
        (({0: b, 1: s}, None),),
    )
    assert "amx.tile_mulf" in ir_text and "memref.load %arg0" not in ir_text
    for shape in ((2, 77, 256), (1, 7, 256), (3, 33, 256)):
        x = torch.randn(*shape, dtype=torch.bfloat16)
        exact = torch.einsum("bsk,nk->sbn", x.double(), w.double())
        eager = torch.nn.functional.linear(x.transpose(0, 1), w)
        assert_close_as_eager(program(x, w), eager, exact)


def _threads(n: int):
    """torch's thread count, which `aten_mlir_parallel_for` splits the outlined loops over."""
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    return old


@requires_amx
def test_tile_rows_and_panels_run_on_the_thread_pool(tmp_path):
    """The (column panel, 32 rows) pairs are an scf.parallel that `cpu-parallelize-loops`
    outlines: the tile loop runs from pool threads (each loads its own tile config), and 2
    threads give bit for bit the 1-thread result (each tile is summed the same way)."""
    a = torch.randn(257, 300, dtype=torch.bfloat16)
    b = torch.randn(300, 520, dtype=torch.bfloat16)
    program, text = _compile(torch.mm, (a, b), tmp_path)
    assert "scf.parallel" in text and "amx.tile_mulf" in text
    loops = (tmp_path / "06-loops.mlir").read_text()
    outlined = [f for f in loops.split("func.func")[1:] if "_parallel" in f.split("(")[0]]
    assert any("amx.tile_mulf" in f for f in outlined), "the tile loop was not outlined"
    old = _threads(1)
    try:
        one = program(a, b)
        _threads(2)
        two = program(a, b)
    finally:
        _threads(old)
    assert torch.equal(one, two)
    assert_close_as_eager(two, torch.mm(a, b), a.double() @ b.double())


@requires_amx
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("fn", [torch.mm, _linear], ids=["mm", "linear"])
def test_dynamic_rows_at_odd_sizes_from_one_compile(tmp_path, fn, threads):
    """`?` rows of a bf16 mm or Linear (the padded copies, the tiles zeroed rather than
    loaded, each block added into C, transposed for the Linear whose weight is the row
    operand, bounded by the runtime extents) at 1 .. 257 rows, on 1 and 2 threads."""
    rows = Dim("rows", min=1, max=4096)
    a = torch.randn(40, 67, dtype=torch.bfloat16)
    b = torch.randn(67, 100, dtype=torch.bfloat16)
    if fn is _linear:
        b = b.t().contiguous()
    program, text = _compile(fn, (a, b), tmp_path, dynamic=(({0: rows}, None),))
    assert "amx.tile_mulf" in text and "amx.tile_zero" in text
    assert "memref<4x16x16xf32>" in text  # the tiles of a block, on their way into C
    old = _threads(threads)
    try:
        for m in (1, 7, 17, 33, 100, 257):
            a = torch.randn(m, 67, dtype=torch.bfloat16)
            exact = fn(a.double(), b.double())
            assert_close_as_eager(program(a, b), fn(a, b), exact)
    finally:
        _threads(old)


@requires_amx
@pytest.mark.parametrize("fn", [torch.mm, _linear], ids=["mm", "linear"])
@pytest.mark.parametrize("m", [32, 33, 257])
def test_bf16_result_rounded_by_the_kernel(tmp_path, fn, m):
    """A bf16 product's f32 accumulator is zero-filled, then only rounded to bf16: the tiles
    start as tile_zero, and each block's rows go to the bf16 result rounded (16 lanes a step,
    masked past the extents); the fill, the rounding generic and the f32 buffer are gone."""
    a = torch.randn(m, 100, dtype=torch.bfloat16)
    b = torch.randn(100, 96, dtype=torch.bfloat16)
    if fn is _linear:
        b = b.t().contiguous()
    program, text = _compile(fn, (a, b), tmp_path)
    f32_fills = [x for x in text.splitlines() if "linalg.fill" in x and ": f32)" in x]
    assert "amx.tile_zero" in text and not f32_fills
    assert "vector<16xf32> to vector<16xbf16>" in text and "linalg.generic" not in text
    assert f"memref<{m}x96xf32>" not in text  # no f32 result buffer
    assert_close_as_eager(program(a, b), fn(a, b), fn(a.double(), b.double()))


FILLED_MM = """
func.func @mm(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {{
  %fill = arith.constant {value} : f32
  linalg.fill ins(%fill : f32) outs(%c : memref<64x64xf32>)
  {between}
  linalg.matmul ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>)
    outs(%c : memref<64x64xf32>)
  return
}}
"""


@pytest.mark.parametrize(
    "value, between, zero",
    [
        ("0.0", "", True),
        ("1.0", "", False),  # C starts at 1: its tiles load
        # a write between the fill and the product: C is not known to be zero any more
        ("0.0", "memref.store %fill, %c[%i, %i] : memref<64x64xf32>", False),
    ],
    ids=["zero", "one", "written"],
)
def test_result_tiles_start_at_zero_only_after_a_zero_fill(value, between, zero):
    if between:
        between = "%i = arith.constant 3 : index\n  " + between
    text = _vectorized(FILLED_MM.format(value=value, between=between), "sapphirerapids")
    assert ("amx.tile_zero" in text) == zero, text
    assert ("linalg.fill" in text) != zero, text
    assert ("amx.tile_load %arg2" in text) != zero, text


EARLY_RESULT = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @early(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>) -> memref<64x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : bf16
  %d = memref.alloc() : memref<64x64xbf16>
  linalg.fill ins(%one : bf16) outs(%d : memref<64x64xbf16>)
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>)
    outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<64x64xf32>) outs(%d : memref<64x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %c : memref<64x64xf32>
  return %d : memref<64x64xbf16>
}
"""


def test_rounded_result_allocated_before_the_product_stays_in_place():
    """The bf16 result the kernel rounds into is allocated (and used) before the product: its
    alloc is not moved below its fill (the IR would not verify), the kernel writes it."""
    text = _vectorized(EARLY_RESULT, "sapphirerapids")
    lines = text.splitlines()
    alloc = next(i for i, x in enumerate(lines) if "memref.alloc() : memref<64x64xbf16>" in x)
    fill = next(i for i, x in enumerate(lines) if "linalg.fill" in x and ": bf16)" in x)
    assert alloc < fill and "linalg.generic" not in text
    # whole 32 x 32 blocks: the rows go to D unmasked
    assert "vector.store" in text and "vector.maskedstore" not in text
    assert not [x for x in lines if "linalg.fill" in x and ": f32)" in x]


def _scaled_scores(q, k):
    return (q @ k.transpose(-1, -2)) * 0.125


@requires_amx
@pytest.mark.parametrize("s", [77, 100, 256])
def test_scaled_scores_mapped_by_the_kernel(tmp_path, s):
    """Attention's `q @ k^T * scale` in bf16: the f32 accumulator is rounded, scaled and rounded
    again by the kernel on each block's rows (`amx_epilogue`), straight into the bf16 result:
    no f32 [batch, heads, s, s] buffer, no generic reading it."""
    q, k = (torch.randn(3, 8, s, 64, dtype=torch.bfloat16) for _ in range(2))
    program, text = _compile(_scaled_scores, (q, k), tmp_path)
    assert "amx.tile_mulf" in text and "linalg.generic" not in text
    assert f"{s}x{s}xf32>" not in text
    assert "arith.mulf" in text and "vector<16xf32> to vector<16xbf16>" in text
    exact = _scaled_scores(q.double(), k.double())
    assert_close_as_eager(program(q, k), _scaled_scores(q, k), exact)


@requires_amx
def test_scaled_scores_of_a_dynamic_sequence(tmp_path):
    """The same with the sequence `?`: one compile, 3 sizes. (The tiles run in narrow_dot's
    branch for more than 8 rows; its few-rows branch adds into the same f32 C, so the
    generic stays.)"""
    s = Dim("s", min=2, max=512)
    q, k = (torch.randn(2, 4, 40, 64, dtype=torch.bfloat16) for _ in range(2))
    program, text = _compile(_scaled_scores, (q, k), tmp_path, (({2: s}, {2: s}),))
    assert "amx.tile_mulf" in text
    for size in (7, 33, 100):
        q, k = (torch.randn(2, 4, size, 64, dtype=torch.bfloat16) for _ in range(2))
        exact = _scaled_scores(q.double(), k.double())
        assert_close_as_eager(program(q, k), _scaled_scores(q, k), exact)


def _sdpa(q, k, v):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def _assert_attention_close(ours, q, k, v):
    """bf16 attention as close to the f32 result as eager's, within bf16 steps (eager keeps
    the probabilities in f32 inside its flash kernel; ours rounds them to bf16 for `p @ v`)."""
    exact = _sdpa(q.float(), k.float(), v.float())
    eager = _sdpa(q, k, v)
    torch.testing.assert_close(ours.float(), exact, rtol=1.6e-2, atol=1e-2)
    torch.testing.assert_close(ours, eager, rtol=1.6e-2, atol=1e-2)


@requires_amx
@pytest.mark.parametrize("b, s", [(2, 256), (3, 77), (3, 100)])
def test_bf16_attention_values(tmp_path, b, s):
    q, k, v = (torch.randn(b, 8, s, 64, dtype=torch.bfloat16) for _ in range(3))
    program, text = _compile(_sdpa, (q, k, v), tmp_path)
    assert text.count("amx.tile_mulf") >= 2
    _assert_attention_close(program(q, k, v), q, k, v)


@requires_amx
def test_bf16_attention_of_a_dynamic_sequence(tmp_path):
    s = Dim("s", min=2, max=512)
    q, k, v = (torch.randn(3, 8, 48, 64, dtype=torch.bfloat16) for _ in range(3))
    program, _ = _compile(_sdpa, (q, k, v), tmp_path, (({2: s}, {2: s}, {2: s}),))
    for size in (7, 77, 100):
        q, k, v = (torch.randn(3, 8, size, 64, dtype=torch.bfloat16) for _ in range(3))
        _assert_attention_close(program(q, k, v), q, k, v)


class _Block(torch.nn.Module):
    """Linear + bias + GELU, Linear + bias + residual: epilogues with a bias along n and an
    input of C's shape; the two f32 results share one buffer after bufferization."""

    def __init__(self):
        super().__init__()
        self.up, self.down = torch.nn.Linear(96, 160), torch.nn.Linear(160, 96)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(x)))


@requires_amx
@pytest.mark.parametrize("rows", [64, 77])
def test_bias_gelu_and_residual_applied_by_the_kernel(tmp_path, rows):
    torch.manual_seed(0)
    model = _Block().to(torch.bfloat16).eval()
    x = torch.randn(2, rows, 96, dtype=torch.bfloat16)
    ep = torch.export.export(model, (x,))
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    text = (tmp_path / "05-vectorize.mlir").read_text()
    assert text.count("amx.tile_mulf") >= 2 and "linalg.generic" not in text
    # GELU's rows as a loop per tile (4 per block), not 64 copies of erf
    assert 1 <= text.count("math.erf") <= 8 and "vector<16xbf16>" in text
    assert f"{2 * rows}x160xf32" not in text and f"{2 * rows}x96xf32" not in text
    with torch.no_grad():
        exact = _Block().double().eval()
        exact.load_state_dict({k: v.double() for k, v in model.state_dict().items()})
        torch.testing.assert_close(
            program(x).float(), exact(x.double()).float(), rtol=1.6e-2, atol=3e-2
        )
        torch.testing.assert_close(program(x), model(x), rtol=1.6e-2, atol=3e-2)


def _heads_scores(qkv):
    """Attention scores of heads cut from a fused QKV projection's output: q and k are
    `[b, s, h, d]` views (s before the heads), transposed to `[b, h, s, d]` by the maps."""
    b, s, _ = qkv.shape
    q, k, _ = (t.reshape(b, s, 4, 64).transpose(1, 2) for t in qkv.split(256, -1))
    return q @ k.transpose(-1, -2)


@requires_amx
@pytest.mark.parametrize("s", [64, 77])
def test_head_views_copied_as_vectors(tmp_path, s):
    """Both operands' tile copies run on vectors (k contiguous, s anywhere before it), not
    element by element."""
    qkv = torch.randn(2, s, 768, dtype=torch.bfloat16)
    program, text = _compile(_heads_scores, (qkv,), tmp_path)
    assert "amx.tile_mulf" in text and "memref.load %expand_shape" not in text
    assert "vector.maskedload %expand_shape" in text
    exact = _heads_scores(qkv.double())
    assert_close_as_eager(program(qkv), _heads_scores(qkv), exact)
