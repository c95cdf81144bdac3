"""rand, randn, randperm and native_dropout: shapes, dtypes and statistics (never bits), fresh
numbers on every call and reproducibility under torch.manual_seed."""

import pytest
import torch

import aten_mlir
from tests.support.programs import single_op_program


def _compiled(op_name, tensors=(), **kwargs):
    compiled = aten_mlir.compile(single_op_program(op_name, list(tensors), **kwargs))
    assert not compiled.fallbacks, compiled.fallbacks
    return compiled


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_rand_uniform(dtype):
    run = _compiled("aten.rand", size=[200, 100], dtype=dtype)
    a, b = run(), run()
    assert a.shape == (200, 100) and a.dtype == dtype
    f = a.double()
    assert 0.0 <= float(f.min()) and float(f.max()) < 1.0
    assert abs(float(f.mean()) - 0.5) < 0.01 and abs(float(f.std()) - 12**-0.5) < 0.01
    assert float((a != b).double().mean()) > 0.9  # a fresh stream on every call
    torch.manual_seed(3)
    c = run()
    torch.manual_seed(3)
    assert torch.equal(c, run())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_randn_normal(dtype):
    run = _compiled("aten.randn", size=[300, 100], dtype=dtype)
    f = run().double()
    assert f.dtype == torch.float64 and f.isfinite().all()
    assert abs(float(f.mean())) < 0.02 and abs(float(f.std()) - 1.0) < 0.02
    # Tails of a normal: about 4.6% beyond 2 sigma.
    assert 0.035 < float((f.abs() > 2).double().mean()) < 0.057


def test_random_in_module_dynamic_and_independent():
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.rand(x.shape[0], 3), torch.rand(x.shape[0], 3), torch.randn_like(x)

    x = torch.zeros(400, 3)
    ep = torch.export.export(M(), (x,), dynamic_shapes=({0: torch.export.Dim("n")},))
    compiled = aten_mlir.compile(ep)
    assert not compiled.fallbacks
    a, b, n = compiled(torch.zeros(500, 3))
    assert a.shape == b.shape == n.shape == (500, 3)
    assert float((a != b).double().mean()) > 0.99  # two ops, two streams
    assert abs(float(n.mean())) < 0.1 and abs(float(n.std()) - 1) < 0.1


@pytest.mark.parametrize(
    "n, dtype",
    [(0, torch.int64), (1, torch.int64), (2, torch.int32), (50, torch.int64), (50, torch.float32)],
)
def test_randperm(n, dtype):
    run = _compiled("aten.randperm", n=n, dtype=dtype)
    p = run()
    assert p.dtype == dtype and p.shape == (n,)
    assert torch.equal(p.sort().values, torch.arange(n, dtype=dtype))
    if n == 50:
        assert not torch.equal(p, run())


def test_randperm_uniform_and_dynamic():
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.randperm(x.shape[0])

    ep = torch.export.export(M(), (torch.zeros(5),), dynamic_shapes=({0: torch.export.Dim("n")},))
    compiled = aten_mlir.compile(ep)
    assert not compiled.fallbacks
    firsts = torch.stack([compiled(torch.zeros(4)) for _ in range(2000)])
    assert torch.equal(firsts.sort(dim=1).values[0], torch.arange(4))
    counts = torch.bincount(firsts[:, 0], minlength=4).double()
    assert (counts / 2000 - 0.25).abs().max() < 0.04  # each value first equally often


@pytest.mark.parametrize(
    "p, dtype",
    [
        (0.0, torch.float32),
        (0.3, torch.float32),
        (0.9, torch.float64),
        (1.0, torch.float32),
        (0.3, torch.float16),
    ],
)
def test_native_dropout_train(p, dtype):
    x = torch.randn(300, 70).to(dtype)
    x[0, :3] = torch.tensor([float("nan"), float("inf"), -0.0])
    run = _compiled("aten.native_dropout", [x], p=p, train=True)
    out, mask = run(x)
    assert out.dtype == dtype and mask.dtype == torch.bool and out.shape == mask.shape == x.shape
    keep = float(mask.double().mean())
    assert abs(keep - (1 - p)) < 0.02
    scale = 0.0 if p == 1 else 1.0 / (1 - p)
    expected = x.mul(mask).mul_(scale)  # ATen's own formula for this mask
    torch.testing.assert_close(out, expected, equal_nan=True)
    if 0 < p < 1:
        assert not torch.equal(mask, run(x)[1])


def test_native_dropout_eval_and_dynamic():
    x = torch.randn(4, 5)
    out, mask = _compiled("aten.native_dropout", [x], p=0.5, train=False)(x)
    assert torch.equal(out, x) and mask.all() and mask.dtype == torch.bool
    run = _compiled("aten.native_dropout", [x], p=0.5, train=True, dynamic=True)
    big = torch.randn(200, 30)
    out, mask = run(big)
    assert out.shape == big.shape and abs(float(mask.double().mean()) - 0.5) < 0.05
    torch.testing.assert_close(out, big * mask * 2.0)


def test_dropout_module():
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.dropout(x, 0.25, training=True)

    x = torch.ones(100, 50)
    compiled = aten_mlir.compile(torch.export.export(M(), (x,)))
    assert not compiled.fallbacks
    y = compiled(x)
    assert set(y.unique().tolist()) <= {0.0, torch.tensor(1 / 0.75).item()}
    assert abs(float((y != 0).double().mean()) - 0.75) < 0.03
