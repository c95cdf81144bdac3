"""Pooling (max/avg/adaptive) and normalizations (layer/group/batch norm in eval, rms norm,
softmax, log_softmax)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..program import NAMES
from . import Op, const, pick_dim


def _pool(kind):
    def apply(x, kernel, stride, padding, ceil_mode, extra):
        one_d = x.dim() == 3
        if kind == "max":
            fn = F.max_pool1d if one_d else F.max_pool2d
            return fn(x, kernel, stride, padding, dilation=extra, ceil_mode=ceil_mode)
        fn = F.avg_pool1d if one_d else F.avg_pool2d
        return fn(x, kernel, stride, padding, ceil_mode=ceil_mode, count_include_pad=bool(extra))

    return apply


def _propose_pool(kind):
    def propose(rng, x):
        if x.dim() not in (3, 4) or not x.dtype.is_floating_point:
            return None
        k = rng.randint(1, 3)
        extra = rng.choice([1, 1, 2]) if kind == "max" else rng.choice([0, 1])
        params = {
            "kernel": k,
            "stride": rng.choice([1, 2, k]),
            "padding": rng.randint(0, k // 2),
            "ceil_mode": rng.random() < 0.3,
            "extra": extra,
        }
        return params, []

    return propose


def _adaptive(kind):
    def apply(x, size):
        one_d = x.dim() == 3
        if kind == "avg":
            return (F.adaptive_avg_pool1d if one_d else F.adaptive_avg_pool2d)(x, size)
        return (F.adaptive_max_pool1d if one_d else F.adaptive_max_pool2d)(x, size)

    return apply


def _propose_adaptive(rng, x):
    if x.dim() not in (3, 4) or not x.dtype.is_floating_point:
        return None
    return {"size": rng.randint(1, 3)}, []


def _layer_norm(x, *wb, n, eps):
    return F.layer_norm(x, x.shape[-n:], *wb, eps=eps)


def _propose_layer_norm(rng, x):
    if x.dim() == 0 or not x.dtype.is_floating_point:
        return None
    n = rng.randint(1, min(2, x.dim()))
    dt = NAMES[x.dtype]
    consts = [const(rng, x.shape[-n:], dt) for _ in range(rng.choice([0, 1, 2]))]
    return {"n": n, "eps": rng.choice([1e-5, 1e-3])}, consts


def _group_norm(x, *wb, groups):
    return F.group_norm(x, groups, *wb)


def _propose_group_norm(rng, x):
    if x.dim() < 2 or not x.dtype.is_floating_point:
        return None
    c = x.shape[1]
    groups = rng.choice([g for g in (1, 2, 3) if c % g == 0])
    consts = [const(rng, [c], NAMES[x.dtype]) for _ in range(rng.choice([0, 2]))]
    return {"groups": groups}, consts


def _batch_norm(x, mean, var, *wb):
    # running variances are positive
    return F.batch_norm(x, mean, var.abs() + 0.1, *wb, training=False)


def _propose_batch_norm(rng, x):
    if x.dim() < 2 or not x.dtype.is_floating_point:
        return None
    c, dt = x.shape[1], NAMES[x.dtype]
    return {}, [const(rng, [c], dt) for _ in range(rng.choice([2, 4]))]


def _rms_norm(x, *w, n):
    return F.rms_norm(x, x.shape[-n:], *w)


def _softmax(x, dim):
    return torch.softmax(x, dim)


def _log_softmax(x, dim):
    return torch.log_softmax(x, dim)


def _propose_softmax(rng, x):
    d = pick_dim(rng, x)
    return None if d is None or not x.dtype.is_floating_point else ({"dim": d}, [])


OPS = [
    Op("max_pool", "pool", _pool("max"), _propose_pool("max")),
    Op("avg_pool", "pool", _pool("avg"), _propose_pool("avg")),
    Op("adaptive_avg_pool", "pool", _adaptive("avg"), _propose_adaptive),
    Op("adaptive_max_pool", "pool", _adaptive("max"), _propose_adaptive),
    Op("layer_norm", "norm", _layer_norm, _propose_layer_norm),
    Op("group_norm", "norm", _group_norm, _propose_group_norm),
    Op("batch_norm", "norm", _batch_norm, _propose_batch_norm),
    Op(
        "rms_norm",
        "norm",
        _rms_norm,
        lambda r, x: ({"n": 1}, []) if x.dim() and x.dtype.is_floating_point else None,
    ),
    Op("softmax", "norm", _softmax, _propose_softmax),
    Op("log_softmax", "norm", _log_softmax, _propose_softmax),
]
