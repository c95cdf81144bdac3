"""Reductions over dims (keepdim or not), scans, and index-returning reductions read back through
the values they pick (argmax of a tie has several right answers; the value at it has one)."""

from __future__ import annotations

import torch

from . import Op, pick_dim


def _dims(rng, x):
    if x.dim() == 0:
        return None
    k = rng.randint(1, x.dim())
    return sorted(rng.sample(range(x.dim()), k))


def _propose_dims(rng, x):
    dims = _dims(rng, x)
    if dims is None:
        return None
    return {"dims": dims if rng.random() < 0.8 else None, "keepdim": rng.random() < 0.4}, []


def _reduce(fn):
    def apply(x, dims, keepdim):
        return fn(x, dim=dims, keepdim=keepdim) if dims is not None else fn(x)

    return apply


def _prod(x, dims, keepdim):
    return torch.prod(x, dim=dims[0], keepdim=keepdim) if dims else torch.prod(x)


def _var(x, dims, keepdim, correction):
    return torch.var(x, dim=dims, keepdim=keepdim, correction=correction)


def _std(x, dims, keepdim, correction):
    return torch.std(x, dim=dims, keepdim=keepdim, correction=correction)


def _propose_var(rng, x):
    dims = _dims(rng, x)
    if dims is None:
        return None
    return {"dims": dims, "keepdim": rng.random() < 0.4, "correction": rng.choice([0, 1])}, []


def _propose_dim(rng, x):
    d = pick_dim(rng, x)
    return None if d is None else ({"dim": d, "keepdim": rng.random() < 0.4}, [])


def _amax(x, dims, keepdim):
    return torch.amax(x, dim=dims, keepdim=keepdim)


def _amin(x, dims, keepdim):
    return torch.amin(x, dim=dims, keepdim=keepdim)


def _arg_pick(fn):
    def apply(x, dim, keepdim):
        idx = fn(x, dim=dim, keepdim=True)
        picked = torch.gather(x, dim, idx)
        return picked if keepdim else picked.squeeze(dim)

    return apply


def _max_dim(x, dim, keepdim):
    values, idx = torch.max(x, dim=dim, keepdim=True)
    return values + torch.gather(x, dim, idx) if keepdim else values.squeeze(dim)


def _min_dim(x, dim, keepdim):
    return torch.min(x, dim=dim, keepdim=keepdim).values


def _scan(fn):
    def apply(x, dim):
        return fn(x, dim)

    return apply


def _propose_scan(rng, x):
    d = pick_dim(rng, x)
    return None if d is None else ({"dim": d}, [])


def _sum_dtype(x, dims, dtype):
    return torch.sum(x, dim=dims, dtype={"f64": torch.float64, "i64": torch.int64}[dtype])


def _propose_sum_dtype(rng, x):
    dims = _dims(rng, x)
    return None if dims is None else ({"dims": dims, "dtype": rng.choice(["f64", "i64"])}, [])


OPS = [
    Op("sum", "reduction", _reduce(torch.sum), _propose_dims),
    Op("mean", "reduction", _reduce(torch.mean), _propose_dims),
    Op("amax", "reduction", _amax, lambda r, x: _propose_dims(r, x) if x.dim() else None),
    Op("amin", "reduction", _amin, lambda r, x: _propose_dims(r, x) if x.dim() else None),
    Op("prod", "reduction", _prod, _propose_dims),
    Op("logsumexp", "reduction", _reduce(torch.logsumexp), _propose_dims),
    Op("all", "reduction", _reduce(torch.all), _propose_dims),
    Op("any", "reduction", _reduce(torch.any), _propose_dims),
    Op("var", "reduction", _var, _propose_var),
    Op("std", "reduction", _std, _propose_var),
    Op("sum_dtype", "reduction", _sum_dtype, _propose_sum_dtype),
    Op("argmax", "reduction", _arg_pick(torch.argmax), _propose_dim),
    Op("argmin", "reduction", _arg_pick(torch.argmin), _propose_dim),
    Op("max_dim", "reduction", _max_dim, _propose_dim),
    Op("min_dim", "reduction", _min_dim, _propose_dim),
    Op("cumsum", "scan", _scan(torch.cumsum), _propose_scan),
    Op("cumprod", "scan", _scan(torch.cumprod), _propose_scan),
    Op("logcumsumexp", "scan", _scan(torch.logcumsumexp), _propose_scan),
    Op("cummax", "scan", _scan(lambda x, d: torch.cummax(x, d).values), _propose_scan),
]
