"""Reassociation groups of collapse_shape / expand_shape, shared by the passes that reshape."""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir


def reassociation(groups: Sequence[Sequence[int]]) -> ir.ArrayAttr:
    """The `reassociation` of a collapse_shape / expand_shape: one array of dims per group."""
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get(
        [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in groups]
    )


def unit_groups(rank: int, dropped: Sequence[int]) -> list[list[int]]:
    """The groups of a reshape between `rank` dims and those of them not in `dropped` (unit
    dims): each kept dim with the dropped ones before it, trailing dropped ones with the last
    kept dim; [] when none is kept."""
    kept = [d for d in range(rank) if d not in dropped]
    if not kept:
        return []
    groups, pending = [], []
    for d in range(rank):
        pending.append(d)
        if d not in dropped:
            groups.append(pending)
            pending = []
    groups[-1].extend(pending)
    return groups
