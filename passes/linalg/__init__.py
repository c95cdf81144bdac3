"""Target-neutral passes over linalg and tensor IR (after `convert-aten-to-linalg`, before
bufferization); one pass per module, named after it:

- `clamp_indices`: `aten-clamp-data-indices`; `dynamic_expands`: `aten-split-dynamic-expands`
  (and the expand-shape queries `memref/` reads: `multi_dynamic`, `output_sizes`).
- `fold_transposes`, `generalize_products`, `split_contraction_prologue`: products made
  readable in place and their fused prologues split out (`generics` holds what they share);
  `clone_broadcast_producers`, `unshare_fills`, `reuse_dead_inputs`: fusion and buffer reuse.
- `outline_repeats`: `aten-outline-repeated-blocks` (a model's repeated layers -> calls).

May import: `mlir`, `aten_mlir.dialects`, `passes.registry`, `passes.ir`; never
`aten_mlir.backends` (the backends import `NAMED_PRODUCTS` and these passes, not the reverse).

Nothing is imported here: `aten_mlir.pass_table` names each pass's module, imported the
first time the pass is looked up.
"""
