"""Activation and clamp lowerings against eager (NaN propagation and signed zeros included)."""

import pytest
import torch

from tests.support.lowering import assert_lowers, assert_module_lowers

NAN, INF = float("nan"), float("inf")


def _floats(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g) * 3
    x.view(-1)[:6] = torch.tensor([NAN, -0.0, INF, -INF, 0.0, 1.0])[: x.numel()]
    return x


def _same_bits(actual, expected):
    """Equal including the sign of zeros and NaN positions."""
    torch.testing.assert_close(actual, expected, equal_nan=True, atol=0, rtol=0)
    assert torch.equal(torch.signbit(actual), torch.signbit(expected) & ~expected.isnan())


@pytest.mark.parametrize(
    "op, kwargs",
    [
        ("aten.relu", {}),
        ("aten.gelu", {}),
        ("aten.gelu", {"approximate": "tanh"}),
        ("aten.elu", {}),
        ("aten.elu", {"alpha": 0.5, "scale": 1.5, "input_scale": 2.0}),
        ("aten.hardtanh", {}),
        ("aten.hardtanh", {"min_val": -0.5, "max_val": 2.0}),
        ("aten.leaky_relu", {}),
        ("aten.leaky_relu", {"negative_slope": 0.2}),
        ("aten.clamp", {"min": -1.0, "max": 0.5}),
        ("aten.clamp", {"min": 0.0}),
        ("aten.clamp", {"max": -1}),
        ("aten.clamp", {"min": 1.0, "max": -1.0}),
    ],
)
@pytest.mark.parametrize("dynamic", [False, True])
def test_float32(op, kwargs, dynamic):
    x = _floats(4, 5)
    if op == "aten.gelu":
        # eager's SIMD erf/tanh give gelu(+inf) = NaN, its scalar tail gives inf: not compared
        x = x.nan_to_num(posinf=50.0, neginf=-50.0)
    assert_lowers(op, [x], dynamic=dynamic, **kwargs)


def test_signed_zero_and_nan():
    x = torch.tensor([-0.0, 0.0, NAN, -1.0])
    for op, kw in [
        ("aten.relu", {}),
        ("aten.clamp", {"min": 0.0}),
        ("aten.clamp", {"max": -0.0}),
        ("aten.hardtanh", {}),
        ("aten.leaky_relu", {}),
    ]:
        actual, expected = assert_lowers(op, [x], **kw)
        _same_bits(actual, expected)
    actual, expected = assert_lowers("aten.clamp", [x], min=NAN)
    assert actual.isnan().all() and expected.isnan().all()


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8])
def test_int(dtype):
    x = torch.tensor([-5, -1, 0, 2, 7], dtype=dtype)
    assert_lowers("aten.relu", [x])
    assert_lowers("aten.clamp", [x], min=-2, max=3)
    assert_lowers("aten.clamp", [x], min=-2.5)  # promotes to float
    assert_lowers("aten.hardtanh", [x], min_val=-1, max_val=1)
    assert_lowers("aten.clamp.Tensor", [x, torch.tensor([0], dtype=dtype)], names=["self", "min"])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_other_floats(dtype):
    tol = {} if dtype == torch.float64 else {"atol": 1e-2, "rtol": 1e-2}
    x = _floats(3, 4).nan_to_num(posinf=50.0, neginf=-50.0).to(dtype)
    for op in ["aten.relu", "aten.gelu", "aten.elu", "aten.leaky_relu"]:
        assert_lowers(op, [x], **tol)
    assert_lowers("aten.gelu", [x], approximate="tanh", **tol)
    assert_lowers("aten.clamp", [x], min=-0.1, max=0.3, **tol)


def test_clamp_tensor():
    x, lo, hi = _floats(3, 4), torch.randn(4) - 1, torch.randn(3, 1) + 1
    lo[1] = NAN
    assert_lowers("aten.clamp.Tensor", [x, lo, hi], names=["self", "min", "max"])
    # a `?` dim is never 1 (export specialises it): hi keeps its static broadcast dim
    dyn = [[0, 1], [0], [0]]
    assert_lowers("aten.clamp.Tensor", [x, lo, hi], names=["self", "min", "max"], dynamic=dyn)
    assert_lowers("aten.clamp.Tensor", [x, hi], names=["self", "max"])
    assert_lowers("aten.clamp.Tensor", [x, lo.double()], names=["self", "min"])


def test_empty():
    assert_lowers("aten.gelu", [torch.empty(0, 4)])


def test_module_chain():
    class M(torch.nn.Module):
        def forward(self, x):
            y = torch.nn.functional.gelu(x) + torch.nn.functional.elu(x)
            return torch.clamp(torch.relu(y), max=2.0), torch.nn.functional.leaky_relu(x)

    dim = torch.export.Dim("n")
    x = _floats(5, 3).nan_to_num(posinf=50.0, neginf=-50.0)
    assert_module_lowers(M(), [x], dynamic_shapes=({0: dim},))


def test_symbolic_bounds():
    class M(torch.nn.Module):
        def forward(self, x, i):
            n = x.shape[0]
            return torch.clamp(i, 0, n - 1), torch.clamp(x, min=-n, max=n * 2)

    x, i = torch.randn(6, 2) * 10, torch.tensor([-3, 0, 4, 9, 5])
    dim = torch.export.Dim("n", min=2)
    assert_module_lowers(M(), [x, i], dynamic_shapes=({0: dim}, None))


def test_bool_clamp_tensor():
    # clamp_min / clamp_max on bools (false < true); eager has no scalar-bound bool kernel
    b, c = torch.tensor([True, False, True, False]), torch.tensor([False, False, True, True])
    assert_lowers("aten.clamp.Tensor", [b, c], names=["self", "min"])
    assert_lowers("aten.clamp.Tensor", [b, c], names=["self", "max"])
