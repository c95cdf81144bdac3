"""Gather/scatter/index ops with in-bounds constant indices, where/masked_fill, sort/topk read
through their values (ties make indices ambiguous, the values they pick are not)."""

from __future__ import annotations

import torch

from ..program import NAMES
from . import Op, const, pick_dim


def _index_shape(rng, x, dim):
    shape = list(x.shape)
    shape[dim] = rng.randint(1, 4)
    return shape


def _gather(x, idx, dim):
    return torch.gather(x, dim, idx)


def _propose_gather(rng, x):
    d = pick_dim(rng, x)
    if d is None or x.shape[d] == 0:
        return None
    return {"dim": d}, [const(rng, _index_shape(rng, x, d), kind="index", high=x.shape[d])]


def _scatter(x, idx, src, dim):
    return torch.scatter(x, dim, idx, src)


def _propose_scatter(rng, x):
    """Unique indices along `dim` (a permutation): duplicates make scatter's result undefined."""
    d = pick_dim(rng, x)
    if d is None or x.dtype == torch.bool:
        return None
    shape = list(x.shape)
    idx = const(rng, shape, kind="perm", dim=d)
    return {"dim": d}, [idx, const(rng, shape, NAMES[x.dtype])]


def _scatter_add(x, idx, src, dim):
    return torch.scatter_add(x, dim, idx, src)


def _scatter_reduce(x, idx, src, dim, reduce, include_self):
    return torch.scatter_reduce(x, dim, idx, src, reduce, include_self=include_self)


def _propose_scatter_add(rng, x):
    d = pick_dim(rng, x)
    if d is None or x.shape[d] == 0 or x.dtype == torch.bool:
        return None
    shape = list(x.shape)
    shape[d] = rng.randint(1, x.shape[d])
    consts = [const(rng, shape, kind="index", high=x.shape[d]), const(rng, shape, NAMES[x.dtype])]
    return {"dim": d}, consts


def _propose_scatter_reduce(rng, x):
    proposal = _propose_scatter_add(rng, x)
    if proposal is None:
        return None
    params, consts = proposal
    params.update(
        reduce=rng.choice(["sum", "amax", "amin", "prod"]), include_self=rng.random() < 0.7
    )
    return params, consts


def _index_select(x, idx, dim):
    return torch.index_select(x, dim, idx)


def _propose_index_select(rng, x):
    d = pick_dim(rng, x)
    if d is None or x.shape[d] == 0:
        return None
    return {"dim": d}, [const(rng, [rng.randint(1, 5)], kind="index", high=x.shape[d])]


def _index_add(x, idx, src, dim, alpha):
    return torch.index_add(x, dim, idx, src, alpha=alpha)


def _propose_index_add(rng, x):
    d = pick_dim(rng, x)
    if d is None or x.shape[d] == 0 or x.dtype == torch.bool:
        return None
    k = rng.randint(1, 4)
    shape = list(x.shape)
    shape[d] = k
    consts = [const(rng, [k], kind="index", high=x.shape[d]), const(rng, shape, NAMES[x.dtype])]
    return {"dim": d, "alpha": rng.choice([1, 2])}, consts


def _index_tensor(x, idx):
    return x[idx]


def _propose_index_tensor(rng, x):
    if x.dim() == 0 or x.shape[0] == 0:
        return None
    return {}, [const(rng, [rng.randint(1, 3), rng.randint(1, 3)], kind="index", high=x.shape[0])]


def _index_put(x, idx, values):
    return torch.index_put(x, (idx,), values, accumulate=True)


def _propose_index_put(rng, x):
    if x.dim() == 0 or x.shape[0] == 0 or x.dtype == torch.bool:
        return None
    k = rng.randint(1, 4)
    consts = [
        const(rng, [k], kind="index", high=x.shape[0]),
        const(rng, [k] + list(x.shape[1:]), NAMES[x.dtype]),
    ]
    return {}, consts


def _masked_fill(x, threshold, value):
    return x.masked_fill(x > threshold, value)


def _where_const(x, y):
    return torch.where(x > 0, x, y)


def _sort(x, dim, descending):
    return torch.sort(x, dim=dim, descending=descending).values


def _argsort(x, dim, descending):
    return torch.gather(x, dim, torch.argsort(x, dim=dim, descending=descending))


def _propose_sort(rng, x):
    d = pick_dim(rng, x)
    return None if d is None else ({"dim": d, "descending": rng.random() < 0.5}, [])


def _topk(x, k, dim, largest, through_indices):
    values, indices = torch.topk(x, k, dim=dim, largest=largest)
    return torch.gather(x, dim, indices) if through_indices else values


def _propose_topk(rng, x):
    d = pick_dim(rng, x)
    if d is None or x.shape[d] == 0:
        return None
    params = {"k": rng.randint(1, min(3, x.shape[d])), "dim": d, "largest": rng.random() < 0.7}
    params["through_indices"] = rng.random() < 0.5
    return params, []


OPS = [
    Op("gather", "index", _gather, _propose_gather),
    Op("scatter", "index", _scatter, _propose_scatter),
    Op("scatter_add", "index", _scatter_add, _propose_scatter_add),
    Op("scatter_reduce", "index", _scatter_reduce, _propose_scatter_reduce),
    Op("index_select", "index", _index_select, _propose_index_select),
    Op("index_add", "index", _index_add, _propose_index_add),
    Op("index_tensor", "index", _index_tensor, _propose_index_tensor),
    Op("index_put", "index", _index_put, _propose_index_put),
    Op(
        "masked_fill",
        "index",
        _masked_fill,
        lambda r, x: ({"threshold": 0, "value": r.choice([0.0, -1.0, 7])}, []),
    ),
    Op("where", "index", _where_const, lambda r, x: ({}, []), arity=2),
    Op("sort", "sort", _sort, _propose_sort),
    Op("argsort", "sort", _argsort, _propose_sort),
    Op("topk", "sort", _topk, _propose_topk),
]
