"""Lowerings whose memory accesses depend on tensor data stay inside their buffers whatever the
data (offsets, counts and float coordinates out of range), and match eager where eager defines
the answer.

Out-of-range data makes the program's index check raise `IndexError` after the call; the call
itself must still not read past a buffer. Each bad call runs in a child process on inputs that
end at a guard page, so a read one element too far is a segfault, not garbage.
"""

import pytest
import torch
import torch._dynamo  # noqa: F401  (loads triton's LLVM before MLIR's; the reverse aborts)
import torch.nn.functional as F

import aten_mlir
from tests.support.guarded import run_isolated

_PRELUDE = """
import torch
import torch.nn.functional as F
import aten_mlir
from aten_mlir.tests.support.guarded import guarded_copy

B = 1 << 40


def compiled(fn, args, target):
    class M(torch.nn.Module):
        def forward(self, *a):
            return fn(*a)

    return aten_mlir.compile(torch.export.export(M(), args), cache=False, target=target)


def call(c, fn, args):
    # an index out of range: the program's check may raise, the call must not crash
    try:
        got = c(*args)
    except IndexError:
        return
    want = fn(*args)  # no check fired: the data was valid and the answer must be eager's
    torch.testing.assert_close(got, want, equal_nan=True)
"""

_EMBEDDING_BAG = """
w = torch.randn(10, 3)
for mode in ("sum", "mean", "max"):
    for last in (False, True):
        def fn(i, o, mode=mode, last=last):
            return F.embedding_bag(i, w, o, mode=mode, include_last_offset=last)

        good = (torch.tensor([1, 2, 3, 4]), torch.tensor([0, 2, 4] if last else [0, 2]))
        c = compiled(fn, good, TARGET)
        torch.testing.assert_close(c(*good), fn(*good))
        for offsets in ([0, 5], [0, B], [-B, 2], [-1, 2]):
            indices, keep = guarded_copy(good[0])  # indices[4] is on the guard page
            call(c, fn, (indices, torch.tensor(offsets + [4] if last else offsets)))
print("ok")
"""

_MASKED_SCATTER = """
def fn(x, m, v):
    return x.masked_scatter(m, v)

x, m = torch.randn(3, 40), torch.randn(40) > 0
c = compiled(fn, (x, m, torch.randn(2, 3)), TARGET)
for mask in (m, torch.ones(40, dtype=torch.bool)):
    src = torch.randn(2, 3) * 0 + float("nan")  # a NaN read would show in the sum
    source, keep = guarded_copy(src)  # source[6] is on the guard page
    try:
        out = c(x, mask, source)
    except IndexError:
        continue
    torch.testing.assert_close(out, fn(x, mask, src), equal_nan=True)
# a dynamic source length, down to 0
n = torch.export.Dim("n", min=0, max=64)
class M(torch.nn.Module):
    def forward(self, x, m, v):
        return fn(x, m, v)
ep = torch.export.export(M(), (x[0], m, torch.randn(8)), dynamic_shapes=(None, None, {0: n}))
c = aten_mlir.compile(ep, cache=False, target=TARGET)
for length in (0, 1, 7, 40):
    source, keep = guarded_copy(torch.randn(length))
    call(c, fn, (x[0], torch.ones(40, dtype=torch.bool), source))
print("ok")
"""


@pytest.mark.parametrize("target", ["cpu", "triton"])
@pytest.mark.parametrize("case", ["embedding_bag", "masked_scatter"])
def test_out_of_range_data_stays_inside_the_buffers(case, target):
    """Offsets past `indices` (embedding_bag; 1 << 40 segfaulted) and a source shorter than the
    mask's trues (masked_scatter read past the source) never leave the buffers."""
    body = {"embedding_bag": _EMBEDDING_BAG, "masked_scatter": _MASKED_SCATTER}[case]
    env = {"TRITON_INTERPRET": "1"} if target == "triton" else None
    run = run_isolated(_PRELUDE + f"TARGET = {target!r}\n" + body, env=env)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-3000:]


_SPECIAL = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 3e9, -3e9, 1e19, 2.5e9]


def _special_grid(shape, generator):
    """A grid in [-1.2, 1.2] with each special value once in x and once in y."""
    grid = torch.rand(*shape, generator=generator) * 2.4 - 1.2
    flat = grid.view(-1, shape[-1])
    for k, v in enumerate(_SPECIAL):
        flat[2 * k, 0] = v
        flat[2 * k + 1, 1] = v
    return grid


class _GridSample(torch.nn.Module):
    def __init__(self, mode, padding, align_corners):
        super().__init__()
        self.kw = dict(mode=mode, padding_mode=padding, align_corners=align_corners)

    def forward(self, x, grid):
        return F.grid_sample(x, grid, **self.kw)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_2d_non_finite_coordinates(mode, padding, align_corners):
    """NaN, inf and coordinates past the int range pass eager's clip and reflection: border
    and reflection clip NaN to 0 (the vectorised kernel's `clamp_min(Vec(0), x)`); they were
    NaN here."""
    g = torch.Generator().manual_seed(7)
    x = torch.randn(2, 3, 5, 6, generator=g)
    grid = _special_grid((2, 3, 7, 2), g)
    module = _GridSample(mode, padding, align_corners)
    compiled = aten_mlir.compile(torch.export.export(module, (x, grid)), cache=False)
    torch.testing.assert_close(compiled(x, grid), module(x, grid), equal_nan=True)


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_3d_non_finite_coordinates(mode, padding):
    """The 3-D sampler (ATen's scalar kernel: NaN clips to size - 1, then non-finite or huge
    coordinates read nothing)."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(1, 2, 3, 4, 5, generator=g)
    grid = _special_grid((1, 2, 3, 3, 3), g)
    module = _GridSample(mode, padding, False)
    compiled = aten_mlir.compile(torch.export.export(module, (x, grid)), cache=False)
    torch.testing.assert_close(compiled(x, grid), module(x, grid), equal_nan=True)


_NLL_BACKWARD = """
aten = torch.ops.aten
x, t, g = torch.randn(4, 5), torch.tensor([1, 2, 3, 4]), torch.randn(4)
def fn(g, x, t, tw):
    return aten.nll_loss_backward(g, x, t, None, 0, -100, tw)
tw = aten.nll_loss_forward(x, t, None, 0, -100)[1]
c = compiled(fn, (g, x, t, tw), TARGET)
for bad in ([1, B, -B, 4], [5, 0, -1, -100]):
    try:
        c(g, x, torch.tensor(bad), tw)  # no check in the program: the result is not eager's
    except IndexError:
        pass
print("ok")
"""


@pytest.mark.parametrize("target", ["cpu", "triton"])
def test_nll_loss_backward_out_of_range_target(target):
    """nll_loss_backward ran ATen's kernel (no lowering), which writes wherever the target
    points: 1 << 40 segfaulted. Now a clamped scatter."""
    env = {"TRITON_INTERPRET": "1"} if target == "triton" else None
    run = run_isolated(_PRELUDE + f"TARGET = {target!r}\n" + _NLL_BACKWARD, env=env)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-3000:]


class _NllBackward(torch.nn.Module):
    def __init__(self, two_d, reduction, weight, ignore_index):
        super().__init__()
        self.two_d, self.reduction, self.ignore_index = two_d, reduction, ignore_index
        self.weight = weight

    def forward(self, g, x, t, total):
        op = torch.ops.aten.nll_loss2d_backward if self.two_d else torch.ops.aten.nll_loss_backward
        return op(g, x, t, self.weight, self.reduction, self.ignore_index, total)


@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", [0, 1, 2], ids=["none", "mean", "sum"])
@pytest.mark.parametrize("two_d", [False, True], ids=["1d", "2d"])
def test_nll_loss_backward_like_eager(two_d, reduction, weighted, ignore_index):
    """Bit-equal to ATen's kernel, also when every target is ignored (mean: total weight 0,
    the gradient stays 0)."""
    g = torch.Generator().manual_seed(reduction * 4 + weighted * 2 + two_d)
    x = torch.randn(*((3, 5, 2, 2) if two_d else (4, 5)), generator=g)
    t = torch.randint(0, 5, (3, 2, 2) if two_d else (4,), generator=g)
    t.view(-1)[:2] = torch.tensor([ignore_index, 2])
    weight = torch.rand(5, generator=g) if weighted else None
    grad = torch.randn(t.shape if reduction == 0 else (), generator=g)
    forward = torch.ops.aten.nll_loss2d_forward if two_d else torch.ops.aten.nll_loss_forward
    module = _NllBackward(two_d, reduction, weight, ignore_index)
    total = forward(x, t, weight, reduction, ignore_index)[1]
    compiled = aten_mlir.compile(torch.export.export(module, (grad, x, t, total)), cache=False)
    for target in (t, torch.full_like(t, ignore_index)):
        total = forward(x, target, weight, reduction, ignore_index)[1]
        torch.testing.assert_close(
            compiled(grad, x, target, total),
            module(grad, x, target, total),
            equal_nan=True,
            rtol=0,
            atol=0,
        )
