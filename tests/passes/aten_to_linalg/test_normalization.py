"""Layer, group and batch norm lowerings (forward and backward) against eager."""

import pytest
import torch
from torch.export import Dim

import aten_mlir
from tests.support.lowering import assert_lowers, assert_module_lowers

G = torch.Generator().manual_seed(0)


def _randn(*shape):
    return torch.randn(*shape, generator=G)


LN_NAMES = ["input", "weight", "bias"]


@pytest.mark.parametrize("dynamic", [False, [[0, 1], [], []]])
def test_layer_norm(dynamic):
    x, w, b = _randn(3, 4, 5) * 4 + 2, _randn(5), _randn(5)
    assert_lowers(
        "aten.native_layer_norm",
        [x, w, b],
        dynamic=dynamic,
        names=LN_NAMES,
        normalized_shape=[5],
        eps=1e-5,
    )
    assert_lowers(
        "aten.native_layer_norm",
        [x, _randn(4, 5), _randn(4, 5)],
        dynamic=dynamic and [[0], [], []],
        names=LN_NAMES,
        normalized_shape=[4, 5],
        eps=1e-3,
    )


def test_layer_norm_without_affine_and_half():
    x = _randn(2, 6)
    assert_lowers("aten.native_layer_norm", [x], names=["input"], normalized_shape=[6], eps=1e-5)
    # only the output: meta (the IR) and eager disagree on the dtype of half mean/rstd
    h = [_randn(2, 3, 8).half(), _randn(8).half(), _randn(8).half()]

    class HalfLN(torch.nn.Module):
        def forward(self, x, w, b):
            return torch.ops.aten.native_layer_norm(x, [8], w, b, 1e-5)[0]

    assert_module_lowers(HalfLN(), h, atol=2e-3, rtol=2e-3)


def test_group_norm():
    x, c = _randn(2, 6, 4, 5), _randn(6)
    assert_lowers(
        "aten.native_group_norm", [x, c, c], names=LN_NAMES, N=2, C=6, HxW=20, group=3, eps=1e-5
    )
    assert_lowers(
        "aten.native_group_norm",
        [_randn(3, 4)],
        names=["input"],
        N=3,
        C=4,
        HxW=1,
        group=2,
        eps=1e-5,
    )
    assert_lowers(
        "aten.native_group_norm",
        [_randn(2, 4, 3, 2, 2), _randn(4), _randn(4)],
        names=LN_NAMES,
        N=2,
        C=4,
        HxW=12,
        group=4,
        eps=1e-5,
    )


BN_NAMES = ["input", "weight", "bias", "running_mean", "running_var"]


def _bn_inputs(*shape):
    c = shape[1]
    return [_randn(*shape) * 3 + 1, _randn(c), _randn(c), _randn(c), torch.rand(c) + 0.5]


@pytest.mark.parametrize("dynamic", [False, [[0, 2], [], []]])
def test_batch_norm_training(dynamic):
    x, w, b, *_ = _bn_inputs(4, 3, 5, 2)
    assert_lowers(
        "aten._native_batch_norm_legit.no_stats",
        [x, w, b],
        dynamic=dynamic,
        names=BN_NAMES[:3],
        training=True,
        momentum=0.1,
        eps=1e-5,
    )
    assert_lowers(
        "aten._native_batch_norm_legit.no_stats",
        [x[:, :, 0]],
        names=["input"],
        training=True,
        momentum=0.1,
        eps=1e-5,
    )


def _bn_eval_module(op, *args):
    """Only the normalised output: eager CPU returns empty saved statistics, meta (the IR's
    result types) returns per-channel ones."""

    class M(torch.nn.Module):
        def forward(self, x, w, b, rm, rv):
            return op(x, w, b, rm, rv, *args)[0]

    return M()


@pytest.mark.parametrize("dynamic", [False, True])
def test_batch_norm_eval(dynamic):
    inputs = _bn_inputs(4, 3, 5, 2)
    shapes = ({0: Dim("n", min=2), 2: Dim("h", min=2)}, None, None, None, None)
    aten = torch.ops.aten
    for module in (
        _bn_eval_module(aten._native_batch_norm_legit_no_training.default, 0.1, 1e-5),
        _bn_eval_module(aten._native_batch_norm_legit.default, False, 0.1, 1e-5),
    ):
        assert_module_lowers(module, inputs, dynamic_shapes=shapes if dynamic else None)


def test_batch_norm_legit_training_outputs():
    x, w, b, rm, rv = _bn_inputs(4, 3, 6)
    assert_lowers(
        "aten._native_batch_norm_legit",
        [x, w, b, rm, rv],
        names=BN_NAMES,
        training=True,
        momentum=0.1,
        eps=1e-5,
    )


class _Norms(torch.nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.norm = {
            "group": torch.nn.GroupNorm(2, 4),
            "batch": torch.nn.BatchNorm2d(4),
            "layer": torch.nn.LayerNorm(5),
        }[kind]

    def forward(self, x):
        return self.norm(x)


@pytest.mark.parametrize("kind", ["group", "batch", "layer"])
@pytest.mark.parametrize("train", [True, False])
def test_modules_with_dynamic_shapes(kind, train):
    m = _Norms(kind).train(train)
    shapes = {"x": {0: Dim("n", min=2), 2: Dim("h", min=2)}}
    compiled = assert_module_lowers(m, [_randn(3, 4, 6, 5)], dynamic_shapes=shapes, atol=1e-4)
    x = _randn(5, 4, 3, 5)  # other sizes than the example's
    torch.testing.assert_close(compiled(x.clone()), m(x), atol=1e-4, rtol=1e-4)


def test_chained_norms():
    m = torch.nn.Sequential(
        torch.nn.GroupNorm(2, 4), torch.nn.BatchNorm2d(4), torch.nn.LayerNorm(5)
    ).eval()
    assert_module_lowers(m, [_randn(3, 4, 6, 5)], atol=1e-4)


LNB_NAMES = ["grad_out", "input", "mean", "rstd", "weight", "bias"]


@pytest.mark.parametrize("dynamic", [False, True])
def test_layer_norm_backward(dynamic):
    x, g, w = _randn(3, 4, 5), _randn(3, 4, 5), _randn(5)
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, [5], w, w, 1e-5)
    assert_lowers(
        "aten.native_layer_norm_backward",
        [g, x, mean, rstd, w, w],
        dynamic=dynamic,
        names=LNB_NAMES,
        normalized_shape=[5],
        output_mask=[True, True, True],
        atol=1e-4,
        rtol=1e-4,
    )
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, [4, 5], None, None, 1e-5)
    assert_lowers(
        "aten.native_layer_norm_backward",
        [g, x, mean, rstd, _randn(4, 5), _randn(4, 5)],
        names=LNB_NAMES,
        normalized_shape=[4, 5],
        output_mask=[True, True, True],
        atol=1e-4,
        rtol=1e-4,
    )


def test_group_norm_backward():
    x, g, c = _randn(2, 6, 4, 5), _randn(2, 6, 4, 5), _randn(6)
    _, mean, rstd = torch.ops.aten.native_group_norm(x, c, c, 2, 6, 20, 3, 1e-5)
    names = ["grad_out", "input", "mean", "rstd", "weight"]
    assert_lowers(
        "aten.native_group_norm_backward",
        [g, x, mean, rstd, c],
        names=names,
        N=2,
        C=6,
        HxW=20,
        group=3,
        output_mask=[True, True, True],
        atol=1e-4,
        rtol=1e-4,
    )


def test_a_variance_past_the_accumulator_gives_nan_as_eager():
    # a bf16 row holding 1e30: its squares overflow the f32 sums (eager's too); the row is NaN,
    # not the bias alone (1 / sqrt(inf) = 0)
    model = torch.nn.LayerNorm(8).bfloat16().eval()
    with torch.no_grad():
        model.bias.copy_(torch.arange(8.0))
    x = torch.randn(2, 8).bfloat16()
    x[1, 3] = -1e30
    compiled = aten_mlir.compile(torch.export.export(model, (x,)), target="cpu", cache=False)
    ours, eager = compiled(x), model(x)
    assert torch.equal(ours[0], eager[0]) and eager[1].isnan().all() and ours[1].isnan().all()
