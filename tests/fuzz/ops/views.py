"""Views and data movement: reshape/view/permute/transpose/expand/slice/select/squeeze/
unsqueeze/flatten/narrow/as_strided, and cat/flip/roll/repeat/pad/tril that copy."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from . import Op, no_params, pick_dim


def _reshape(x, shape):
    return x.reshape(shape)


def _view(x, shape):
    return x.view(shape)


def _propose_reshape(rng, x):
    """Merge two neighbouring dims, split one by a factor of its size, or flatten to (-1,)."""
    shape = list(x.shape)
    choice = rng.random()
    if choice < 0.4 and len(shape) >= 2:
        i = rng.randrange(len(shape) - 1)
        new = shape[:i] + [-1] + shape[i + 2 :]
        return {"shape": new}, []
    if choice < 0.8 and shape:
        i = rng.randrange(len(shape))
        factors = [f for f in (2, 3) if shape[i] % f == 0]
        if factors:
            f = rng.choice(factors)
            return {"shape": shape[:i] + [f, -1] + shape[i + 1 :]}, []
    return {"shape": [-1]}, []


def _permute(x, perm):
    return x.permute(perm)


def _propose_permute(rng, x):
    perm = list(range(x.dim()))
    rng.shuffle(perm)
    return {"perm": perm}, []


def _transpose(x, a, b):
    return x.transpose(a, b)


def _propose_transpose(rng, x):
    if x.dim() < 2:
        return None
    a, b = rng.sample(range(x.dim()), 2)
    return {"a": a, "b": b}, []


def _expand(x, shape):
    return x.expand(shape)


def _propose_expand(rng, x):
    shape = [rng.choice([2, 3]) if s == 1 else -1 for s in x.shape]
    if rng.random() < 0.5:
        shape = [rng.choice([2, 3])] + shape
    return {"shape": shape}, []


def _slice(x, dim, start, stop, step):
    index = [slice(None)] * x.dim()
    index[dim] = slice(start, stop, step)
    return x[tuple(index)]


def _propose_slice(rng, x):
    d = pick_dim(rng, x)
    if d is None:
        return None
    n = x.shape[d]
    start = rng.choice([0, 1, -2, None])
    stop = rng.choice([None, n - 1, -1, n + 5])
    return {"dim": d, "start": start, "stop": stop, "step": rng.choice([1, 1, 2, 3])}, []


def _select(x, dim, index):
    return x.select(dim, index)


def _propose_select(rng, x):
    d = pick_dim(rng, x)
    if d is None or x.shape[d] == 0:
        return None
    return {"dim": d, "index": rng.choice([0, -1, x.shape[d] // 2])}, []


def _squeeze(x, dim):
    return x.squeeze() if dim is None else x.squeeze(dim)


def _propose_squeeze(rng, x):
    ones = [d for d, s in enumerate(x.shape) if s == 1]
    return {"dim": rng.choice(ones) if ones and rng.random() < 0.7 else None}, []


def _unsqueeze(x, dim):
    return x.unsqueeze(dim)


def _flatten(x, start, end):
    return x.flatten(start, end)


def _propose_flatten(rng, x):
    if x.dim() < 2:
        return {"start": 0, "end": -1}, []
    a, b = sorted(rng.sample(range(x.dim()), 2))
    return {"start": a, "end": b}, []


def _narrow(x, dim, start, length):
    return x.narrow(dim, start, length)


def _propose_narrow(rng, x):
    d = pick_dim(rng, x)
    if d is None or x.shape[d] < 2:
        return None
    start = rng.randrange(x.shape[d] - 1)
    return {"dim": d, "start": start, "length": rng.randint(1, x.shape[d] - start)}, []


def _as_strided(x, size, stride, offset):
    # on a fresh buffer: as_strided's offset counts from the storage's start, so on a user input
    # that is itself an offset view eager's answer depends on where the caller's view begins
    return torch.clone(x, memory_format=torch.contiguous_format).as_strided(size, stride, offset)


def _propose_as_strided(rng, x):
    """A window over the contiguous buffer that stays in bounds (overlapping windows allowed)."""
    n = x.numel()
    if n < 2:
        return None
    rows = rng.randint(1, min(n, 4))
    cols = rng.randint(1, max(1, n // rows))
    row_stride = rng.choice([cols, 1, max(1, cols - 1)])
    extent = (rows - 1) * row_stride + cols
    if extent > n:
        return None
    return {
        "size": [rows, cols],
        "stride": [row_stride, 1],
        "offset": rng.randrange(n - extent + 1),
    }, []


def _cat(x, y, dim):
    return torch.cat([x, y.to(x.dtype)], dim)


def _cat_self(x, dim):
    return torch.cat([x, x * 2 if x.dtype != torch.bool else x], dim)


def _stack(x, dim):
    return torch.stack([x, x], dim)


def _propose_unsq(rng, x):
    return {"dim": rng.randint(-x.dim() - 1, x.dim())}, []


def _flip(x, dims):
    return torch.flip(x, dims)


def _propose_flip(rng, x):
    d = pick_dim(rng, x)
    return None if d is None else ({"dims": [d]}, [])


def _roll(x, shift, dim):
    return torch.roll(x, shift, dim)


def _repeat(x, reps):
    return x.repeat(reps)


def _pad(x, pad, value):
    return F.pad(x, pad, value=value)


def _propose_pad(rng, x):
    if x.dim() == 0:
        return None
    pad = [rng.randint(0, 2) for _ in range(2 * rng.randint(1, min(2, x.dim())))]
    return {"pad": pad, "value": rng.choice([0.0, 1.5])}, []


def _tril(x, k):
    return torch.tril(x, k)


def _chunk(x, chunks, dim, which):
    parts = torch.chunk(x, chunks, dim)
    return parts[min(which, len(parts) - 1)]


def _propose_chunk(rng, x):
    d = pick_dim(rng, x)
    return None if d is None else ({"chunks": 2, "dim": d, "which": rng.randint(0, 1)}, [])


def _propose_dim_only(rng, x):
    d = pick_dim(rng, x)
    return None if d is None else ({"dim": d}, [])


OPS = [
    Op("reshape", "view", _reshape, _propose_reshape),
    Op("view", "view", _view, _propose_reshape),
    Op("permute", "view", _permute, _propose_permute),
    Op("transpose", "view", _transpose, _propose_transpose),
    Op("expand", "view", _expand, _propose_expand),
    Op("slice", "view", _slice, _propose_slice),
    Op("select", "view", _select, _propose_select),
    Op("squeeze", "view", _squeeze, _propose_squeeze),
    Op("unsqueeze", "view", _unsqueeze, _propose_unsq),
    Op("flatten", "view", _flatten, _propose_flatten),
    Op("narrow", "view", _narrow, _propose_narrow),
    Op("as_strided", "view", _as_strided, _propose_as_strided),
    Op("contiguous", "view", lambda x: x.contiguous(), no_params),
    Op("cat", "copy", _cat, _propose_dim_only, arity=2),
    Op("cat_self", "copy", _cat_self, _propose_dim_only),
    Op("stack", "copy", _stack, _propose_unsq),
    Op("flip", "copy", _flip, _propose_flip),
    Op(
        "roll",
        "copy",
        _roll,
        lambda r, x: (
            _propose_dim_only(r, x)
            and ({"shift": r.choice([1, -2]), "dim": r.randrange(x.dim())}, [])
        ),
    ),
    Op(
        "repeat",
        "copy",
        _repeat,
        lambda r, x: ({"reps": [r.choice([1, 2]) for _ in range(x.dim())] or [2]}, []),
    ),
    Op("pad", "copy", _pad, _propose_pad),
    Op(
        "tril",
        "copy",
        _tril,
        lambda r, x: ({"k": r.choice([0, 1, -1])}, []) if x.dim() >= 2 else None,
    ),
    Op("chunk", "copy", _chunk, _propose_chunk),
]
