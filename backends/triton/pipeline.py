"""The Triton target's stages, top to bottom: aten to loop nests the kernel builder reads
(`TRITON_STAGES`).

The Triton target shares the stages down to loops with the CPU's; complex values stay for eager
(Triton has no complex type), and adjacent parallel nests over the same space fuse (a fill with
the reduction that accumulates into it, reductions over the same rows) so one kernel does both.
The `triton-*` passes the stages name register when `aten_mlir.backends.triton` is imported.
"""

from __future__ import annotations

from aten_mlir.passes.stages import BUFFERIZE, DECOMPOSE, Stage

TRITON_STAGES: list[Stage] = [
    DECOMPOSE,
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
        "aten-fold-transposes,aten-split-contraction-prologue,aten-im2col-windows,"
        "aten-unshare-fills,linalg-generalize-named-ops,triton-fold-padding,canonicalize,eliminate-empty-tensors,"
        + BUFFERIZE,
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
