"""Average pooling backward with 3 spatial dims (`passes/aten_to_linalg/pooling_backward_avg.py`):
`aten.avg_pool3d_backward` and `aten._adaptive_avg_pool3d_backward` lower with no eager fallback
and match eager, as single ops (static and `?` dims), called directly in an exported module (a
`Dim` on batch and spatial sizes), differentiated through `torch.compile(backend="aten_mlir")`
on both targets, and in a training step through nn.AvgPool3d and nn.AdaptiveAvgPool3d."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import aten_mlir
from tests.support.dynamo import check_training_matches_eager, compiled, fresh_dynamo
from tests.support.lowering import assert_lowers
from tests.support.triton import triton_interpreter  # noqa: F401 (fixture)

aten = torch.ops.aten


def _r(*shape, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def _triple(v):
    return list(v) if isinstance(v, tuple) else [v] * 3


# (input shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
AVG = {
    "k3s2p1": ((2, 3, 7, 8, 9), 3, 2, 1, False, True, None),
    "ceil_exclude_pad": ((2, 3, 7, 8, 9), 3, 2, 1, True, False, None),
    "ceil_include_pad": ((1, 2, 7, 6, 5), 3, 2, 1, True, True, None),
    "divisor": ((2, 2, 5, 7, 6), (3, 2, 1), (1, 2, 3), (1, 0, 0), True, True, 7),
    "overlap": ((2, 2, 5, 4, 6), 2, 1, 0, False, True, None),
    "gaps": ((1, 3, 9, 7, 8), (2, 3, 2), (3, 4, 3), (1, 1, 0), True, False, None),
    "odd_sizes": ((1, 1, 33, 7, 1), (3, 3, 1), (2, 2, 1), (1, 1, 0), False, False, None),
    "unbatched": ((3, 7, 5, 9), 3, 2, 1, True, False, None),
    "unbatched_divisor": ((2, 5, 8, 7), (2, 3, 3), (2, 1, 2), (1, 1, 0), False, True, 5),
}


def _avg_case(name, dtype=torch.float32):
    shape, k, s, p, ceil, include_pad, divisor = AVG[name]
    x = _r(*shape, dtype=dtype)
    params = dict(
        kernel_size=_triple(k),
        stride=_triple(s),
        padding=_triple(p),
        ceil_mode=ceil,
        count_include_pad=include_pad,
        divisor_override=divisor,
    )
    out = F.avg_pool3d(x, k, s, p, ceil, include_pad, divisor)
    return [_r(*out.shape, seed=1, dtype=dtype), x], params


@pytest.mark.parametrize("name", AVG)
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_avg_pool3d_backward(name, dynamic):
    tensors, params = _avg_case(name)
    if dynamic:  # `?` batch/channel dims (the op's result type cannot be inferred at `?` sizes:
        # the exported and torch.compile tests below give spatial sizes a Dim)
        dynamic = [range(tensors[1].dim() - 3)] * 2
    assert_lowers("aten.avg_pool3d_backward", tensors, dynamic=dynamic, **params)


def test_avg_pool3d_backward_float64_and_2d_unchanged():
    tensors, params = _avg_case("divisor", torch.float64)
    assert_lowers("aten.avg_pool3d_backward", tensors, **params)
    x = _r(3, 9, 8)  # the n = 2 rule is the same one: unbatched, ceil, divisor
    g = _r(*F.avg_pool2d(x, 3, 2, 1, True, False, 5).shape, seed=1)
    assert_lowers(
        "aten.avg_pool2d_backward",
        [g, x],
        kernel_size=[3, 3],
        stride=[2, 2],
        padding=[1, 1],
        ceil_mode=True,
        count_include_pad=False,
        divisor_override=5,
        dynamic=[[0], [0]],
    )


# (input shape, output size)
ADAPTIVE = {
    "shrink": ((2, 3, 7, 8, 9), (3, 5, 4)),
    "grow": ((2, 2, 3, 4, 5), (7, 9, 6)),  # overlapping windows: an element in several
    "global": ((2, 3, 5, 6, 7), (1, 1, 1)),
    "odd_sizes": ((1, 2, 33, 1, 7), (5, 1, 3)),
    "unbatched": ((3, 5, 4, 7), (2, 3, 7)),
}


def _adaptive_case(name, dtype=torch.float32):
    shape, size = ADAPTIVE[name]
    x = _r(*shape, dtype=dtype)
    g = _r(*F.adaptive_avg_pool3d(x, size).shape, seed=1, dtype=dtype)
    return [g, x]


@pytest.mark.parametrize("name", ADAPTIVE)
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_adaptive_avg_pool3d_backward(name, dynamic):
    assert_lowers("aten._adaptive_avg_pool3d_backward", _adaptive_case(name), dynamic=dynamic)


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16, torch.float16])
def test_adaptive_avg_pool3d_backward_dtypes(dtype):
    # f16/bf16 sum in f32 and round once; eager rounds each contribution (one ulp apart)
    tol = {torch.float64: 1e-12}.get(dtype, 2e-2)
    assert_lowers(
        "aten._adaptive_avg_pool3d_backward",
        _adaptive_case("grow", dtype),
        atol=tol,
        rtol=tol,
    )


class PoolThenBackward(torch.nn.Module):
    """The pool, then its backward op called directly on a gradient made from the output."""

    def __init__(self, pool, backward):
        super().__init__()
        self.pool, self.backward = pool, backward

    def forward(self, x):
        return self.backward(self.pool(x).sin(), x)


def _avg_module(name):
    _, k, s, p, ceil, include_pad, divisor = AVG[name]
    k, s, p = _triple(k), _triple(s), _triple(p)
    return PoolThenBackward(
        lambda x: aten.avg_pool3d(x, k, s, p, ceil, include_pad, divisor),
        lambda g, x: aten.avg_pool3d_backward(g, x, k, s, p, ceil, include_pad, divisor),
    )


def _adaptive_module(name):
    size = list(ADAPTIVE[name][1])
    return PoolThenBackward(
        lambda x: aten._adaptive_avg_pool3d(x, size), aten._adaptive_avg_pool3d_backward
    )


EXPORTED = [
    ("avg", "ceil_exclude_pad"),
    ("avg", "divisor"),
    ("avg", "unbatched"),
    ("adaptive", "shrink"),
    ("adaptive", "grow"),
    ("adaptive", "unbatched"),
]


@pytest.mark.parametrize("kind,name", EXPORTED)
def test_exported_with_batch_and_spatial_dims(kind, name):
    module = _avg_module(name) if kind == "avg" else _adaptive_module(name)
    shape = (AVG if kind == "avg" else ADAPTIVE)[name][0]
    auto = torch.export.Dim.AUTO
    dims = {d: auto for d in range(len(shape))}
    ep = torch.export.export(module, (_r(*shape),), dynamic_shapes=(dims,))
    program = aten_mlir.compile(ep)
    assert program.fallbacks == []
    smallest = _triple(AVG[name][1])[0] if kind == "avg" else 1  # eager: no input < kernel
    for lead, depth in [(shape[0], shape[-3]), (1, smallest), (7, 7), (2, 33)]:
        x = _r(lead, *shape[1:-3], depth, *shape[-2:], seed=depth)
        want = module(x)
        got = program(x)
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def _pools(x):
    a = F.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)
    b = F.avg_pool3d(x, (2, 3, 1), (1, 2, 2), (1, 1, 0), divisor_override=4)
    c = F.adaptive_avg_pool3d(x, (3, 5, 2))
    return a.sin().sum() + (b * b).sum() + c.cos().sum()


def _gradient_matches_eager(inputs, options=None, **kwargs):
    with fresh_dynamo() as counts:
        f = compiled(_pools, options={"cache": False, **(options or {})}, **kwargs)
        for x in inputs:
            got = x.clone().requires_grad_()
            f(got).backward()
            want = x.clone().requires_grad_()
            _pools(want).backward()
            torch.testing.assert_close(got.grad, want.grad, rtol=1e-5, atol=1e-6)
    assert counts["op_fallbacks"] == 0 and counts["graph_fallbacks"] == 0


@pytest.mark.parametrize(
    "shape,dynamic",
    [((2, 3, 9, 8, 7), False), ((3, 7, 5, 9), False), ((3, 2, 33, 8, 7), True)],
    ids=["batched", "unbatched", "dynamic"],
)
def test_autograd_through_torch_compile(shape, dynamic):
    inputs = [_r(*shape)]
    if dynamic:  # one compile with `?` batch and spatial sizes, then odd ones
        inputs += [_r(2, 2, 7, 9, 33, seed=1), _r(5, 2, 7, 33, 9, seed=2)]
    _gradient_matches_eager(inputs, dynamic=dynamic)


def test_autograd_through_torch_compile_on_triton(triton_interpreter):  # noqa: F811
    _gradient_matches_eager([_r(1, 2, 5, 6, 4)], options={"target": "triton"}, dynamic=False)


class Pools3d(torch.nn.Module):
    """A training model whose backward holds both ops (nn.AvgPool3d, nn.AdaptiveAvgPool3d)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv3d(2, 4, 3, padding=1)
        self.avg = torch.nn.AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False)
        self.adaptive = torch.nn.AdaptiveAvgPool3d((2, 3, 2))
        self.head = torch.nn.Linear(4 * 2 * 3 * 2, 3)

    def forward(self, x):
        return self.head(self.adaptive(self.avg(self.conv(x).relu())).flatten(1))


def test_a_training_step_through_avg_pool3d_has_no_fallback():
    torch.manual_seed(0)
    model = Pools3d()
    batches = [(torch.randn(3, 2, 7, 9, 8), torch.randint(0, 3, (3,))) for _ in range(4)]
    check_training_matches_eager(model, batches, F.cross_entropy)
