"""bf16/f16 programs and launcher corner cases on the Triton target against eager (kernels in
the interpreter): the bugs random programs found (issue #20, finding 11) and the sweep that
followed them."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.triton.launch import scalar
from tests.modules import Fn

BF16, F16 = torch.bfloat16, torch.float16
A = [-2.0, -1.0, 0.5, 1.0, -0.5, 3.0]
B = [-1.0, -2.0, 1.0, 0.5, 0.25, -3.0]


def _run(fn, args, calls=(), dynamic=None, atol=None, rtol=None):
    """`fn` compiled for Triton equals eager on `args` and on each of `calls`."""
    ep = torch.export.export(Fn(fn), args, dynamic_shapes=dynamic)
    compiled = aten_mlir.compile(ep, target="triton")
    assert not compiled.fallbacks
    for call in (args, *calls):
        want, got = fn(*call), compiled(*call)
        torch.testing.assert_close(got, want, atol=atol, rtol=rtol, equal_nan=True)
    return compiled


@pytest.mark.parametrize("dtype", [BF16, F16], ids=["bf16", "f16"])
@pytest.mark.parametrize(
    "name, fn",
    [
        ("gt", lambda a, b: a > b),
        ("le", lambda a, b: a <= b),
        ("ne", lambda a, b: a != b),
        ("where", lambda a, b: torch.where(a > b, a, b)),
        ("maximum", torch.maximum),
        ("amax", lambda a, b: (a * b).reshape(2, 3).amax(1)),
        ("argmax", lambda a, b: (a - b).reshape(3, 2).argmax(0)),
        ("neg_abs", lambda a, b: -a + b.abs()),
        ("sign", lambda a, b: torch.sign(a) * torch.sign(b)),
        ("clamp", lambda a, b: a.clamp(-1.0, 0.75) + b.clamp(min=0.0)),
        ("sort", lambda a, b: torch.sort(a - b)[0]),
        ("max_pool", lambda a, b: torch.nn.functional.max_pool1d(a.reshape(1, 1, 6), 2)),
    ],
)
def test_half_precision_compare_and_select(dtype, name, fn):
    # bf16 is held as 16 bits in an integer array by Triton's interpreter: comparing those
    # ordered negative values backwards (`a > b` gave [1,0,0,1,1,0])
    _run(fn, (torch.tensor(A, dtype=dtype), torch.tensor(B, dtype=dtype)))


@pytest.mark.parametrize(
    "name, fn, shape",
    [
        ("nan_to_num", torch.nan_to_num, [1]),
        ("masked_fill", lambda x: x.masked_fill(x > 0, 0.0), [1, 1, 2]),
        ("amax_all", lambda x: x.amax(dim=[0, 1, 2]), [1, 1, 2]),
        (
            "adaptive_max_pool",
            lambda x: torch.nn.functional.adaptive_max_pool2d(x, 1),
            [1, 1, 1, 2],
        ),
    ],
)
def test_fuzzer_bf16_programs(name, fn, shape):
    # the fuzzer's minimal programs (B2-B4 in its log)
    x = torch.tensor([-0.2275, 2.25][: shape[-1]], dtype=BF16).reshape(shape)
    _run(fn, (x,), [(-x,)])


def test_bf16_scalar_read_in_the_launcher():
    # a 0-d bf16 value the launcher reads (`.numpy()` has no bfloat16)
    a = torch.tensor(A, dtype=BF16)
    _run(lambda a: a.max() * a[2] + a[3], (a,))
    assert scalar(torch.tensor(1.5, dtype=BF16)) == 1.5


@pytest.mark.parametrize("dtype", [BF16, F16], ids=["bf16", "f16"])
def test_mean_over_a_dynamic_dim(dtype):
    # the row count reaches the kernel as a host float of the input's precision
    x = torch.randn(4, 6).to(dtype)
    call = (torch.randn(7, 6).to(dtype),)
    _run(lambda x: x.mean(0), (x,), [call], dynamic=(({0: Dim("n")},),), atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize(
    "name, fn",
    [("sort", lambda x: torch.sort(x)[0]), ("topk", lambda x: torch.topk(x, 2)[1])],
)
def test_sort_over_a_dynamic_dim(name, fn):
    # the bitonic network's stage count is log2 of the size: `math.ctlz` on the host
    _run(fn, (torch.randn(6),), [(torch.randn(9),)], dynamic=(({0: Dim("n", min=2)},),))


@pytest.mark.parametrize(
    "fn, dynamic",
    [
        (lambda x: x.reshape(2, 12), None),
        (lambda x: x.reshape(-1) * 2, (({0: Dim("rows", min=2)},),)),
        (lambda x: x.sum(1), (({0: Dim("rows", min=2)},),)),
    ],
    ids=["reshape", "flatten_dynamic", "sum_dynamic"],
)
def test_strided_input(fn, dynamic):
    # a transposed input where the program was exported with a contiguous one: host reshapes
    # are `.view`s of the layout the argument's type promises
    x = torch.randn(4, 6)
    calls = [(torch.randn(6, 4).t(),)] + ([(torch.randn(6, 5).t(),)] if dynamic else [])
    _run(fn, (x,), calls, dynamic=dynamic)


SUBNORMAL_BF16 = [2.9387e-39, -1e-40, 0.0, 1.5, -0.0, 300.0]


@pytest.mark.parametrize(
    "name, fn",
    [
        ("all", lambda x, t: torch.all(x.reshape(2, 3), dim=0)),
        ("any", lambda x, t: torch.any(x.reshape(3, 2), dim=1)),
        ("ne_zero", lambda x, t: x != 0),
        ("to_bool", lambda x, t: x.bool()),
        ("mul_scalar_tensor", lambda x, t: x * t),
        ("to_float", lambda x, t: x.float() * 2),
        ("round_trip", lambda x, t: (x.float() * 0.75).bfloat16()),
    ],
)
def test_bf16_subnormals_are_values(name, fn):
    # the interpreter's bf16 <-> f32 conversions flush subnormals (`all` of 2.9e-39 was False):
    # the kernels convert by the bits, as a GPU does
    x, t = torch.tensor(SUBNORMAL_BF16, dtype=BF16), torch.tensor(0.75, dtype=BF16)
    compiled = _run(fn, (x, t))
    assert torch.equal(compiled(x, t), fn(x, t))
