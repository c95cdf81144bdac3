"""Products against constant weights (mm/bmm/matmul/addmm/linear/einsum) and convolutions."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..program import NAMES
from . import Op, const


def _weight_dtype(x) -> str | None:
    return NAMES[x.dtype] if x.dtype != torch.bool else None


def _mm(x, w):
    return torch.mm(x, w)


def _bmm(x, w):
    return torch.bmm(x, w)


def _matmul(x, w):
    return torch.matmul(x, w)


def _addmm(x, w, b, beta, alpha):
    return torch.addmm(b, x, w, beta=beta, alpha=alpha)


def _linear(x, w, b=None):
    return F.linear(x, w, b)


def _propose_mm(rank):
    def propose(rng, x):
        dt = _weight_dtype(x)
        if dt is None or (rank and x.dim() != rank) or x.dim() == 0:
            return None
        n = rng.randint(1, 6)
        shape = [x.shape[-1], n] if rank != 3 else [x.shape[0], x.shape[-1], n]
        return {}, [const(rng, shape, dt)]

    return propose


def _propose_addmm(rng, x):
    dt = _weight_dtype(x)
    if dt is None or x.dim() != 2:
        return None
    n = rng.randint(1, 6)
    bias = [n] if rng.random() < 0.6 else [x.shape[0], n]
    params = {"beta": rng.choice([1, 0.5]), "alpha": rng.choice([1, 2])}
    return params, [const(rng, [x.shape[1], n], dt), const(rng, bias, dt)]


def _propose_linear(rng, x):
    dt = _weight_dtype(x)
    if dt is None or x.dim() == 0:
        return None
    n = rng.randint(1, 6)
    consts = [const(rng, [n, x.shape[-1]], dt)]
    if rng.random() < 0.6:
        consts.append(const(rng, [n], dt))
    return {}, consts


_EINSUMS = {
    1: ["i,i->", "i,j->ij"],
    2: ["ij,jk->ik", "ij,ij->i", "ij->ji", "ij,kj->ik"],
    3: ["bij,bjk->bik", "bij->bji", "bij,j->bi"],
    4: ["bhqd,bhkd->bhqk"],
}


def _einsum(*operands, equation):
    return torch.einsum(equation, *operands)


def _propose_einsum(rng, x):
    dt = _weight_dtype(x)
    if dt is None or x.dim() not in _EINSUMS:
        return None
    eq = rng.choice(_EINSUMS[x.dim()])
    inputs = eq.split("->")[0].split(",")
    if len(inputs) == 1:
        return {"equation": eq}, []
    sizes = dict(zip(inputs[0], x.shape))
    other = [sizes.setdefault(c, rng.randint(1, 5)) for c in inputs[1]]
    return {"equation": eq}, [const(rng, other, dt)]


def _conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    fn = F.conv1d if x.dim() == 3 else F.conv2d
    return fn(x, w, b, stride, padding, dilation, groups)


def _propose_conv(rng, x):
    if x.dim() not in (3, 4) or not x.dtype.is_floating_point:
        return None
    c = x.shape[1]
    groups = rng.choice([g for g in (1, 2, 3) if c % g == 0])
    out = groups * rng.randint(1, 2)
    k = rng.randint(1, 3)
    spatial = x.dim() - 2
    consts = [const(rng, [out, c // groups] + [k] * spatial, NAMES[x.dtype])]
    if rng.random() < 0.5:
        consts.append(const(rng, [out], NAMES[x.dtype]))
    params = {
        "stride": rng.choice([1, 1, 2]),
        "padding": rng.choice([0, 0, 1]),
        "dilation": rng.choice([1, 1, 2]),
        "groups": groups,
    }
    return params, consts


OPS = [
    Op("mm", "product", _mm, _propose_mm(2)),
    Op("bmm", "product", _bmm, _propose_mm(3)),
    Op("matmul", "product", _matmul, _propose_mm(0)),
    Op("addmm", "product", _addmm, _propose_addmm),
    Op("linear", "product", _linear, _propose_linear),
    Op("einsum", "product", _einsum, _propose_einsum),
    Op("conv", "conv", _conv, _propose_conv),
]
