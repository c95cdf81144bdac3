"""The Triton backend's passes (`triton-*`), one pass per module, over linalg (before the loops
stage: `fold_padding`, `outline_matmul`) and loop-level IR (after it: fold_copies, merge_slabs,
inline_producers, inline_convs, sink_loops, fuse_rows, rematerialize, unalias_epilogues), plus
`view_indices` (indices carried back through views, for the two inlining passes).

May import: MLIR, `aten_mlir.passes` (the pass registry and target-neutral queries), the
room's `loop_ir` and `products`, and public names of `codegen.epilogue` (whether a conv's
epilogue fuses into its kernel, which `triton-inline-small-convs` must not break). Never
`host/`, never a private name of another module."""
