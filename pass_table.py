"""Every aten pass by name, with the module that defines it: the one table `aten-opt
--list-passes`, `get_pass` and pipeline parsing read (`aten_mlir.passes.registry.PASSES`).

A pass's module is imported the first time the pass is looked up (listing imports them all), so
which passes exist never depends on which modules happen to be imported, and importing a backend
registers nothing new. The table names modules of every room as strings: this module imports
nothing, and `passes/` reading it imports no backend. Moving or renaming a pass means editing
its line here; tests/passes/test_pass_table.py checks each line against the tree.
"""

PASS_MODULES: dict[str, str] = {
    # target-neutral passes (passes/)
    "aten-as-strided-storage": "aten_mlir.passes.decompose.as_strided_storage",
    "aten-check-expand-groups": "aten_mlir.passes.memref.check_expand_groups",
    "aten-check-target": "aten_mlir.passes.decompose.decompose_pass",
    "aten-clamp-data-indices": "aten_mlir.passes.linalg.clamp_indices",
    "aten-clone-broadcast-producers": "aten_mlir.passes.linalg.clone_broadcast_producers",
    "aten-decompose": "aten_mlir.passes.decompose.decompose_pass",
    "aten-drop-dead": "aten_mlir.passes.aten.drop_dead",
    "aten-expands-as-casts": "aten_mlir.passes.memref.expand_casts",
    "aten-fold-transposes": "aten_mlir.passes.linalg.fold_transposes",
    "aten-generalize-products": "aten_mlir.passes.linalg.generalize_products",
    "aten-im2col-windows": "aten_mlir.passes.linalg.im2col_windows",
    "aten-outline-repeated-blocks": "aten_mlir.passes.linalg.outline_repeats",
    "aten-reuse-dead-inputs": "aten_mlir.passes.linalg.reuse_dead_inputs",
    "aten-split-contraction-prologue": "aten_mlir.passes.linalg.split_contraction_prologue",
    "aten-split-dynamic-expands": "aten_mlir.passes.linalg.dynamic_expands",
    "aten-split-fresh-deallocs": "aten_mlir.passes.bufferization.split_deallocs",
    "aten-unshare-fills": "aten_mlir.passes.linalg.unshare_fills",
    "aten-verify": "aten_mlir.passes.aten.verify",
    "aten-widen-i1-memrefs": "aten_mlir.passes.memref.widen_i1_memrefs",
    "convert-aten-to-linalg": "aten_mlir.passes.aten_to_linalg.lower_pass",
    # CPU backend (backends/cpu/passes/)
    "cpu-accurate-math": "aten_mlir.backends.cpu.passes.accurate_math",
    "cpu-contract-row-buffers": "aten_mlir.backends.cpu.passes.row_buffers",
    "cpu-copies-to-generics": "aten_mlir.backends.cpu.passes.copies",
    "cpu-emit-c-interface": "aten_mlir.backends.cpu.passes.c_interface",
    "cpu-exact-bf16-extrema": "aten_mlir.backends.cpu.passes.bf16_extrema",
    "cpu-fast-math": "aten_mlir.backends.cpu.passes.fast_math",
    "cpu-fuse-row-nests": "aten_mlir.backends.cpu.passes.fuse_row_nests",
    "cpu-narrow-extrema": "aten_mlir.backends.cpu.passes.narrow_extrema",
    "cpu-native-bf16-rounding": "aten_mlir.backends.cpu.passes.native_bf16",
    "cpu-outline-loop-nests": "aten_mlir.backends.cpu.passes.outline_nests",
    "cpu-reuse-dead-rows": "aten_mlir.backends.cpu.passes.row_reuse",
    "cpu-pair-rows": "aten_mlir.backends.cpu.passes.row_pairs",
    "cpu-parallelize-loops": "aten_mlir.backends.cpu.passes.parallelize",
    "cpu-vectorize-contractions": "aten_mlir.backends.cpu.passes.contractions",
    "cpu-vectorize-generics": "aten_mlir.backends.cpu.passes.vectorize",
    # Triton backend (backends/triton/passes/)
    "triton-fold-copies-into-products": "aten_mlir.backends.triton.passes.fold_copies",
    "triton-fold-padding": "aten_mlir.backends.triton.passes.fold_padding",
    "triton-fuse-rows": "aten_mlir.backends.triton.passes.fuse_rows",
    "triton-inline-producers": "aten_mlir.backends.triton.passes.inline_producers",
    "triton-inline-small-convs": "aten_mlir.backends.triton.passes.inline_convs",
    "triton-merge-slabs": "aten_mlir.backends.triton.passes.merge_slabs",
    "triton-outline-matmul": "aten_mlir.backends.triton.passes.outline_matmul",
    "triton-rematerialize": "aten_mlir.backends.triton.passes.rematerialize",
    "triton-sink-loops": "aten_mlir.backends.triton.passes.sink_loops",
    "triton-unalias-epilogues": "aten_mlir.backends.triton.passes.unalias_epilogues",
}
