"""`cpu-vectorize-generics`: elementwise ops and reductions run as vector loops on the CPU and
give eager's results, over shapes with partial vector steps, empty dims, dynamic sizes and
every element type the lane loads handle (or leave scalar)."""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.pipeline import CPU_STAGES
from aten_mlir.dialects import make_context
from aten_mlir.passes import run_pipeline
from aten_mlir.passes.stages import stage_named
from tests.modules import Fn


def _compile(fn, *args, dump_dir=None, dynamic_shapes=None):
    ep = torch.export.export(Fn(fn), args, dynamic_shapes=dynamic_shapes)
    return aten_mlir.compile(ep, target="cpu", dump_dir=dump_dir, cache=False)


def _check(fn, *args, atol=None, rtol=None, **kw):
    expected = fn(*args)
    got = _compile(fn, *args, **kw)(*args)
    torch.testing.assert_close(got, expected, atol=atol, rtol=rtol, equal_nan=True)


def _random(shape, dtype):
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=torch.float32).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    low = 0 if dtype == torch.uint8 else -50
    return torch.randint(low, 50, shape, dtype=dtype)


# Row lengths: below one vector step, a partial step, whole steps, steps plus a partial one.
ROWS = [(5, 3), (3, 7), (4, 16), (2, 77), (3, 5, 100), (1, 1024)]
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def _tolerance(dtype):
    return {torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}.get(dtype, (None, None))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("shape", ROWS, ids=str)
def test_softmax(shape, dtype):
    torch.manual_seed(0)
    atol, rtol = _tolerance(dtype)
    _check(lambda x: torch.softmax(x, -1), _random(shape, dtype), atol=atol, rtol=rtol)


@pytest.mark.parametrize("shape", [(2, 77), (3, 64), (1, 45)], ids=str)
def test_bf16_rounding_of_row_scaled_lanes(shape):
    """f32 lanes over a per-row value, rounded to bf16: LLVM's own `<32 x bfloat>` fptrunc of
    such a quotient fails to compile when the row ends in a masked step."""
    torch.manual_seed(0)
    x = torch.randn(shape).to(torch.bfloat16)

    def fn(x):
        return (x.float() / x.float().sum(-1, keepdim=True)).to(torch.bfloat16)

    torch.testing.assert_close(_compile(fn, x)(x), fn(x), atol=0, rtol=0)


def test_bf16_rounding_special_values():
    """Lanes round to bf16 as eager does: ties to even, overflow to infinity, NaNs."""
    x = torch.randn(2, 77) * 300
    x[0, :5] = torch.tensor([float("nan"), float("inf"), -float("inf"), 1.00390625, 1.01171875])
    x[0, 5:7] = torch.tensor([3.4e38, -1e-40])
    scale = torch.tensor([[1.0], [0.7]])

    def fn(x, scale):
        return (x * scale).to(torch.bfloat16)

    got = _compile(fn, x, scale)(x, scale)
    torch.testing.assert_close(got, fn(x, scale), atol=0, rtol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("shape", [(2, 5, 77), (3, 64), (4, 768), (1, 3, 9)], ids=str)
def test_layer_norm_gelu_residual(shape, dtype):
    torch.manual_seed(0)
    n = shape[-1]
    x = _random(shape, dtype)
    w, b = _random((n,), dtype), _random((n,), dtype)
    atol, rtol = _tolerance(dtype)

    def fn(x, w, b):
        return x + torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, (n,), w, b))

    _check(fn, x, w, b, atol=atol, rtol=rtol)


REDUCTIONS = {
    "sum_last": lambda x: x.sum(-1),
    "sum_first": lambda x: x.sum(0),
    "sum_all": lambda x: x.sum(),
    "mean_last": lambda x: x.mean(-1, keepdim=True),
    "amax": lambda x: x.amax(-1),
    "amin_first": lambda x: x.amin(0),
    "prod": lambda x: (x * 0.05 + 1).prod(-1),
    "var": lambda x: x.var(-1),
    "std_first": lambda x: x.std(0),
    "logsumexp": lambda x: torch.logsumexp(x, -1),
    "norm": lambda x: torch.linalg.vector_norm(x, dim=-1),
    "transposed_sum": lambda x: x.transpose(0, 1).sum(-1),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("shape", [(3, 7), (19, 33), (4, 128), (2, 3, 50)], ids=str)
def test_float_reductions(shape, dtype):
    """One program computing them all (a mismatch names the reduction)."""
    torch.manual_seed(0)
    atol, rtol = _tolerance(dtype)
    if dtype in (torch.float16, torch.bfloat16):
        atol, rtol = 5e-2, 5e-2  # prod, var of low-precision rows
    _check(
        lambda x: {k: f(x) for k, f in REDUCTIONS.items()},
        _random(shape, dtype),
        atol=atol,
        rtol=rtol,
    )


def test_long_f32_sum_is_accurate():
    """Partial sums in lanes: a long f32 row adds up as closely as eager's vectorized sum."""
    torch.manual_seed(0)
    x = torch.rand(3, 100_003) + 10.0
    expected = x.double().sum(-1)
    got = _compile(lambda x: x.sum(-1), x)(x).double()
    eager = x.sum(-1).double()
    assert (got - expected).abs().max() <= 2 * (eager - expected).abs().max() + 1e-3


def test_max_propagates_nan_and_minmax_ignore_nothing():
    x = torch.randn(4, 37)
    x[1, 5] = float("nan")
    x[2, 36] = float("nan")  # in the partial last step
    x[3] = float("-inf")
    _check(lambda x: (x.amax(-1), x.amin(-1), torch.softmax(x, -1)), x)


INT_DTYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(3, 7), (5, 19), (2, 64)], ids=str)
def test_int_reductions_and_elementwise(shape, dtype):
    torch.manual_seed(0)
    x, y = _random(shape, dtype), _random(shape, dtype)

    def fn(x, y):
        return (
            x.sum(-1),
            x.amax(-1),
            x.amin(0),
            torch.maximum(x, y) - x * y,
            x & y,
            (x.to(torch.float32) * 0.5),
        )

    _check(fn, x, y)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=str)
@pytest.mark.parametrize("n", [5, 19, 35], ids=str)
def test_integer_division_in_partial_steps(n, dtype):
    """Masked-off lanes divide by 1, not by the zeros a masked load leaves (a trap)."""
    torch.manual_seed(0)
    x = torch.randint(-100, 100, (3, n), dtype=dtype)
    y = torch.randint(1, 9, (3, n), dtype=dtype) * torch.where(torch.rand(3, n) > 0.5, 1, -1)
    _check(lambda x, y: (x // y, torch.remainder(x, y), torch.fmod(x, y)), x, y.to(dtype))


def test_bool_reductions_and_masks():
    torch.manual_seed(0)
    x = torch.randn(6, 37)
    _check(lambda x: ((x > 0).any(-1), (x > -2).all(-1), x > 0.5, torch.where(x > 0, x, 0.0)), x)


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (2, 0, 7), (3, 4, 0)], ids=str)
def test_empty_dims(shape):
    x = torch.randn(shape)
    _check(lambda x: (x.sum(-1), x * 2 + 1, torch.softmax(x, -1), x.sum(0), x.mean(-1)), x)


def test_index_dependent_bodies():
    torch.manual_seed(0)
    x = torch.randn(7, 45)
    _check(lambda x: (torch.triu(x), torch.tril(x, -3), x + torch.arange(45)), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_libm_ops_run_per_lane(dtype):
    """expm1/log1p keep libm's precision near 0; erf(f64) and friends become libm calls."""
    x = torch.linspace(-3e-6, 3e-6, 37, dtype=dtype).reshape(1, 37).repeat(2, 1)
    _check(lambda x: (torch.expm1(x), torch.log1p(x)), x, rtol=1e-6, atol=0)
    y = torch.linspace(0.1, 0.9, 37, dtype=dtype).reshape(1, 37)
    _check(lambda y: (torch.erf(y), torch.special.erfc(y), torch.asinh(y), torch.atanh(y)), y)
    _check(lambda y: torch.acosh(y + 1), y)


@pytest.mark.parametrize("shape", [(2, 3, 7, 7), (1, 4, 14, 14), (2, 2, 5, 56)], ids=str)
def test_folded_dims_nchw(shape):
    """Contiguous trailing dims fold into one lane loop: a per-channel affine map on NCHW."""
    torch.manual_seed(0)
    x = torch.randn(shape)
    scale = torch.randn(shape[1], 1, 1)
    _check(lambda x, s: (torch.relu(x * s + 1) + x, x.sum((2, 3)), x.mean((0, 2, 3))), x, scale)


@pytest.mark.parametrize("width", [16, 45, 64], ids=str)
def test_embedding_rows_load_lane_wise(width):
    """An embedding row, picked by a per-row index, is read lane-wise; a gather is not."""
    torch.manual_seed(0)
    tokens = torch.nn.Embedding(50, width)
    positions = torch.nn.Embedding(20, width)

    class Embed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens, self.positions = tokens, positions

        def forward(self, ids, x):
            pos = torch.arange(ids.shape[1])
            picked = torch.gather(x, 1, ids % x.shape[1])  # lanes read scattered columns
            return self.tokens(ids) + self.positions(pos), picked

    ids = torch.randint(0, 50, (3, 7))
    x = torch.randn(3, 60)
    module = Embed().eval()
    ep = torch.export.export(module, (ids, x))
    got = aten_mlir.compile(ep, target="cpu", cache=False)(ids, x)
    torch.testing.assert_close(got, module(ids, x))


def test_views():
    """Slices are strided memrefs: unit-stride rows run lane-wise, a stride-2 row stays scalar."""
    torch.manual_seed(0)
    x, y = torch.randn(6, 45), torch.randn(6, 40)

    def fn(x, y):
        return (
            x[:, 3:40].sum(-1),
            torch.cat([x * 2, y], -1) + 1,
            x[:, ::2] * 3,
            x[1:, 5:] * y[1:, :40],
        )

    _check(fn, x, y)


def test_dynamic_sizes():
    torch.manual_seed(0)
    rows, cols = Dim("rows", min=2, max=64), Dim("cols", min=2, max=4096)
    x = torch.randn(5, 37)
    program = _compile(
        lambda x: (torch.softmax(x, -1), x.sum(0), x * 3),
        x,
        dynamic_shapes=((({0: rows, 1: cols}),),),
    )
    for shape in [(5, 37), (3, 16), (2, 3), (9, 100)]:
        x = torch.randn(shape)
        expected = (torch.softmax(x, -1), x.sum(0), x * 3)
        torch.testing.assert_close(program(x), expected)


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.int64], ids=str
)
def test_portable_cpu(dtype, monkeypatch):
    """The vector code also builds for a baseline x86-64 (SSE2: every vector type split)."""
    from aten_mlir.backends.cpu import native

    monkeypatch.setattr(native, "CPU", "x86-64")
    torch.manual_seed(0)
    x = _random((5, 37), dtype)
    if dtype.is_floating_point:
        atol, rtol = (5e-2, 5e-2) if dtype != torch.float32 else (None, None)
        _check(lambda x: (x.amax(-1), torch.softmax(x, -1), x.sum(0)), x, atol=atol, rtol=rtol)
    else:
        _check(lambda x: (x.sum(-1), x.amax(-1), x // (x % 7 + 8), x * 3), x)


# -- the IR the loops stage produces -------------------------------------------------------


def _loops_ir(fn, *args, tmp_path) -> str:
    _compile(fn, *args, dump_dir=tmp_path)
    (path,) = tmp_path.glob("*-loops.mlir")
    return path.read_text()


def test_layer_norm_computes_per_row_values_once_per_row(tmp_path):
    x, w, b = torch.randn(4, 8, 96), torch.randn(96), torch.randn(96)
    text = _loops_ir(
        lambda x, w, b: torch.nn.functional.layer_norm(x, (96,), w, b), x, w, b, tmp_path=tmp_path
    )
    assert "linalg.generic" not in text
    # the sqrt of the variance is a scalar op (per row), not a vector op (per element)
    assert "math.sqrt" in text and "vector<" not in text.split("math.sqrt")[1].splitlines()[0]
    assert "vector.reduction <add>" in text and "fastmath<reassoc>" in text


def test_softmax_reductions_accumulate_in_vector_registers(tmp_path):
    text = _loops_ir(lambda x: torch.softmax(x, -1), torch.randn(8, 256), tmp_path=tmp_path)
    assert "linalg.generic" not in text
    assert text.count("iter_args") == 2 and "-> (vector<" in text
    # the max's horizontal part as integer keys (`float_extrema`), NaN checked apart
    assert "vector.reduction <maxsi>" in text and "vector.reduction <add>" in text
    assert "cmpf uno" in text and "vector.reduction <or>" in text


def test_contractions_are_left_alone():
    """A matmul-like generic (`out + a * b` over a reduction dim) is not this pass's."""
    source = """
    #a = affine_map<(m, n, k) -> (m, k)>
    #b = affine_map<(m, n, k) -> (k, n)>
    #c = affine_map<(m, n, k) -> (m, n)>
    func.func @mm(%a: memref<4x8xi32>, %b: memref<8x16xi32>, %c: memref<4x16xi32>) {
      linalg.generic {indexing_maps = [#a, #b, #c],
                      iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%a, %b : memref<4x8xi32>, memref<8x16xi32>) outs(%c : memref<4x16xi32>) {
      ^bb0(%x: i32, %y: i32, %acc: i32):
        %p = arith.muli %x, %y : i32
        %s = arith.addi %acc, %p : i32
        linalg.yield %s : i32
      }
      return
    }
    """
    with make_context():
        module = ir.Module.parse(source)
        run_pipeline(module, "cpu-vectorize-generics")
        assert "linalg.generic" in str(module) and "vector" not in str(module)


def test_loops_stage_runs_the_pass():
    assert "cpu-vectorize-generics" in stage_named(CPU_STAGES, "loops").pipeline
