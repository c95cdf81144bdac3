"""aten.convolution / convolution_backward lowerings (linalg named convs) against eager."""

import pytest
import torch

from tests.support.lowering import assert_lowers, assert_module_lowers

TOL = dict(atol=1e-4, rtol=1e-4)


def _r(*shape, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def _conv_kwargs(n, stride=1, padding=0, dilation=1, transposed=False, output_padding=0, groups=1):
    return dict(
        stride=[stride] * n,
        padding=[padding] * n,
        dilation=[dilation] * n,
        transposed=transposed,
        output_padding=[output_padding] * n,
        groups=groups,
    )


CONVS = [
    # (input, weight, bias?, kwargs)
    ((2, 3, 8, 8), (4, 3, 3, 3), True, dict()),
    ((2, 3, 9, 8), (4, 3, 3, 2), False, dict(stride=2, padding=1, dilation=2)),
    ((2, 4, 8, 8), (6, 2, 3, 3), True, dict(groups=2, padding=1)),
    ((2, 4, 9), (6, 2, 3), True, dict(groups=2, stride=2, padding=1)),
    ((2, 4, 9), (6, 4, 3), False, dict(stride=2, padding=2, dilation=3)),
    ((1, 4, 5, 5, 5), (6, 4, 3, 3, 3), True, dict(padding=1)),
    ((1, 4, 5, 4, 5), (6, 2, 3, 2, 3), True, dict(padding=1, groups=2, stride=2)),
    ((2, 4, 8, 8), (4, 3, 3, 3), True, dict(transposed=True)),
    (
        (2, 4, 7, 8),
        (4, 3, 3, 3),
        True,
        dict(transposed=True, stride=2, padding=1, output_padding=1),
    ),
    ((2, 4, 8, 8), (4, 3, 3, 3), True, dict(transposed=True, stride=2, padding=3, groups=2)),
    (
        (2, 4, 7),
        (4, 3, 2),
        True,
        dict(transposed=True, stride=3, padding=1, dilation=2, groups=2, output_padding=1),
    ),
    ((1, 2, 4, 3, 4), (2, 3, 2, 2, 2), False, dict(transposed=True, stride=2)),
]


def _check_conv(x_shape, w_shape, bias, kw, dynamic=False, dtype=torch.float32, **tol):
    n = len(w_shape) - 2
    x, w = _r(*x_shape, dtype=dtype), _r(*w_shape, seed=1, dtype=dtype)
    tensors, names = [x, w], ["input", "weight"]
    extra = {}
    if bias:
        out_channels = w_shape[1] * kw.get("groups", 1) if kw.get("transposed") else w_shape[0]
        tensors.append(_r(out_channels, seed=2, dtype=dtype))
        names.append("bias")
    else:
        extra["bias"] = None
    assert_lowers(
        "aten.convolution",
        tensors,
        names=names,
        dynamic=dynamic,
        **{**TOL, **tol},
        **_conv_kwargs(n, **kw),
        **extra,
    )


@pytest.mark.parametrize("case", range(len(CONVS)))
def test_convolution(case):
    _check_conv(*CONVS[case])


def test_convolution_dynamic_batch_and_channels():
    _check_conv(
        (2, 3, 8, 8), (4, 3, 3, 3), True, dict(stride=2, padding=1), dynamic=[[0, 1], [1], []]
    )
    _check_conv(
        (2, 4, 7),
        (4, 3, 2),
        True,
        dict(transposed=True, stride=3, padding=1, dilation=2, groups=2, output_padding=1),
        dynamic=[[0, 2], [], []],
    )


def test_convolution_nan_and_reduced_float():
    x = _r(1, 2, 5, 5)
    x[0, 0, 2, 2] = float("nan")
    x[0, 1, 0, 0] = float("inf")
    assert_lowers(
        "aten.convolution",
        [x, _r(3, 2, 3, 3)],
        names=["input", "weight"],
        bias=None,
        **_conv_kwargs(2, padding=1),
    )
    _check_conv(
        (2, 3, 8, 8), (4, 3, 3, 3), True, dict(padding=1), dtype=torch.float16, atol=1e-2, rtol=1e-2
    )


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8])
def test_integer_convolution_wraps_like_eager(dtype):
    # int8 sums overflow: eager wraps them, and so must the lowered accumulation
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-60, 60, (2, 4, 7, 7), generator=g).to(dtype)
    w = torch.randint(-60, 60, (6, 2, 3, 3), generator=g).to(dtype)
    b = torch.randint(-5, 5, (6,), generator=g).to(dtype)
    assert_lowers(
        "aten.convolution",
        [x, w, b],
        names=["input", "weight", "bias"],
        atol=0,
        rtol=0,
        **_conv_kwargs(2, stride=2, padding=1, groups=2),
    )
    assert_lowers(  # 1-d grouped: a linalg.generic of its own
        "aten.convolution",
        [x[:, :, 0], w[:, :, 0], b],
        names=["input", "weight", "bias"],
        atol=0,
        rtol=0,
        **_conv_kwargs(1, stride=2, padding=1, groups=2),
    )


# 1x1 stride-1 convs of one image over >= 512 pixels are lowered as linalg.matmul: odd channel
# and pixel counts, padding (the product runs over the padded image), dilation, no bias
POINTWISE = [
    ((1, 7, 23, 29), (5, 7, 1, 1), True, dict()),
    ((1, 3, 21, 25), (9, 3, 1, 1), False, dict(padding=1, dilation=3)),
    ((1, 33, 32, 17), (17, 33, 1, 1), True, dict()),
    ((1, 4, 24, 24), (4, 6, 1, 1), True, dict(transposed=True)),
    # transposed with padding: the cropped input is longer than the output (keeps the conv)
    ((1, 4, 26, 27), (4, 6, 1, 1), False, dict(transposed=True, padding=1)),
    ((1, 4, 23, 25), (4, 6, 1, 1), True, dict(transposed=True, stride=2, output_padding=1)),
]


@pytest.mark.parametrize("case", range(len(POINTWISE)))
def test_pointwise_conv_as_matmul(case):
    _check_conv(*POINTWISE[case])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.int32])
def test_pointwise_conv_as_matmul_dtypes(dtype):
    if dtype.is_floating_point:
        _check_conv((1, 6, 24, 24), (8, 6, 1, 1), True, dict(), dtype=dtype, atol=2e-2, rtol=2e-2)
        return
    g = torch.Generator().manual_seed(4)
    x = torch.randint(-50, 50, (1, 6, 24, 24), generator=g).to(dtype)
    w = torch.randint(-50, 50, (8, 6, 1, 1), generator=g).to(dtype)
    assert_lowers(
        "aten.convolution", [x, w], names=["input", "weight"], atol=0, rtol=0, bias=None,
        **_conv_kwargs(2),
    )  # fmt: skip


class _Pointwise(torch.nn.Module):
    """Conv + BN + ReLU around a 1x1 conv (its producer and consumer fuse with a product)."""

    def __init__(self, c=12, f=20):
        super().__init__()
        self.pre = torch.nn.Conv2d(3, c, 3, padding=1)
        self.conv = torch.nn.Conv2d(c, f, 1, bias=False)
        self.bn = torch.nn.BatchNorm2d(f).eval()

    def forward(self, x):
        return torch.relu(self.bn(self.conv(torch.relu(self.pre(x)))))


def test_pointwise_conv_module():
    torch.manual_seed(0)
    net = _Pointwise().eval()
    with torch.no_grad():
        assert_module_lowers(net, [torch.randn(1, 3, 27, 31)], atol=1e-4, rtol=1e-4)
        # a `?` batch keeps the named conv (exported at 2 and 7: torch specializes 1)
        batch = torch.export.Dim("batch", min=1, max=64)
        for n in (2, 7):
            assert_module_lowers(
                net, [torch.randn(n, 3, 27, 31)], ({0: batch},), atol=1e-4, rtol=1e-4
            )


class _Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.up = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)

    def forward(self, x):
        return self.up(self.conv(x))


def test_module_dynamic_spatial():
    auto = torch.export.Dim.AUTO
    assert_module_lowers(
        _Net(), [_r(2, 3, 9, 10)], dynamic_shapes=({0: auto, 2: auto, 3: auto},), **TOL
    )


BACKWARDS = [
    ((2, 3, 8, 8), (4, 3, 3, 3), dict()),
    ((2, 3, 9, 8), (4, 3, 3, 3), dict(stride=2, padding=1, dilation=2)),
    ((2, 4, 9, 8), (6, 2, 3, 3), dict(stride=2, padding=1, groups=2)),
    ((2, 4, 9), (6, 2, 3), dict(stride=2, padding=2, groups=2, dilation=2)),
    ((1, 2, 5, 6, 5), (3, 2, 3, 3, 2), dict(stride=2, padding=1)),
    ((2, 4, 8, 8), (4, 3, 3, 3), dict(transposed=True, stride=2, padding=1, output_padding=1)),
    (
        (2, 4, 7),
        (4, 3, 2),
        dict(transposed=True, stride=3, padding=1, dilation=2, groups=2, output_padding=1),
    ),
]


@pytest.mark.parametrize("case", range(len(BACKWARDS)))
def test_convolution_backward(case):
    x_shape, w_shape, kw = BACKWARDS[case]
    n = len(w_shape) - 2
    kwargs = _conv_kwargs(n, **kw)
    x, w = _r(*x_shape), _r(*w_shape, seed=1)
    out = torch.ops.aten.convolution(x, w, None, **kwargs)
    go = _r(*out.shape, seed=2)
    assert_lowers(
        "aten.convolution_backward",
        [go, x, w],
        bias_sizes=[out.shape[1]],
        output_mask=[True, True, True],
        **TOL,
        **kwargs,
    )


def test_convolution_backward_dynamic_batch():
    kwargs = _conv_kwargs(2, stride=2, padding=1)
    x, w = _r(2, 3, 9, 8), _r(4, 3, 3, 3, seed=1)
    go = _r(*torch.ops.aten.convolution(x, w, None, **kwargs).shape, seed=2)
    assert_lowers(
        "aten.convolution_backward",
        [go, x, w],
        bias_sizes=[4],
        output_mask=[True, True, True],
        dynamic=[[0], [0], []],
        **TOL,
        **kwargs,
    )
