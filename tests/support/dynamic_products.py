"""Products with dynamic batch and sequence dims, as a user exports them (`Dim`s on the
batch and sequence of attention-shaped tensors), for the CPU and Triton tests."""

from __future__ import annotations

import torch
from torch.export import Dim

import aten_mlir
from tests.modules import Fn

S = Dim("s", min=2, max=64)
B = Dim("b", min=1, max=8)


def _t(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(len(shape)))


# name: (fn, example inputs, dynamic shapes, call inputs)
PRODUCTS = {
    "h_at_ht": (
        lambda h: h @ h.transpose(1, 2),
        (_t(2, 5, 4),),
        ({1: S},),
        (_t(2, 7, 4),),
    ),
    "bmm": (
        torch.bmm,
        (_t(2, 5, 4), _t(2, 4, 5)),
        ({1: S}, {2: S}),
        (_t(2, 7, 4), _t(2, 4, 7)),
    ),
    "attention_scores": (
        lambda q, k: q @ k.transpose(-1, -2),
        (_t(2, 3, 5, 4), _t(2, 3, 5, 4)),
        ({0: B, 2: S}, {0: B, 2: S}),
        (_t(3, 3, 7, 4), _t(3, 3, 7, 4)),
    ),
    "attention_values": (
        lambda p, v: p @ v,
        (_t(2, 3, 5, 5), _t(2, 3, 5, 4)),
        ({0: B, 2: S, 3: S}, {0: B, 2: S}),
        (_t(3, 3, 7, 7), _t(3, 3, 7, 4)),
    ),
    "einsum": (
        lambda q, k: torch.einsum("bhsd,bhtd->bhst", q, k),
        (_t(2, 3, 5, 4), _t(2, 3, 5, 4)),
        ({0: B, 2: S}, {0: B, 2: S}),
        (_t(3, 3, 7, 4), _t(3, 3, 7, 4)),
    ),
}


def compile_product(name: str, target: str):
    fn, example, dynamic, call = PRODUCTS[name]
    ep = torch.export.export(Fn(fn), example, dynamic_shapes=(dynamic,))
    return aten_mlir.compile(ep, target=target), fn, call


# Sizes the CPU kernels' remainders must all handle, from one compile: a single row, less than
# a register block, and every remainder of the row / column / k blocks.
ODD_SIZES = (1, 7, 17, 33, 100, 257)
_S_ANY = Dim("s_any", min=1, max=4096)


def compile_product_any_size(name: str, target: str, **options):
    """`name` compiled with its sequence dims free from 1 up (not 2..64)."""
    fn, example, dynamic, _ = PRODUCTS[name]
    wide = tuple({axis: _S_ANY if d is S else d for axis, d in spec.items()} for spec in dynamic)
    ep = torch.export.export(Fn(fn), example, dynamic_shapes=(wide,))
    return aten_mlir.compile(ep, target=target, **options), fn


def inputs_at(name: str, size: int, batch: int | None = None):
    """The inputs of `name` with every sequence dim `size`, every dynamic batch dim `batch`
    (None: as in the call inputs)."""
    _, example, dynamic, call = PRODUCTS[name]
    at = {S: size, B: batch}
    out = []
    for arg, spec in zip(call, dynamic):
        shape = [at.get(spec.get(axis)) or n for axis, n in enumerate(arg.shape)]
        out.append(_t(*shape))
    return tuple(out)
