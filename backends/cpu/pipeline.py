"""The CPU target's stages, top to bottom: aten to the LLVM dialect (`CPU_STAGES`).

`compile()` runs them in order (`aten-opt --stage NAME` replays one); the native build
(`native.py`) takes the `llvm` stage's module. The `cpu-*` passes the stages name are this
room's (`passes/`), found by name through `aten_mlir.pass_table` when a pipeline runs.
"""

from __future__ import annotations

from aten_mlir.passes.stages import BUFFERIZE, DECOMPOSE, OUTLINE_REPEATS, Stage

CPU_STAGES: list[Stage] = [
    DECOMPOSE,
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
        # the views back of `?`-row products (fusion's reshape propagation leaves
        # expand(collapse(x)) pairs it folds only when static), then fusion across them
        "aten-split-dynamic-expands{fold-only=true},linalg-fuse-elementwise-ops,cse,canonicalize,"
        + OUTLINE_REPEATS,
        "products as generics reading transposed operands through their maps, then "
        "producer-consumer fusion of elementwise linalg.generic ops; repeated blocks (layers) "
        "as calls of one function",
    ),
    Stage(
        "bufferize",
        "aten-fold-transposes,aten-split-contraction-prologue,aten-im2col-windows,"
        "aten-unshare-fills,canonicalize,"
        "aten-reuse-dead-inputs,eliminate-empty-tensors," + BUFFERIZE,
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
        "cpu-fuse-row-nests,cpu-contract-row-buffers,cpu-reuse-dead-rows,cpu-narrow-extrema,"
        "cpu-pair-rows,canonicalize,"
        "cpu-parallelize-loops",
        "strided copies and elementwise and reduction generics -> loops over vectors along "
        "their contiguous dim (per-row values hoisted, vector accumulators); other linalg on "
        "memrefs -> "
        "scf.parallel (parallel dims) / scf.for (reductions) loop nests; adjacent nests over "
        "the same rows fused (a softmax's passes run on one row while it is in L1), buffers "
        "only such a nest uses at its own rows made one row on the stack, its output written "
        "over a dead input; bf16 max loops on integer keys, two rows per iteration; outer "
        "independent loops outlined for the thread pool",
    ),
    Stage(
        "llvm",
        "duplicate-function-elimination,cpu-outline-loop-nests,duplicate-function-elimination,"
        "cpu-emit-c-interface,cpu-fast-math,cpu-accurate-math,"
        # arith on bf16 values (a scalar max of a `?` reduction) computed in f32: LLVM would
        # widen and narrow it with vcvtneps2bf16, which flushes subnormal results to 0;
        # extrema first, whose narrowing is exact (a shift, no rounding)
        "cpu-exact-bf16-extrema,"
        "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
        # vector f32 -> bf16 as vcvtneps2bf16 (integer rounding for rows with subnormals)
        "cpu-native-bf16-rounding,convert-complex-to-standard,"
        "convert-math-to-funcs,"
        "lower-affine,convert-scf-to-cf,aten-expands-as-casts,aten-check-expand-groups,"
        "aten-widen-i1-memrefs,expand-strided-metadata,"
        # bf16 conversions as integer ops (round to nearest even, NaN quiet): with AVX512-BF16
        # llc emits vcvtneps2bf16, which flushes subnormals (bf16 `x * 1.5` of 2.9e-39 gave 0)
        "lower-affine,arith-expand{include-bf16=true},"
        "convert-math-to-llvm{approximate-log1p=false},convert-math-to-libm,"
        # after math-to-libm, which unrolls vector math into per-lane calls (vector.extract)
        "convert-vector-to-llvm{enable-amx enable-x86vector},"  # vdpbf16ps: narrow_dot
        # ub, complex, memref, arith, index and cf in one conversion (one walk of the module
        # instead of six, the same LLVM IR; train_transformer's backward: llvm stage 0.44 ->
        # 0.39 s); cf by convert-to-llvm, whose type converter knows AMX tiles (loop-carried
        # tiles are block arguments; convert-cf-to-llvm fails on them)
        "convert-to-llvm{filter-dialects=ub,complex,memref,arith,index,cf,amx},"
        "convert-func-to-llvm,reconcile-unrealized-casts",
        "each distinct loop nest as a private function (identical ones merged); loops, "
        "memrefs, arith, math, complex -> the LLVM dialect (C-interface wrappers)",
    ),
]
