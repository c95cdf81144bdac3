"""Norm statistics against f64 references: a layer norm's static f32 rows (f32 sums, scaled,
corrected two-pass) as accurate as the f64 sums, finite where f32 squares would overflow; a
training batch norm's one pass (f64 sums shifted by each channel's first element)."""

import pytest
import torch

import aten_mlir

G = torch.Generator().manual_seed(0)
ROWS = 6


def _rows(kind: str, n: int) -> torch.Tensor:
    x = torch.randn(ROWS, n, generator=G)
    if kind == "offset":  # a mean far from 0: the shifted second pass keeps the variance
        return x + 1e4
    if kind == "narrow":
        return x * 1e-2 + 1e4
    if kind == "huge":  # squares overflow f32 (eager: inf/NaN)
        return x * 1e30
    if kind == "signs":
        return torch.sign(x) * 1e30
    if kind == "tiny":  # squares underflow f32
        return x * 1e-30
    if kind == "subnormal":
        return x * 1e-41
    if kind == "constant":
        return torch.full((ROWS, n), 0.1)
    if kind == "inf":
        x[1, n // 2] = float("inf")
        x[3, 0] = float("nan")
        return x
    return x


class _LayerNorm(torch.nn.Module):
    def __init__(self, n: int, eps: float):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(n, generator=G))
        self.bias = torch.nn.Parameter(torch.randn(n, generator=G))
        self.eps = eps

    def forward(self, x):
        n = x.shape[-1]
        return torch.ops.aten.native_layer_norm(x, [n], self.weight, self.bias, self.eps)


def _reference(x, w, b, eps):
    """(out, mean, rstd) in f64 from the f32 inputs."""
    x = x.double()
    mean = x.mean(-1, keepdim=True)
    rstd = 1 / torch.sqrt(((x - mean) ** 2).mean(-1, keepdim=True) + eps)
    return (x - mean) * rstd * w.double() + b.double(), mean, rstd


def _error(actual, expected, scale):
    """Largest |actual - expected| / scale where expected is finite; inf if finiteness differs."""
    finite = torch.isfinite(expected)
    if not torch.equal(torch.isfinite(actual), finite):
        return float("inf")
    d = (actual.double() - expected)[finite].abs() / scale.expand_as(expected)[finite]
    return d.max().item() if d.numel() else 0.0


@pytest.mark.parametrize("n", [768, 1024, 4096, 33, 7])
@pytest.mark.parametrize(
    "kind",
    ["randn", "offset", "narrow", "huge", "signs", "tiny", "subnormal", "constant", "inf"],
)
def test_layer_norm_f32_statistics(n, kind):
    eps = 1e-5
    x = _rows(kind, n)
    m = _LayerNorm(n, eps)
    compiled = aten_mlir.compile(torch.export.export(m, (x,)))
    with torch.no_grad():
        out, mean, rstd = compiled(x)
        eager = m(x)
    ref_out, ref_mean, ref_rstd = _reference(x, m.weight.detach(), m.bias.detach(), eps)
    out_scale = ref_out.abs().amax(-1, keepdim=True)
    # the output is as close to f64's as eager's is (the mean itself is rounded to f32, which
    # dominates at offsets of 1e4), or within 2e-7 of its row's largest value
    eager_err = _error(eager[0], ref_out, out_scale)
    assert _error(out, ref_out, out_scale) <= max(1.5 * eager_err, 2e-7) if eager_err < 1 else 2e-7
    # mean within an f32 rounding of the row's spread (a row of +-M alone repeats one rounding
    # of the deviations n times: 6.4e-8 at 768, eager 1e-8), rstd within 4e-7 (f32 sums of 64
    # terms a lane; the f64 ones: 6e-8)
    assert _error(mean, ref_mean, 1 / ref_rstd + ref_mean.abs()) <= 1.2e-7
    assert _error(rstd, ref_rstd, ref_rstd) <= 4e-7


def test_layer_norm_f32_statistics_sum_overflow():
    """Rows whose f32 sum overflows (4096 x ~1e36) still normalise (eager: NaN): shifted by 0
    instead of their mean, the second pass's cancellation costs ~10x the rstd error."""
    x = torch.rand(2, 4096, generator=G) * 1e36 + 1e36
    m = _LayerNorm(4096, 1e-5)
    out, mean, rstd = aten_mlir.compile(torch.export.export(m, (x,)))(x)
    ref_out, ref_mean, ref_rstd = _reference(x, m.weight.detach(), m.bias.detach(), 1e-5)
    assert _error(out, ref_out, ref_out.abs().amax(-1, keepdim=True)) <= 3e-6
    assert _error(rstd, ref_rstd, ref_rstd) <= 3e-6
    assert _error(mean, ref_mean, ref_mean.abs()) <= 1e-7


@pytest.mark.parametrize(
    ("shape", "f32"),
    [
        ((128, 1024), True),  # 512 KiB: in the caches, f32 sums at any width up to 4096
        ((1024, 1024), True),  # 4 MiB
        ((6, 4096), True),
        ((4096, 1024), False),  # 16 MiB streamed: f64 sums were faster at 896-3072 and 512
        ((8, 512, 1000), False),
        ((4096, 512), False),
        ((4096, 768), True),  # streamed rows of 513-768: f32 faster
        ((8, 512, 576), True),
        ((-1, 1024), True),  # a `?` batch keeps f32
        ((6, 4097), False),  # past F32_ROW_MAX
    ],
)
def test_layer_norm_f32_statistics_rule(shape, f32):
    from mlir import ir

    from aten_mlir.passes.aten_to_linalg.normalization_stats import f32_rows

    dims = "x".join("?" if d < 0 else str(d) for d in shape)
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(f"func.func @f(%x: tensor<{dims}xf32>) {{ return }}")
        x = module.body.operations[0].regions[0].blocks[0].arguments[0]
        assert f32_rows(x, [len(shape) - 1], ir.F64Type.get()) is f32


def test_layer_norm_streamed_rows_f64_statistics():
    """A streamed input's rows (f64 sums) with an offset mean: as accurate as eager."""
    x = torch.randn(4096, 1000, generator=G) + 1e4
    m = _LayerNorm(1000, 1e-5)
    out, mean, rstd = aten_mlir.compile(torch.export.export(m, (x,)))(x)
    ref_out, ref_mean, ref_rstd = _reference(x, m.weight.detach(), m.bias.detach(), 1e-5)
    with torch.no_grad():
        eager = m(x)[0]
    scale = ref_out.abs().amax(-1, keepdim=True)
    assert _error(out, ref_out, scale) <= 1.5 * _error(eager, ref_out, scale)
    assert _error(mean, ref_mean, 1 / ref_rstd + ref_mean.abs()) <= 1.2e-7
    assert _error(rstd, ref_rstd, ref_rstd) <= 1e-7


class _LayerNormGelu(torch.nn.Module):
    def __init__(self, n: int, gelu: bool):
        super().__init__()
        self.norm = torch.nn.LayerNorm(n)
        self.gelu = gelu

    def forward(self, x):
        y = self.norm(x)
        return torch.nn.functional.gelu(y) if self.gelu else y


@pytest.mark.parametrize("gelu", [True, False])
def test_layer_norm_into_gelu_f32_statistics(gelu, tmp_path):
    """A streamed [4096, 1024] LayerNorm whose rows go into a GELU takes the f32 statistics
    (its erf work hides the row loads), alone the f64 sums; both as accurate as eager at an
    offset of 1e4."""
    x = torch.randn(4096, 1024, generator=G) + 1e4
    m = _LayerNormGelu(1024, gelu).eval()
    with torch.no_grad():
        torch.nn.init.normal_(m.norm.weight, generator=G)
        torch.nn.init.normal_(m.norm.bias, generator=G)
        out = aten_mlir.compile(torch.export.export(m, (x,)), dump_dir=tmp_path)(x)
        reference = m.double()(x.double())
        eager = m.float()(x)
    linalg = next(tmp_path.glob("*-aten-to-linalg.mlir")).read_text()
    assert ("xf64>" in linalg) is not gelu
    error = (out.double() - reference).abs().max()
    assert error <= 1.5 * (eager.double() - reference).abs().max(), error


class _BatchNorm(torch.nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(c, generator=G))
        self.bias = torch.nn.Parameter(torch.randn(c, generator=G))

    def forward(self, x):
        return torch.ops.aten._native_batch_norm_legit.no_stats(
            x, self.weight, self.bias, True, 0.1, 1e-5
        )


@pytest.mark.parametrize("shape", [(16, 8, 16, 16), (3, 5, 7, 33), (1, 4, 1, 1), (7, 3)])
@pytest.mark.parametrize("kind", ["randn", "narrow", "huge", "tiny", "constant"])
def test_batch_norm_statistics(shape, kind):
    """Training batch norm statistics against f64 two-pass ones (offsets, huge, tiny values)."""
    # data of its own per case: drawn from the shared G, it depended on which tests ran
    # before in the same worker
    g = torch.Generator().manual_seed(len(shape) * 1000 + sum(shape))
    x = {
        "randn": torch.randn(shape, generator=g),
        "narrow": torch.randn(shape, generator=g) * 1e-2 + 1e4,
        "huge": torch.randn(shape, generator=g) * 1e30,
        "tiny": torch.randn(shape, generator=g) * 1e-30,
        "constant": torch.full(shape, 0.1),
    }[kind]
    m = _BatchNorm(shape[1])
    out, mean, rstd = aten_mlir.compile(torch.export.export(m, (x,)))(x)
    # (x - mean) * rstd * w + b in f64 (eager's f64 kernel rounds x * a + (b - mean * a))
    dims = [0] + list(range(2, x.dim()))
    view = [1, -1] + [1] * (x.dim() - 2)
    xd = x.double()
    mean_ref = xd.mean(dims, keepdim=True)
    rstd_ref = 1 / torch.sqrt(((xd - mean_ref) ** 2).mean(dims, keepdim=True) + 1e-5)
    w, b = m.weight.detach().double().view(view), m.bias.detach().double().view(view)
    ref = ((xd - mean_ref) * rstd_ref * w + b, mean_ref.flatten(), rstd_ref.flatten())
    eager = m(x)
    # normalizing with a float32 mean errs by its rounding times rstd * |w| (1e4 +- 1e-2: a
    # few % of the deviations), eager and ours alike; which one errs more is luck of the draw
    rounding = (mean_ref.float().double() - mean_ref).abs() * rstd_ref * w.abs()
    for i, (got, want, e) in enumerate(zip((out, mean, rstd), ref, eager)):
        scale = want.abs().max()
        err = ((got.double() - want).abs().max() / scale).item()
        eager_err = ((e.double() - want).abs().max() / scale).item()
        floor = 2 * (rounding.max() / scale).item() if i == 0 else 0.0
        assert err <= max(1.5 * eager_err, 2e-7, floor) if eager_err < 1 else err <= 2e-7


@pytest.mark.parametrize("n", [7, 33, 768])
def test_constant_rows_of_any_magnitude_have_zero_variance(n):
    # the f32 sums' rounding left a variance of noise (rows of 3e10: rstd 25.4, not 316)
    values = [1e30, -1e30, 1e20, 3e10, 1e5, 1.0, 0.1, 1e-20, 1e-41]
    x = torch.stack([torch.full((n,), v) for v in values])
    m = _LayerNorm(n, 1e-5)  # last in the file: G's draws for the tests above stay as they were
    out, mean, rstd = aten_mlir.compile(torch.export.export(m, (x,)))(x)
    torch.testing.assert_close(rstd.flatten(), torch.full((len(values),), 1e-5**-0.5))
    torch.testing.assert_close(mean.flatten(), x[:, 0])
