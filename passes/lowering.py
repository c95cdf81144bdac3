"""The lowering pipeline, top to bottom: ordered, named stages from aten to the LLVM dialect.

Each stage is a pipeline in `aten-opt` syntax, so any stage can be replayed on a dumped file:
`aten-opt --stage bufferize dump/03-fusion.mlir`. `compile()` runs them in this order, splits the
program into compiled segments and eager fallbacks after `aten-to-linalg`, and dumps the IR after
every stage when asked to.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    name: str
    pipeline: str  # aten-opt / mlir-opt pipeline text, anchored on builtin.module
    summary: str


_BUFFERIZE = (
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

LOWERING_STAGES: list[Stage] = [
    Stage(
        "decompose",
        "aten-as-strided-storage,aten-decompose",
        "any aten op -> the core ATen op set",
    ),
    Stage(
        "aten-to-linalg",
        "convert-aten-to-linalg{allow-fallback},aten-clamp-data-indices,"
        "resolve-ranked-shaped-type-result-dims,"
        "canonicalize,cse,aten-split-dynamic-expands",
        "core aten -> linalg/tensor/arith/math on tensors (ops without lowering stay)",
    ),
    Stage(
        "fusion",
        "canonicalize,aten-generalize-products,aten-fold-transposes,"
        "aten-clone-broadcast-producers,linalg-fuse-elementwise-ops,cse,canonicalize,"
        + OUTLINE_REPEATS,
        "products as generics reading transposed operands through their maps, then "
        "producer-consumer fusion of elementwise linalg.generic ops; repeated blocks (layers) "
        "as calls of one function",
    ),
    Stage(
        "bufferize",
        "aten-fold-transposes,aten-split-contraction-prologue,aten-unshare-fills,canonicalize,"
        "aten-reuse-dead-inputs,eliminate-empty-tensors," + _BUFFERIZE,
        "prologues out of products (operands in memory); elementwise ops over dead inputs; "
        "tensors -> memrefs, a fill per accumulator; results owned by the caller, temporaries "
        "freed",
    ),
    Stage(
        "vectorize",
        "cpu-vectorize-contractions,canonicalize,cse",
        "matmul-like contractions -> register-tiled vector micro-kernels",
    ),
    Stage(
        "loops",
        "cpu-copies-to-generics,cpu-vectorize-generics,convert-linalg-to-parallel-loops,"
        "cpu-fuse-row-nests,canonicalize,"
        "cpu-parallelize-loops",
        "strided copies and elementwise and reduction generics -> loops over vectors along "
        "their contiguous dim (per-row values hoisted, vector accumulators); other linalg on "
        "memrefs -> "
        "scf.parallel (parallel dims) / scf.for (reductions) loop nests; adjacent nests over "
        "the same rows fused (a softmax's passes run on one row while it is in L1); outer "
        "independent loops outlined for the thread pool",
    ),
    Stage(
        "llvm",
        "duplicate-function-elimination,aten-outline-loop-nests,duplicate-function-elimination,"
        "aten-emit-c-interface,aten-fast-math,aten-accurate-math,convert-complex-to-standard,"
        "convert-math-to-funcs,"
        "lower-affine,convert-scf-to-cf,aten-expands-as-casts,aten-check-expand-groups,"
        "aten-widen-i1-memrefs,expand-strided-metadata,"
        "lower-affine,arith-expand,"
        "convert-math-to-llvm{approximate-log1p=false},convert-math-to-libm,"
        # after math-to-libm, which unrolls vector math into per-lane calls (vector.extract)
        "convert-vector-to-llvm,convert-ub-to-llvm,convert-complex-to-llvm,"
        "finalize-memref-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"
        "convert-func-to-llvm,reconcile-unrealized-casts",
        "each distinct loop nest as a private function (identical ones merged); loops, "
        "memrefs, arith, math, complex -> the LLVM dialect (C-interface wrappers)",
    ),
]

STAGES_BY_NAME = {s.name: s for s in LOWERING_STAGES}

# The Triton target shares the stages down to loops; complex values stay for eager (Triton has
# no complex type), and adjacent parallel nests over the same space fuse (a fill with the
# reduction that accumulates into it, reductions over the same rows) so one kernel does both.
TRITON_STAGES: list[Stage] = [
    STAGES_BY_NAME["decompose"],
    Stage(
        "aten-to-linalg",
        "convert-aten-to-linalg{allow-fallback no-complex},aten-clamp-data-indices,"
        "resolve-ranked-shaped-type-result-dims,"
        "canonicalize,cse,aten-split-dynamic-expands",
        "core aten -> linalg/tensor/arith/math on tensors (complex ops stay)",
    ),
    Stage(
        "fusion",
        "canonicalize,aten-fold-transposes,linalg-fuse-elementwise-ops,cse,canonicalize",
        "transposes into their readers (permuted maps), then producer-consumer fusion of "
        "elementwise linalg.generic ops",
    ),
    Stage(
        "bufferize",
        "aten-fold-transposes,aten-split-contraction-prologue,aten-unshare-fills,"
        "linalg-generalize-named-ops,triton-fold-padding,canonicalize,eliminate-empty-tensors,"
        + _BUFFERIZE,
        "transposes fusion made readable in place, prologues out of contractions (tl.dot "
        "operands), "
        "padding into its readers; tensors -> memrefs, a fill per accumulator (no copies of a "
        "shared zero)",
    ),
    Stage(
        "loops",
        "triton-outline-matmul,convert-linalg-to-parallel-loops,canonicalize",
        "float matmuls -> calls of the tl.dot kernel; other linalg -> scf.parallel/scf.for nests",
    ),
    Stage(
        "triton-loops",
        "scf-parallel-loop-fusion,triton-fold-copies-into-products,triton-merge-slabs,"
        "triton-inline-producers,triton-inline-small-convs,"
        "triton-sink-loops,triton-fuse-rows,"
        "triton-rematerialize,triton-unalias-epilogues,lower-affine,canonicalize,cse",
        "fuses adjacent parallel nests over the same space; products read permuting copies' "
        "sources; one nest for the pieces of a cat; inlines pointwise producers, and convs "
        "with a short reduction, into their readers; moves sequential loops into lane-private "
        "nests; fuses nests over shared leading dims (a row's reductions and their readers); "
        "recomputes cheap temporaries; gives a product's epilogue its own output buffer; "
        "affine -> arith",
    ),
]


def without_repeat_outlining(stages: list[Stage]) -> list[Stage]:
    """`stages` with the layers left inline."""
    return [
        dataclasses.replace(s, pipeline=s.pipeline.replace("," + OUTLINE_REPEATS, ""))
        for s in stages
    ]


def stage_names() -> list[str]:
    return [s.name for s in LOWERING_STAGES]


def stages_between(first: str | None = None, last: str | None = None) -> list[Stage]:
    """The stages from `first` to `last` inclusive (default: all)."""
    names = stage_names()
    for n in (first, last):
        if n is not None and n not in STAGES_BY_NAME:
            raise KeyError(f"unknown stage '{n}' (stages: {', '.join(names)})")
    lo = names.index(first) if first else 0
    hi = names.index(last) if last else len(names) - 1
    return LOWERING_STAGES[lo : hi + 1]
