"""The fuzzer's op table: each `Op` proposes parameters valid for an example operand and applies
them with torch. Proposals may still be invalid (a dtype an op rejects, a view of a
non-contiguous tensor): the generator runs every step eagerly and retries on an exception, so an
op only needs to make valid proposals likely, not certain."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from ..program import TensorSpec


@dataclass(frozen=True)
class Op:
    name: str
    family: str
    apply: Callable  # (*tensors, **params) -> tensor
    # (rng, x) -> (params, [const TensorSpec dicts]) or None when x does not fit
    propose: Callable
    arity: int = 1  # 2: the generator adds a second operand broadcastable with x


def const(rng: random.Random, shape, dtype="f32", **kw) -> dict:
    spec = TensorSpec(shape=list(shape), dtype=dtype, seed=rng.randrange(1 << 30), **kw)
    return spec.__dict__.copy()


def no_params(rng, x):
    return {}, []


def pick_dim(rng, x) -> int | None:
    return rng.randrange(x.dim()) if x.dim() else None


OPS: dict[str, Op] = {}


def register(ops) -> None:
    for op in ops:
        if op.name in OPS:
            raise KeyError(f"fuzz op {op.name} registered twice")
        OPS[op.name] = op


def _load() -> None:
    from . import elementwise, indexing, nn, products, reductions, views

    for module in (elementwise, reductions, views, products, nn, indexing):
        register(module.OPS)


_load()
