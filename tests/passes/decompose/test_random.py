"""Random-op decompositions leave only core ops (`rand`, `randn`, `native_dropout`, ...), give
the op's shape and dtype, and sample the op's distribution: mean, spread and support checked on
20k draws against the distribution's own values (the bits differ from eager's)."""

from __future__ import annotations

import math

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program

X = torch.randn(200, 100)  # 20k elements: the sampled shape
X4 = torch.randn(40, 50, 2, 5)  # (N, C, ...) for the per-channel dropouts
POSITIVE = torch.rand(200, 100) * 0.4


def _draw(op_name, tensors, dynamic=False, **kwargs):
    """The decomposed program's result and eager's (both through the reference interpreter)."""
    torch.manual_seed(0)
    program = single_op_program(op_name, tensors, dynamic=dynamic, **kwargs)
    expected = aten_mlir.run_reference(program, *tensors)
    decomposed = aten_mlir.decompose(program)
    left = ops_outside(decomposed.module.operation, target_set())
    assert not left, [op.name for op in left]
    actual = aten_mlir.run_reference(decomposed, *tensors)
    pairs = zip(*(r if isinstance(r, (tuple, list)) else [r] for r in (actual, expected)))
    for a, e in pairs:
        assert a.dtype == e.dtype and a.shape == e.shape, (a.dtype, e.dtype, a.shape, e.shape)
    return actual, expected


def _moments(sample, mean, std, tol=0.05):
    s = sample.double()
    assert abs(float(s.mean()) - mean) <= tol * max(std, 1e-3) * 4, (float(s.mean()), mean)
    assert abs(float(s.std()) - std) <= tol * std * 2, (float(s.std()), std)


def _uniform(lo, hi):
    return (lo + hi) / 2, (hi - lo) / math.sqrt(12)


def _check_rand_like(out, _):
    assert 0 <= out.min() and out.max() < 1
    _moments(out, *_uniform(0, 1))


def _check_randint(low, high):
    def check(out, _):
        assert out.min() >= low and out.max() < high and out.unique().numel() == high - low
        _moments(out, (low + high - 1) / 2, math.sqrt(((high - low) ** 2 - 1) / 12))

    return check


def _check_uniform(out, _):
    assert -2 <= out.min() and out.max() < 4
    _moments(out, *_uniform(-2, 4))


def _check_exponential(out, _):
    assert out.min() >= 0
    _moments(out, 0.5, 0.5)


def _check_geometric(out, _):
    p = 0.3
    assert out.min() >= 1 and torch.equal(out, out.floor())
    _moments(out, 1 / p, math.sqrt(1 - p) / p)


def _check_log_normal(out, _):
    mu, sigma = 0.1, 0.5
    mean = math.exp(mu + sigma**2 / 2)
    _moments(out, mean, mean * math.sqrt(math.exp(sigma**2) - 1))


def _check_cauchy(out, _):
    # No moments: the median and the quartiles (median +- sigma).
    q = torch.quantile(out.double().flatten()[:10000], torch.tensor([0.25, 0.5, 0.75]).double())
    torch.testing.assert_close(q, torch.tensor([0.9, 1.0, 1.1]).double(), atol=0.02, rtol=0)


def _check_bernoulli(p):
    def check(out, _):
        assert set(out.unique().tolist()) <= {0.0, 1.0}
        _moments(out, p, math.sqrt(p * (1 - p)))

    return check


def _check_dropout(p, per_channel=False):
    def check(out, x):
        kept = out != 0
        torch.testing.assert_close(out[kept], x[kept] / (1 - p))
        if per_channel:  # one decision per (N, C)
            decided = kept.flatten(2)
            assert torch.equal(decided.all(-1), decided.any(-1))
            kept = decided.all(-1)
        _moments(kept.float(), 1 - p, math.sqrt(p * (1 - p)), tol=0.1)

    return check


def _check_alpha_dropout(p, per_channel=False):
    alpha = 1.7580993408473766
    a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))

    def check(out, x):
        dropped_value = -alpha * a + alpha * a * p
        dropped = torch.isclose(out, torch.full_like(out, dropped_value))
        torch.testing.assert_close(out[~dropped], x[~dropped] * a + alpha * a * p)
        if per_channel:
            dropped = dropped.flatten(2).all(-1)
        _moments(dropped.float(), p, math.sqrt(p * (1 - p)), tol=0.1)
        _moments(out, 0.0, 1.0, tol=0.1)  # alpha dropout keeps mean 0, variance 1

    return check


def _check_normal(mean, std):
    def check(out, _):
        _moments(out, mean, std)

    return check


def _check_rrelu(out, x):
    slope = out / x
    negative = x < 0
    assert torch.equal(out[~negative], x[~negative])
    _moments(slope[negative], *_uniform(1 / 8, 1 / 3))


DISTRIBUTIONS = {
    "rand_like": ("aten.rand_like", [X], {}, _check_rand_like),
    "randn_like": ("aten.randn_like", [X], {"dtype": torch.float64}, _check_normal(0, 1)),
    "randint_like": ("aten.randint_like", [X], {"high": 10}, _check_randint(0, 10)),
    "randint_like.low_dtype": (
        "aten.randint_like.low_dtype",
        [X],
        {"low": -5, "high": 5, "dtype": torch.int32},
        _check_randint(-5, 5),
    ),
    "randint_like.Tensor": (
        "aten.randint_like.Tensor",
        [X, torch.tensor(7)],
        {},
        _check_randint(0, 7),
    ),
    "normal_functional": (
        "aten.normal_functional",
        [X],
        {"mean": 2.0, "std": 3.0},
        _check_normal(2, 3),
    ),
    "normal.Tensor_float": (
        "aten.normal.Tensor_float",
        [torch.full((200, 100), -1.0)],
        {"std": 0.5},
        _check_normal(-1, 0.5),
    ),
    "normal.float_Tensor": (
        "aten.normal.float_Tensor",
        [torch.full((200, 100), 2.0)],
        {"mean": 1.0, "names": ["std"]},
        _check_normal(1, 2),
    ),
    "normal.Tensor_Tensor": (
        "aten.normal.Tensor_Tensor",
        [torch.full((200, 1), 4.0), torch.full((100,), 0.5)],
        {},
        _check_normal(4, 0.5),
    ),
    "uniform": ("aten.uniform", [X], {"from": -2.0, "to": 4.0}, _check_uniform),
    "cauchy": ("aten.cauchy", [X], {"median": 1.0, "sigma": 0.1}, _check_cauchy),
    "exponential": ("aten.exponential", [X], {"lambd": 2.0}, _check_exponential),
    "geometric": ("aten.geometric", [X], {"p": 0.3}, _check_geometric),
    "log_normal": ("aten.log_normal", [X], {"mean": 0.1, "std": 0.5}, _check_log_normal),
    "bernoulli": ("aten.bernoulli", [torch.full((200, 100), 0.3)], {}, _check_bernoulli(0.3)),
    "bernoulli.p": ("aten.bernoulli.p", [X], {"p": 0.2}, _check_bernoulli(0.2)),
    "bernoulli.Tensor": (
        "aten.bernoulli.Tensor",
        [X, torch.full((100,), 0.7)],
        {},
        _check_bernoulli(0.7),
    ),
    "dropout": ("aten.dropout", [X], {"p": 0.3, "train": True}, _check_dropout(0.3)),
    "feature_dropout": (
        "aten.feature_dropout",
        [X4],
        {"p": 0.4, "train": True},
        _check_dropout(0.4, per_channel=True),
    ),
    "alpha_dropout": (
        "aten.alpha_dropout",
        [X],
        {"p": 0.3, "train": True},
        _check_alpha_dropout(0.3),
    ),
    "feature_alpha_dropout": (
        "aten.feature_alpha_dropout",
        [X4],
        {"p": 0.2, "train": True},
        _check_alpha_dropout(0.2, per_channel=True),
    ),
    "rrelu": ("aten.rrelu", [X], {"training": True}, _check_rrelu),
}


@pytest.mark.parametrize("case", sorted(DISTRIBUTIONS))
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_random_decomposition_samples_the_distribution(case, dynamic):
    op_name, tensors, kwargs, check = DISTRIBUTIONS[case]
    kwargs = dict(kwargs)
    names = kwargs.pop("names", None)
    actual, expected = _draw(op_name, tensors, dynamic, names=names, **kwargs)
    check(actual, tensors[0])
    check(expected, tensors[0])  # the check itself holds for eager's samples


@pytest.mark.parametrize(
    "op_name, kwargs",
    [
        ("aten.randint", {"high": 10, "size": [200, 100]}),
        ("aten.randint.low", {"low": 3, "high": 10, "size": [200, 100]}),
        ("aten.normal.float_float", {"mean": 3.0, "std": 2.0, "size": [200, 100]}),
    ],
)
def test_random_factories_sample_the_distribution(op_name, kwargs):
    actual, _ = _draw(op_name, [], **kwargs)
    if "randint" in op_name:
        _check_randint(kwargs.get("low", 0), kwargs["high"])(actual, None)
    else:
        _moments(actual, 3.0, 2.0)


@pytest.mark.parametrize(
    "op_name, kwargs",
    [
        ("aten.dropout", {"p": 0.3, "train": False}),
        ("aten.dropout", {"p": 0.0, "train": True}),
        ("aten.alpha_dropout", {"p": 0.5, "train": False}),
        ("aten.feature_dropout", {"p": 1.0, "train": True}),
        ("aten.rrelu", {"training": False}),
    ],
)
def test_deterministic_cases_equal_eager(op_name, kwargs):
    x = X.clone()
    x[0, :3] = torch.tensor([float("nan"), float("inf"), -0.0])
    actual, expected = _draw(op_name, [x.reshape(200, 10, 10)], **kwargs)
    torch.testing.assert_close(actual, expected, equal_nan=True)


def test_native_dropout_backward_equals_eager():
    mask = torch.rand(200, 100) > 0.3
    actual, expected = _draw("aten.native_dropout_backward", [X, mask], scale=1 / 0.7)
    torch.testing.assert_close(actual, expected)


def test_rrelu_with_noise_functional_returns_its_slopes():
    noise = torch.zeros(200, 100)
    (out, slopes), _ = _draw("aten.rrelu_with_noise_functional", [X, noise], training=True)
    torch.testing.assert_close(out, X * slopes)
    assert torch.equal(slopes[X > 0], torch.ones_like(X[X > 0]))
    _moments(slopes[X <= 0], *_uniform(1 / 8, 1 / 3))
    (out, same), (expected, _) = _draw("aten.rrelu_with_noise_functional", [X, noise])
    torch.testing.assert_close(out, expected)
    assert torch.equal(same, noise)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_samples_in_proportion(replacement, dynamic):
    probs = torch.tensor([[1.0, 0.0, 3.0, 6.0]]).repeat(4, 1)
    count = 3 if not replacement else 5000
    out, _ = _draw("aten.multinomial", [probs], dynamic, num_samples=count, replacement=replacement)
    assert not (out == 1).any()  # probability 0 is never drawn
    if replacement:
        freq = torch.bincount(out.flatten(), minlength=4).double() / out.numel()
        torch.testing.assert_close(
            freq, torch.tensor([0.1, 0.0, 0.3, 0.6]).double(), atol=0.02, rtol=0
        )
    else:  # three distinct categories per row
        assert all(len(set(row.tolist())) == 3 for row in out)


def test_random_opinfo_samples():
    check_opinfo_samples(
        [
            "bernoulli",
            "nn.functional.dropout",
            "nn.functional.alpha_dropout",
            "native_dropout_backward",
            "nn.functional.rrelu",
            "multinomial",
            "normal",
            "uniform",
            "exponential",
            "cauchy",
            "geometric",
            "log_normal",
            "randint_like",
            "rand_like",
            "randn_like",
        ],
        limit=2,
    )
