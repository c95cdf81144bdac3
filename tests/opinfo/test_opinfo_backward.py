"""Every core backward overload compiled: the OpInfo samples of their forward ops, differentiated
through `torch.compile(backend="aten_mlir")`; the backward graph holds the core backward op and
runs with no eager fallback, and the gradients match autograd's. Both targets; one sample per op
by default, twelve under `slow`."""

from __future__ import annotations

import pytest
import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd

from aten_mlir.backends import dynamo
from aten_mlir.tests.opinfo import harness
from aten_mlir.tests.support.dynamo import fresh_dynamo
from aten_mlir.tests.support.triton import triton_interpreter  # noqa: F401 (fixture)

# core backward overload -> the forward OpInfo whose gradient is it
BACKWARD_OPS = {
    "convolution_backward": "nn.functional.conv2d",
    "native_layer_norm_backward": "nn.functional.layer_norm",
    "native_group_norm_backward": "nn.functional.group_norm",
    "max_pool2d_with_indices_backward": "nn.functional.max_pool2d",
    "avg_pool2d_backward": "nn.functional.avg_pool2d",
    "_adaptive_avg_pool2d_backward": "nn.functional.adaptive_avg_pool2d",
    "embedding_dense_backward": "nn.functional.embedding",
}


def _samples(limit):
    by_name = {o.name: o for o in harness.op_db() if not o.variant_test_name}
    out = []
    for backward, forward in BACKWARD_OPS.items():
        for case in harness.cases(by_name[forward], limit=limit):
            out.append(pytest.param(backward, case, id=f"{backward}-{case.index}"))
    return out


def _differentiable(case):
    return [t.is_floating_point() for t in case.inputs]


def _gradients(fn, case, grad_seed=0, dtype=None):
    """The gradients of `fn` on the case's inputs (cast to `dtype` if given) for seeded random
    output gradients."""
    inputs = [
        (t.to(dtype) if dtype and d else t).clone().requires_grad_(d)
        for t, d in zip(case.inputs, _differentiable(case))
    ]
    out = fn(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    outs = [o for o in outs if isinstance(o, torch.Tensor) and o.requires_grad]
    generator = torch.Generator().manual_seed(grad_seed)
    grads = [torch.randn(o.shape, generator=generator).to(o.dtype) for o in outs]
    torch.autograd.backward(outs, grads)
    return [t.grad for t in inputs if t.requires_grad]


def _backward_ops(case):
    """The ops of the backward graph AOTAutograd makes with our decomposition table."""
    seen = []

    def keep(gm, _):
        seen.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
        return make_boxed_func(gm.forward)

    backend = aot_autograd(
        fw_compiler=lambda gm, _: make_boxed_func(gm.forward),
        bw_compiler=keep,
        decompositions=dynamo.decompositions(),
    )
    with fresh_dynamo():
        _gradients(torch.compile(case.module, backend=backend, dynamic=False), case)
    return seen


def _check(backward, case, target):
    if not any(_differentiable(case)):
        pytest.skip("no floating-point input to differentiate")
    try:
        want = _gradients(case.module, case)
    except RuntimeError as e:  # embedding's scale_grad_by_freq with sparse=True
        pytest.skip(f"eager's backward raises: {str(e).splitlines()[0]}")
    if any(w is not None and w.is_sparse for w in want):
        pytest.skip("sparse gradient: embedding's sparse=True has no dense backward op")
    assert any(backward in op for op in _backward_ops(case)), "kept whole for our kernels"
    options = {"target": target, "fallback": "error", "cache": False}
    with fresh_dynamo() as counts:
        dynamo.register()
        f = torch.compile(case.module, backend="aten_mlir", options=options, dynamic=False)
        got = _gradients(f, case)
    assert counts["op_fallbacks"] == 0 and counts["graph_fallbacks"] == 0
    reference = None
    for i, (g, w) in enumerate(zip(got, want)):
        try:
            torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
        except AssertionError:
            # e.g. layer_norm over one element: the input gradient is exactly 0, eager's
            # rounding times rstd = 1/sqrt(eps) leaves 4e-5. Pass when no element of ours is
            # farther than eager's from the float64 gradient.
            reference = reference or _gradients(case.module, case, dtype=torch.float64)
            r = reference[i]
            slack = 1e-5 + 1e-4 * r.abs()
            assert ((g.double() - r).abs() <= (w.double() - r).abs() + slack).all(), (
                f"gradient {i} differs from eager and is farther from the float64 gradient"
            )


@pytest.mark.parametrize("backward, case", _samples(limit=1))
def test_backward_op_on_cpu(backward, case):
    _check(backward, case, "cpu")


@pytest.mark.parametrize("backward, case", _samples(limit=1))
def test_backward_op_on_triton(backward, case, triton_interpreter):  # noqa: F811
    _check(backward, case, "triton")


@pytest.mark.slow
@pytest.mark.parametrize("target", ["cpu", "triton"])
@pytest.mark.parametrize("backward, case", _samples(limit=12))
def test_backward_op_every_sample(backward, case, target, triton_interpreter):  # noqa: F811
    _check(backward, case, target)
