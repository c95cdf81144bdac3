"""Stages as data: a named `aten-opt` pipeline each target runs in order, and the pieces every
target's stage list shares.

Each target's list lives in its room (`backends/cpu/pipeline.py` `CPU_STAGES`,
`backends/triton/pipeline.py` `TRITON_STAGES`). Each stage is a pipeline in `aten-opt` syntax,
so any stage can be replayed on a dumped file: `aten-opt --stage bufferize dump/03-fusion.mlir`.
`compile()` runs a target's stages in order, splits the program into compiled segments and eager
fallbacks after `aten-to-linalg`, and dumps the IR after every stage when asked to.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    name: str
    pipeline: str  # aten-opt / mlir-opt pipeline text, anchored on builtin.module
    summary: str


# Both targets start from the core ATen op set.
DECOMPOSE = Stage(
    "decompose",
    "aten-as-strided-storage,aten-decompose",
    "any aten op -> the core ATen op set",
)

BUFFERIZE = (
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    # buffer-deallocation-pipeline, with fresh buffers' deallocs split before they lower
    "canonicalize,expand-realloc{emit-deallocs=false},canonicalize,"
    "ownership-based-buffer-deallocation,canonicalize,buffer-deallocation-simplification,"
    "aten-split-fresh-deallocs,bufferization-lower-deallocations,cse,canonicalize,"
    "convert-bufferization-to-memref,canonicalize"
)

# Repeated blocks (layers) as calls of one function; `without_repeat_outlining` drops it.
OUTLINE_REPEATS = "aten-outline-repeated-blocks,duplicate-function-elimination"


def without_repeat_outlining(stages: list[Stage]) -> list[Stage]:
    """`stages` with the layers left inline."""
    return [
        dataclasses.replace(s, pipeline=s.pipeline.replace("," + OUTLINE_REPEATS, ""))
        for s in stages
    ]


def stage_names(stages: list[Stage]) -> list[str]:
    return [s.name for s in stages]


def stage_named(stages: list[Stage], name: str) -> Stage:
    """The stage of `stages` called `name`."""
    for s in stages:
        if s.name == name:
            return s
    raise KeyError(f"unknown stage '{name}' (stages: {', '.join(stage_names(stages))})")


def stages_between(
    stages: list[Stage], first: str | None = None, last: str | None = None
) -> list[Stage]:
    """The stages of `stages` from `first` to `last` inclusive (default: all)."""
    names = stage_names(stages)
    for n in (first, last):
        if n is not None:
            stage_named(stages, n)
    lo = names.index(first) if first else 0
    hi = names.index(last) if last else len(names) - 1
    return stages[lo : hi + 1]
