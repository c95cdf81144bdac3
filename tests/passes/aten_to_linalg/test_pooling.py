"""Pooling lowerings (max/avg/adaptive, their backward ops, col2im) against eager."""

import pytest
import torch

from tests.support.lowering import assert_lowers, assert_module_lowers

F = torch.nn.functional
NAN, INF = float("nan"), float("inf")


def _r(*shape, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def _special(*shape):
    x = _r(*shape)
    x.view(-1)[0] = NAN
    x.view(-1)[5] = NAN
    x.view(-1)[7] = -INF
    x.view(-1)[9] = -0.0
    return x


MAX_POOLS = [
    dict(kernel_size=[3, 3], stride=[2, 2], padding=[1, 1]),
    dict(kernel_size=[3, 2], stride=[2, 1], padding=[1, 1], dilation=[2, 1], ceil_mode=True),
    dict(kernel_size=[2, 2]),
]


@pytest.mark.parametrize("kw", MAX_POOLS)
def test_max_pool2d_with_indices(kw):
    assert_lowers("aten.max_pool2d_with_indices", [_special(2, 3, 9, 8)], **kw)


def test_max_pool_int_unbatched_dynamic_3d():
    x = torch.randint(-3, 3, (2, 3, 9, 8))  # many ties: the first one wins
    assert_lowers("aten.max_pool2d_with_indices", [x], kernel_size=[2, 2], ceil_mode=True)
    assert_lowers("aten.max_pool2d_with_indices", [torch.full((3, 4, 4), -INF)], kernel_size=[2, 2])
    assert_lowers(
        "aten.max_pool2d_with_indices",
        [_special(2, 3, 9, 8)],
        kernel_size=[3, 3],
        stride=[2, 2],
        padding=[1, 1],
        dynamic=[[0, 1]],
    )
    assert_lowers(
        "aten.max_pool3d_with_indices",
        [_special(2, 2, 5, 6, 7)],
        kernel_size=[2, 3, 2],
        stride=[2, 2, 2],
        padding=[1, 1, 1],
        ceil_mode=True,
    )


AVG_POOLS = [
    ("aten.avg_pool2d", (2, 3, 9, 8), dict(kernel_size=[3, 3], stride=[2, 2], padding=[1, 1])),
    (
        "aten.avg_pool2d",
        (2, 3, 9, 8),
        dict(
            kernel_size=[3, 3],
            stride=[2, 2],
            padding=[1, 1],
            ceil_mode=True,
            count_include_pad=False,
        ),
    ),
    (
        "aten.avg_pool2d",
        (3, 9, 8),
        dict(kernel_size=[3, 2], stride=[2, 2], padding=[1, 1], divisor_override=5),
    ),
    (
        "aten.avg_pool1d",
        (3, 4, 9),
        dict(kernel_size=[3], stride=[2], padding=[1], ceil_mode=True, count_include_pad=False),
    ),
    (
        "aten.avg_pool3d",
        (2, 2, 5, 6, 7),
        dict(kernel_size=[2, 3, 2], stride=[2, 2, 1], padding=[1, 1, 1], ceil_mode=True),
    ),
]


@pytest.mark.parametrize("op,shape,kw", AVG_POOLS)
def test_avg_pool(op, shape, kw):
    assert_lowers(op, [_special(*shape)], **kw)


def test_avg_pool_int_and_half():
    x = torch.randint(-100, 100, (2, 3, 9, 8))
    assert_lowers(
        "aten.avg_pool2d", [x], kernel_size=[3, 2], stride=[2, 2], padding=[1, 1], ceil_mode=True
    )
    assert_lowers(
        "aten.avg_pool2d",
        [_r(2, 3, 9, 8).half()],
        kernel_size=[3, 3],
        stride=[2, 2],
        padding=[1, 1],
        atol=1e-2,
        rtol=1e-2,
    )


class _Pools(torch.nn.Module):
    def forward(self, x):
        a = F.max_pool2d(x, 3, 2, 1, ceil_mode=True)
        b, i = F.max_pool2d(x, 2, 1, return_indices=True)
        c = F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)
        return a, b, i, c, F.adaptive_avg_pool2d(x, (3, 2))


def test_pool_module_dynamic_spatial():
    auto = torch.export.Dim.AUTO
    assert_module_lowers(_Pools(), [_r(2, 3, 9, 10)], dynamic_shapes=({0: auto, 2: auto, 3: auto},))


ADAPTIVE = [
    ("aten._adaptive_avg_pool2d", (2, 3, 9, 7), [4, 3]),
    ("aten._adaptive_avg_pool2d", (3, 5, 7), [7, 9]),  # windows overlap (output > input)
    ("aten._adaptive_avg_pool3d", (2, 3, 5, 6, 7), [2, 4, 3]),
    ("aten.adaptive_avg_pool1d", (2, 3, 10), [4]),
]


@pytest.mark.parametrize("op,shape,size", ADAPTIVE)
def test_adaptive_avg_pool(op, shape, size):
    assert_lowers(op, [_special(*shape)], output_size=size)


def test_adaptive_avg_pool_dynamic_and_half():
    assert_lowers("aten._adaptive_avg_pool2d", [_r(2, 3, 9, 7)], output_size=[4, 3], dynamic=True)
    assert_lowers(
        "aten._adaptive_avg_pool2d",
        [_r(2, 3, 9, 7).half()],
        output_size=[4, 3],
        atol=1e-2,
        rtol=1e-2,
    )


@pytest.mark.parametrize("grad,x", [((2, 3, 4, 3), (2, 3, 9, 7)), ((3, 7, 9), (3, 5, 7))])
def test_adaptive_avg_pool2d_backward(grad, x):
    assert_lowers("aten._adaptive_avg_pool2d_backward", [_r(*grad), _r(*x, seed=1)])


def test_adaptive_avg_pool2d_backward_dynamic():
    assert_lowers(
        "aten._adaptive_avg_pool2d_backward", [_r(2, 3, 4, 3), _r(2, 3, 9, 7, seed=1)], dynamic=True
    )


AVG_BACKWARD = [
    (3, 2, 1, False, True, None, False),
    (3, 2, 1, True, False, None, False),
    ((3, 2), (1, 2), (1, 0), True, True, 7, False),
    (3, 2, 1, True, True, None, [[0, 1], [0, 1]]),
]


@pytest.mark.parametrize("k,s,p,ceil,include_pad,divisor,dynamic", AVG_BACKWARD)
def test_avg_pool2d_backward(k, s, p, ceil, include_pad, divisor, dynamic):
    x = _r(2, 3, 9, 8)
    out = F.avg_pool2d(x, k, s, p, ceil, include_pad, divisor)
    pair = lambda v: list(v) if isinstance(v, tuple) else [v, v]  # noqa: E731
    assert_lowers(
        "aten.avg_pool2d_backward",
        [_r(*out.shape, seed=1), x],
        kernel_size=pair(k),
        stride=pair(s),
        padding=pair(p),
        ceil_mode=ceil,
        count_include_pad=include_pad,
        divisor_override=divisor,
        dynamic=dynamic,
    )


MAX_BACKWARD = [
    ((3, 3), (2, 2), (1, 1), (1, 1), False, False),
    ((3, 3), (2, 2), (1, 1), (2, 2), True, False),
    ((2, 2), (1, 1), (0, 0), (1, 1), False, False),  # overlapping windows share maxima
    ((3, 2), (1, 2), (1, 0), (1, 2), True, [[0, 1], [0, 1], [0, 1]]),
]


@pytest.mark.parametrize("k,s,p,d,ceil,dynamic", MAX_BACKWARD)
def test_max_pool2d_with_indices_backward(k, s, p, d, ceil, dynamic):
    x = _r(2, 3, 9, 8)
    x[0, 0, :3, :3] = 1.0  # ties
    out, idx = torch.ops.aten.max_pool2d_with_indices(x, k, s, p, d, ceil)
    assert_lowers(
        "aten.max_pool2d_with_indices_backward",
        [_r(*out.shape, seed=1), x, idx],
        names=["grad_output", "self", "indices"],
        kernel_size=list(k),
        stride=list(s),
        padding=list(p),
        dilation=list(d),
        ceil_mode=ceil,
        dynamic=dynamic,
    )


@pytest.mark.parametrize("rank", [3, 4])
@pytest.mark.parametrize("dynamic", [False, True])
def test_max_pool2d_with_indices_backward_any_indices(rank, dynamic):
    """ATen scatters by the indices alone (torch-mlir's MaxPool2dWithIndicesBackward tests
    pass random ones): indices outside their window, repeated ones (accumulated in output
    order) and -1 (skipped) give eager's gradient."""
    g = torch.Generator().manual_seed(3)
    lead = (2, 4) if rank == 4 else (4,)
    grad = torch.rand(*lead, 7, 6, generator=g)
    idx = torch.randint(0, 16, (*lead, 7, 6), generator=g)
    idx.view(-1)[::5] = -1
    assert_lowers(
        "aten.max_pool2d_with_indices_backward",
        [grad, torch.rand(*lead, 6, 5, generator=g), idx],
        names=["grad_output", "self", "indices"],
        kernel_size=[2, 2],
        stride=[1, 1],
        padding=[1, 1],
        dilation=[1, 1],
        ceil_mode=False,
        dynamic=[list(range(len(lead)))] * 3 if dynamic else False,  # meta checks H, W
    )


OWN_WINDOWS = [  # kernel == stride: the gather (floor mode leaves rows/columns of zeros)
    ((2, 2), (2, 3, 7, 33), False, False),
    ((2, 2), (2, 3, 7, 33), True, False),
    ((3, 2), (2, 3, 9, 8), False, False),
    ((4, 4), (2, 3, 17, 18), True, False),
    ((2, 2), (3, 7, 9), False, False),
    ((2, 2), (2, 3, 33, 17), False, [[0, 1], [0, 1], [0, 1]]),  # meta checks H, W
    ((2, 2), (3, 7, 33), True, [[0], [0], [0]]),
]


@pytest.mark.parametrize("k,shape,ceil,dynamic", OWN_WINDOWS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_max_pool2d_backward_own_windows(k, shape, ceil, dynamic, dtype):
    """Windows that tile the plane: each gradient element reads its window's grad_output when
    the window's index is its position (NaN maxima and ties: the first index, as eager's)."""
    x = _special(*shape).to(dtype)
    x.view(-1)[20:24] = 1.0  # ties
    out, idx = torch.ops.aten.max_pool2d_with_indices(x, k, k, 0, 1, ceil)
    assert_lowers(
        "aten.max_pool2d_with_indices_backward",
        [_r(*out.shape, seed=1, dtype=dtype), x, idx],
        names=["grad_output", "self", "indices"],
        kernel_size=list(k),
        stride=list(k),
        padding=[0, 0],
        dilation=[1, 1],
        ceil_mode=ceil,
        dynamic=dynamic,
    )


@pytest.mark.parametrize("stray", ["none", "outside", "repeated"])
@pytest.mark.parametrize("dynamic", [False, True])
def test_max_pool2d_backward_own_windows_strays(stray, dynamic):
    """2x2/2 windows with indices not from the pool: one outside its window, one repeated
    three times (added in output order), -1s: the scatter runs, as eager's."""
    g = torch.Generator().manual_seed(5)
    x = torch.rand(2, 3, 8, 10, generator=g)
    out, idx = torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2])
    idx = idx.clone()
    idx[0, 1, 0, 0] = -1
    if stray == "outside":
        idx[1, 2, 3, 1] = 0  # window (3, 1) pointing at (0, 0)
    elif stray == "repeated":
        idx[0, 0, 0, 1] = idx[0, 0, 1, 0] = idx[0, 0, 0, 0]
    grad = torch.randn(*out.shape, generator=g) * 1e4
    assert_lowers(
        "aten.max_pool2d_with_indices_backward",
        [grad, x, idx],
        names=["grad_output", "self", "indices"],
        kernel_size=[2, 2],
        stride=[2, 2],
        padding=[0, 0],
        dilation=[1, 1],
        ceil_mode=False,
        dynamic=[[0, 1]] * 3 if dynamic else False,
    )


@pytest.mark.parametrize(
    "k,d,p,s", [([2, 3], [1, 1], [0, 0], [1, 1]), ([3, 3], [2, 1], [1, 2], [2, 1])]
)
def test_col2im(k, d, p, s):
    cols = F.unfold(_r(2, 3, 9, 8), k, d, p, s)
    kw = dict(output_size=[9, 8], kernel_size=k, dilation=d, padding=p, stride=s)
    assert_lowers("aten.col2im", [cols], **kw)
    assert_lowers("aten.col2im", [cols[0]], **kw)
    assert_lowers("aten.col2im", [cols], dynamic=[[0]], **kw)
