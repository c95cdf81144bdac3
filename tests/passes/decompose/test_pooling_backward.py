"""Backward ops of adaptive max pools, 3-d max pools and replication pads compile with no eager
fallback and match eager (`passes/decompose/pooling_backward.py`): called directly through
`torch.export` (static and with a `Dim`), and as AOTAutograd leaves them in a training step."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import aten_mlir
from tests.support.dynamo import check_training_matches_eager

aten = torch.ops.aten


class PoolBackward(torch.nn.Module):
    """grad_input of a max pool with indices, from the forward's own indices."""

    def __init__(self, pool, backward):
        super().__init__()
        self.pool, self.backward = pool, backward

    def forward(self, g, x):
        _, indices = self.pool(x)
        return self.backward(g, x, indices)


def _adaptive2(x):
    return aten.adaptive_max_pool2d(x, [3, 4])


def _adaptive3(x):
    return aten.adaptive_max_pool3d(x, [2, 3, 2])


def _max3(x):
    return aten.max_pool3d_with_indices(x, [3, 2, 3], [2, 1, 2], [1, 0, 1], [1, 2, 1], True)


POOLS = {
    "adaptive_max_pool2d": (
        _adaptive2,
        lambda g, x, i: aten.adaptive_max_pool2d_backward(g, x, i),
        (2, 3, 7, 9),
    ),
    "adaptive_max_pool2d_3d_input": (
        _adaptive2,
        lambda g, x, i: aten.adaptive_max_pool2d_backward(g, x, i),
        (3, 8, 6),
    ),
    "adaptive_max_pool3d": (
        _adaptive3,
        lambda g, x, i: aten.adaptive_max_pool3d_backward(g, x, i),
        (2, 2, 5, 7, 4),
    ),
    "max_pool3d": (
        _max3,
        lambda g, x, i: aten.max_pool3d_with_indices_backward(
            g, x, [3, 2, 3], [2, 1, 2], [1, 0, 1], [1, 2, 1], True, i
        ),
        (2, 3, 7, 8, 9),
    ),
}


def _ties(shape):
    """Values with repeats, so that windows hold equal maxima (the first one wins in ATen)."""
    torch.manual_seed(0)
    return torch.randint(-3, 4, shape).float()


@pytest.mark.parametrize("name", POOLS)
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dim"])
def test_max_pool_backward_scatters_at_the_forward_indices(name, dynamic):
    pool, backward, shape = POOLS[name]
    module = PoolBackward(pool, backward)
    x = _ties(shape)
    g = torch.randn(pool(x)[0].shape)
    shapes = None
    if dynamic:  # the batch (or channel) dim: window sizes stay static
        n = Dim("n", min=1, max=64)
        shapes = ({0: n}, {0: n})
    program = aten_mlir.compile(torch.export.export(module, (g, x), dynamic_shapes=shapes))
    assert program.fallbacks == []
    for lead in [shape[0], 1, 5] if dynamic else [shape[0]]:
        x = _ties((lead, *shape[1:]))
        g = torch.randn(pool(x)[0].shape)
        torch.testing.assert_close(program(g, x), module(g, x), rtol=1e-6, atol=1e-6)


class PadBackward(torch.nn.Module):
    def __init__(self, pad):
        super().__init__()
        self.pad = pad

    def forward(self, g, x):
        op = getattr(aten, f"replication_pad{len(self.pad) // 2}d_backward")
        return op(g, x, self.pad)


PADS = {
    "1d": ((2, 3), (2, 3, 5)),
    "1d_width_1": ((2, 3), (2, 3, 1)),
    "1d_left_only": ((4, 0), (3, 6)),
    "2d": ((1, 2, 3, 0), (2, 3, 5, 6)),
    "2d_unbatched": ((1, 2, 3, 1), (3, 4, 5)),
    "2d_no_pad": ((0, 0, 0, 0), (2, 3, 4)),
    "3d": ((1, 2, 0, 1, 2, 2), (1, 2, 3, 4, 5)),
    # negative pads crop (OpInfo's nn.functional.pad replicate_negative samples)
    "1d_crop_left": ((-4, 5), (2, 3, 6)),
    "2d_crop_right": ((0, 0, 2, -4), (2, 2, 6, 4)),
    "2d_crop_both": ((-1, -2, 1, -1), (1, 2, 5, 7)),
    "3d_crop": ((1, -1, -2, 0, 0, 2), (1, 2, 3, 4, 5)),
}


@pytest.mark.parametrize("name", PADS)
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dim"])
def test_replication_pad_backward_adds_the_pads_at_the_borders(name, dynamic):
    pad, shape = PADS[name]
    module = PadBackward(list(pad))

    def make(last):
        x = torch.randn(*shape[:-1], last)
        g = torch.randn(F.pad(x, pad, mode="replicate").shape if any(pad) else x.shape)
        return g, x

    shapes = None
    crop = max(-pad[0], 0) + max(-pad[1], 0)  # the last dim keeps at least one element
    if dynamic:  # the padded last dim itself: borders at a runtime position
        w = Dim("w", min=crop + 1, max=64)
        wide = w + pad[0] + pad[1] if pad[0] + pad[1] else w  # export refuses `w + 0`
        shapes = ({len(shape) - 1: wide}, {len(shape) - 1: w})
    g, x = make(max(shape[-1], crop + 2) if dynamic else shape[-1])  # export specializes 1
    program = aten_mlir.compile(torch.export.export(module, (g, x), dynamic_shapes=shapes))
    assert program.fallbacks == []
    for last in [shape[-1], crop + 1, crop + 7] if dynamic else [shape[-1]]:
        g, x = make(last)
        want = module(g, x)
        got = program(g, x)
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


class PoolsAndPads(torch.nn.Module):
    """A training model whose backward holds every op above."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 4, 3)
        self.conv3 = torch.nn.Conv3d(1, 2, 2)
        self.head = torch.nn.Linear(4 * 6 + 4 * 3 + 2 * 2 * 2 * 2, 3)

    def forward(self, x):
        h = self.conv(F.pad(x, (2, 1, 1, 2), mode="replicate"))
        a = F.adaptive_max_pool2d(h, (2, 3)).flatten(1)
        b = F.adaptive_max_pool1d(F.pad(h.mean(2), (1, 1), mode="replicate"), 3).flatten(1)
        v = self.conv3(F.pad(x[:, :1, None].expand(-1, -1, 4, -1, -1), (1,) * 6, "replicate"))
        c = F.adaptive_max_pool3d(F.max_pool3d(v, 2, 1, ceil_mode=True), 2).flatten(1)
        return self.head(torch.cat([a, b, c], 1))


def test_a_training_step_through_them_has_no_fallback():
    torch.manual_seed(0)
    model = PoolsAndPads()
    batches = [(torch.randn(3, 2, 9, 8), torch.randint(0, 3, (3,))) for _ in range(4)]
    check_training_matches_eager(model, batches, F.cross_entropy)
