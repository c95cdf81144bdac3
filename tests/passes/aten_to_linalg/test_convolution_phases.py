"""Strided transposed convolutions lowered phase by phase (`convolution_phases.py`): a seeded
sweep of 1d/2d/3d shapes, strides, dilations, paddings beyond the kernel's reach, output
paddings, groups, kernels smaller than the stride (phases no tap reaches keep the bias), with
and without bias, against eager; bf16; a dynamic batch and image from one compile."""

from __future__ import annotations

import copy
import random

import pytest
import torch
from torch.export import Dim, export

import aten_mlir

_CONV = {1: torch.nn.ConvTranspose1d, 2: torch.nn.ConvTranspose2d, 3: torch.nn.ConvTranspose3d}


def _random_config(rng: random.Random) -> dict:
    n = rng.choice([1, 2, 2, 3])
    groups = rng.choice([1, 1, 2])
    cfg = dict(
        n=n,
        groups=groups,
        c_in=groups * rng.randint(1, 3),
        c_out=groups * rng.randint(1, 3),
        kernel=[rng.randint(1, 4 if n == 3 else 5) for _ in range(n)],
        stride=[rng.randint(1, 4) for _ in range(n)],
        dilation=[rng.randint(1, 3) for _ in range(n)],
        bias=rng.random() < 0.5,
        size=[rng.randint(1, 6 if n == 3 else 9) for _ in range(n)],
        batch=rng.randint(1, 3),
    )
    if all(s == 1 for s in cfg["stride"]):
        cfg["stride"][0] = 2
    cfg["padding"] = [
        rng.randint(0, d * (k - 1) + 1) for k, d in zip(cfg["kernel"], cfg["dilation"])
    ]
    cfg["output_padding"] = [
        rng.randint(0, max(s, d) - 1) for s, d in zip(cfg["stride"], cfg["dilation"])
    ]
    return cfg


def _module(cfg) -> torch.nn.Module:
    torch.manual_seed(0)
    return _CONV[cfg["n"]](
        cfg["c_in"], cfg["c_out"], cfg["kernel"], cfg["stride"], cfg["padding"],
        cfg["output_padding"], cfg["groups"], cfg["bias"], cfg["dilation"],
    ).eval()  # fmt: skip


def _valid(cfg) -> bool:
    out = [
        (i - 1) * s - 2 * p + d * (k - 1) + op + 1
        for i, s, p, d, k, op in zip(
            cfg["size"],
            cfg["stride"],
            cfg["padding"],
            cfg["dilation"],
            cfg["kernel"],
            cfg["output_padding"],
        )  # fmt: skip
    ]
    return all(o > 0 for o in out)


def _configs(count: int, seed: int = 7) -> list[dict]:
    rng, found = random.Random(seed), []
    while len(found) < count:
        cfg = _random_config(rng)
        if _valid(cfg):
            found.append(cfg)
    return found


@pytest.mark.parametrize("cfg", _configs(24), ids=lambda c: "x".join(map(str, c["stride"])))
def test_strided_transposed_convolution_matches_eager(cfg):
    conv = _module(cfg)
    x = torch.randn(cfg["batch"], cfg["c_in"], *cfg["size"])
    compiled = aten_mlir.compile(export(conv, (x,)), cache=False)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), conv(x), rtol=1e-4, atol=1e-4)


def test_bf16(tmp_path):
    conv = torch.nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1).bfloat16()
    x = torch.randn(2, 8, 9, 7, dtype=torch.bfloat16)
    compiled = aten_mlir.compile(export(conv.eval(), (x,)), cache=False)
    with torch.no_grad():  # a float copy: .float() would convert the exported parameters too
        want = copy.deepcopy(conv).float()(x.float())
    torch.testing.assert_close(compiled(x).float(), want, rtol=3e-2, atol=3e-2)


def test_dynamic_batch_and_image():
    conv = torch.nn.ConvTranspose2d(4, 5, 3, stride=2, padding=1, dilation=2).eval()
    x = torch.randn(2, 4, 6, 6)
    batch, h, w = Dim("batch", max=16), Dim("h", min=2, max=40), Dim("w", min=2, max=40)
    ep = export(conv, (x,), dynamic_shapes=({0: batch, 2: h, 3: w},))
    compiled = aten_mlir.compile(ep, cache=False)
    for shape in ((1, 4, 2, 3), (3, 4, 7, 11), (5, 4, 20, 13)):
        x = torch.randn(shape)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), conv(x), rtol=1e-4, atol=1e-4)


# Phases interleaved into their rows by one copy per row phase (`_interleave`): last-dim strides
# 2 and 4 over widths they divide, row strides 1-3, 1d/2d/3d, groups, output padding (a width the
# stride divides only with it), and widths it does not divide (each phase placed on its own).
_WOVEN = [
    # (n, c_in, c_out, kernel, stride, padding, output_padding, groups, size)
    (2, 3, 5, (3, 3), (2, 2), (1, 1), (1, 1), 1, (5, 8)),
    (2, 4, 6, (3, 4), (3, 4), (1, 0), (0, 0), 2, (4, 5)),
    (2, 3, 2, (2, 2), (1, 2), (0, 0), (0, 0), 1, (3, 7)),
    (1, 2, 3, (5,), (4,), (2,), (3,), 1, (9,)),
    (3, 2, 3, (3, 3, 3), (2, 2, 2), (1, 1, 1), (1, 0, 1), 1, (3, 2, 4)),
    (2, 3, 4, (3, 3), (2, 2), (1, 1), (0, 0), 1, (6, 6)),  # width 11: not interleaved
]


@pytest.mark.parametrize("case", _WOVEN, ids=lambda c: f"{c[0]}d-s{'x'.join(map(str, c[4]))}")
def test_interleaved_phases_match_eager(case, tmp_path):
    n, c_in, c_out, kernel, stride, padding, output_padding, groups, size = case
    torch.manual_seed(0)
    conv = _CONV[n](c_in, c_out, kernel, stride, padding, output_padding, groups).eval()
    x = torch.randn(2, c_in, *size)
    compiled = aten_mlir.compile(export(conv, (x,)), cache=False, dump_dir=tmp_path)
    with torch.no_grad():
        want = conv(x)
        torch.testing.assert_close(compiled(x), want, rtol=1e-4, atol=1e-4)
    woven = want.shape[-1] % stride[-1] == 0
    ir = (tmp_path / "02-aten-to-linalg.mlir").read_text()
    assert (f"floordiv {stride[-1]})>" in ir) == woven


def test_interleaved_grad_input_of_strided_convolution():
    # train_cnn's stride-2 grad_input, a ? batch; the phases' rows at odd batch sizes
    class Grad(torch.nn.Module):
        def forward(self, go, w):
            return torch.ops.aten.convolution_backward(
                go, torch.empty(go.shape[0], 5, 10, 12), w, [0], [2, 2], [1, 1], [1, 1],
                False, [0, 0], 1, [True, False, False],
            )[0]  # fmt: skip

    w = torch.randn(6, 5, 3, 3)
    go = torch.randn(3, 6, 5, 6)
    ep = export(Grad(), (go, w), dynamic_shapes=({0: Dim("n", max=64)}, None))
    compiled = aten_mlir.compile(ep, cache=False)
    for batch in (1, 7, 33):
        go = torch.randn(batch, 6, 5, 6)
        torch.testing.assert_close(compiled(go, w), Grad()(go, w), rtol=1e-4, atol=1e-4)


def test_interleaved_bf16():
    conv = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1).bfloat16()
    x = torch.randn(2, 4, 5, 6, dtype=torch.bfloat16)
    compiled = aten_mlir.compile(export(conv.eval(), (x,)), cache=False)
    with torch.no_grad():
        want = copy.deepcopy(conv).float()(x.float())
    torch.testing.assert_close(compiled(x).float(), want, rtol=3e-2, atol=3e-2)
