"""The grid samplers' backward ops compile with no eager fallback and match eager
(`passes/decompose/upsample_grid_backward.py`): called directly through `torch.export` for every
interpolation mode, padding mode and align_corners (static, and with `Dim`s on the batch and
the grid's output points), with grid points outside [-1, 1], exactly on the borders and on pixel
centres; and in a training step through `F.grid_sample`."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import aten_mlir
from tests.support.dynamo import check_training_matches_eager

aten = torch.ops.aten

MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


class Backwards(torch.nn.Module):
    """Several backward calls in one program (one compile): call i takes arguments
    3 i .. 3 i + 2 (grad_output, input, grid) and returns both gradients."""

    def __init__(self, calls):
        super().__init__()
        self.calls = [(MODES[m], PADDINGS[p], align) for m, p, align in calls]

    def forward(self, *args):
        out = []
        for i, call in enumerate(self.calls):
            g, x, grid = args[3 * i : 3 * i + 3]
            op = aten.grid_sampler_2d_backward if x.dim() == 4 else aten.grid_sampler_3d_backward
            out.extend(op(g, x, grid, *call, [True, True]))
        return tuple(out)


def _grid(n, points, spatial, align, elem):
    """Uniform in [-1.6, 1.6], then the first points set to borders (+-1), far outside (several
    reflections), the centre, and pixel centres of every plane dim (integral coordinates)."""
    k = len(spatial)
    grid = torch.rand(n, *points, k, dtype=elem) * 3.2 - 1.6
    special = [-1.0, 1.0, 0.0, -3.0, 2.5, 7.25, -5.5, 1.0 + 1e-7]
    for size in spatial:
        for i in (0, size // 2, size - 1):
            special.append(2 * i / (size - 1) - 1 if align and size > 1 else (2 * i + 1) / size - 1)
    flat = grid.view(n, -1, k)
    count = min(flat.shape[1], len(special))
    for d in range(k):  # the specials in both coordinates, shifted so pairs differ
        values = [special[(j + 3 * d) % len(special)] for j in range(count)]
        flat[:, :count, d] = torch.tensor(values, dtype=elem)
    return grid


def _inputs(n, channels, spatial, points, align, elem):
    x = torch.randn(n, channels, *spatial, dtype=elem)
    g = torch.randn(n, channels, *points, dtype=elem)
    return g, x, _grid(n, points, spatial, align, elem)


def _close(got, want, elem):
    tol = dict(rtol=1e-4, atol=1e-4) if elem == torch.float32 else dict(rtol=1e-9, atol=1e-9)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.shape == b.shape
        torch.testing.assert_close(a, b, **tol)


def _check_static(calls, planes, points):
    """Every call at every plane size, compiled as one program, against eager."""
    torch.manual_seed(0)
    cases = [(call, plane) for call in calls for plane in planes]
    module = Backwards([call for call, _ in cases])
    args = [
        t
        for (_, _, align), plane in cases
        for t in _inputs(2, 3, plane, points, align, torch.float32)
    ]
    program = aten_mlir.compile(torch.export.export(module, tuple(args)))
    assert program.fallbacks == []
    _close(program(*args), module(*args), torch.float32)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding", PADDINGS)
def test_grid_sampler_2d_backward_matches_eager(mode, padding):
    """Both align_corners, on a 7x33 plane and a 1x7 one (a reflection span of 0 when aligned;
    bicubic, 16 taps and slow to compile, only there)."""
    planes = [(7, 33)] if mode == "bicubic" and padding != "reflection" else [(7, 33), (1, 7)]
    _check_static([(mode, padding, False), (mode, padding, True)], planes, (4, 9))


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sampler_3d_backward_matches_eager(mode):
    calls = [(mode, p, align) for p in PADDINGS for align in (False, True)]
    _check_static(calls, [(3, 1, 7)], (2, 3, 5))


DYNAMIC = [
    (2, "bilinear", "zeros", False, torch.float32),
    (2, "bilinear", "reflection", True, torch.float64),
    (2, "nearest", "border", False, torch.float32),
    (2, "bicubic", "reflection", False, torch.float32),
    (2, "bicubic", "border", True, torch.float64),
    (3, "bilinear", "border", False, torch.float32),
]


@pytest.mark.parametrize(
    "k,mode,padding,align,elem",
    DYNAMIC,
    ids=[f"{k}d-{m}-{p}-{a}-{str(e)[6:]}" for k, m, p, a, e in DYNAMIC],
)
def test_backward_with_dynamic_batch_and_points(k, mode, padding, align, elem):
    torch.manual_seed(1)
    module = Backwards([(mode, padding, align)])
    spatial = (7, 33) if k == 2 else (3, 5, 7)
    n, p = Dim("n", min=1, max=64), Dim("p", min=1, max=64)
    point_dims = {1 + d: p if d == k - 1 else None for d in range(k)}  # the innermost grid dim
    shapes = (
        {0: n, **{d + 1: s for d, s in point_dims.items()}},
        {0: n},
        {0: n, **point_dims},
    )
    args = _inputs(2, 3, spatial, (4,) * (k - 1) + (5,), align, elem)
    program = aten_mlir.compile(torch.export.export(module, args, dynamic_shapes=(shapes,)))
    assert program.fallbacks == []
    for batch, last in [(2, 5), (1, 1), (3, 33), (7, 7)]:
        args = _inputs(batch, 3, spatial, (4,) * (k - 1) + (last,), align, elem)
        _close(program(*args), module(*args), elem)


class Warp(torch.nn.Module):
    """A training model whose backward holds both samplers' backward ops: grids predicted from
    the input, sampling convolution features (both gradients flow)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1)
        self.where = torch.nn.Linear(2, 5 * 6 * 2)
        self.where3 = torch.nn.Linear(2, 2 * 3 * 4 * 3)
        self.head = torch.nn.Linear(3 * 5 * 6 * 3 + 3 * 2 * 3 * 4, 4)

    def forward(self, x):
        n = x.shape[0]
        h = torch.tanh(self.conv(x))
        grid = 1.3 * torch.tanh(self.where(x.mean((2, 3)))).view(n, 5, 6, 2)
        a = F.grid_sample(h, grid, "bilinear", "border", align_corners=False)
        b = F.grid_sample(h, grid, "bicubic", "reflection", align_corners=True)
        c = F.grid_sample(h, grid, "nearest", "zeros", align_corners=False)
        grid3 = 1.3 * torch.tanh(self.where3(x.mean((2, 3)))).view(n, 2, 3, 4, 3)
        volume = h.unsqueeze(2).expand(-1, -1, 3, -1, -1) * torch.arange(1.0, 4.0).view(3, 1, 1)
        d = F.grid_sample(volume, grid3, "bilinear", "zeros", align_corners=False)
        return self.head(torch.cat([t.flatten(1) for t in (a, b, c, d)], 1))


def test_a_training_step_through_grid_sample_has_no_fallback():
    torch.manual_seed(0)
    model = Warp()
    batches = [(torch.randn(3, 2, 7, 9), torch.randint(0, 4, (3,))) for _ in range(3)]
    check_training_matches_eager(model, batches, F.cross_entropy)


class SpatialTransformer(torch.nn.Module):
    """The usual use: an affine grid predicted from the image samples the raw image, which
    needs no gradient (grid_sampler_2d_backward's grad_input masked out); a fixed grid samples
    features that do (its grad_grid masked out, when torch leaves it out)."""

    def __init__(self, dims: int):
        super().__init__()
        self.dims = dims
        self.loc = torch.nn.Linear(2, dims * (dims + 1))
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1)
        self.head = torch.nn.Linear(3 * 6 * 5 + 2 * 6 * 5 * (3 if dims == 3 else 1), 4)
        self.fixed = torch.nn.Parameter(torch.rand(1, 6, 5, 2) * 2.4 - 1.2, requires_grad=False)

    def forward(self, x):
        n = x.shape[0]
        theta = self.loc(x.mean((2, 3))).view(n, self.dims, self.dims + 1)
        if self.dims == 2:
            grid = F.affine_grid(theta, [n, 2, 6, 5], align_corners=False)
            warped = F.grid_sample(x, grid, align_corners=False)
        else:
            volume = x.unsqueeze(2).expand(-1, -1, 3, -1, -1)
            grid = F.affine_grid(theta, [n, 2, 3, 6, 5], align_corners=False)
            warped = F.grid_sample(volume, grid, align_corners=False)
        fixed = self.fixed.expand(n, -1, -1, -1)
        feats = F.grid_sample(torch.tanh(self.conv(x)), fixed, "bilinear", "border")
        return self.head(torch.cat([warped.flatten(1), feats.flatten(1)], 1))


@pytest.mark.parametrize("dims", [2, 3])
def test_sampling_an_input_without_grad_has_no_fallback(dims):
    torch.manual_seed(0)
    model = SpatialTransformer(dims)
    batches = [(torch.randn(3, 2, 7, 9), torch.randint(0, 4, (3,))) for _ in range(3)]
    check_training_matches_eager(model, batches, F.cross_entropy)
