"""Attributes ops of several passes are built with."""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir


def reassociation(groups: Sequence[Sequence[int]]) -> ir.ArrayAttr:
    """The `reassociation` of a collapse_shape / expand_shape: one array of dims per group."""
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get(
        [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in groups]
    )
