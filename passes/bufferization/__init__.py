"""Target-neutral passes around one-shot bufferization and ownership-based deallocation:
`aten-split-fresh-deallocs` (`split_deallocs`: a dealloc of distinct fresh buffers -> one
`memref.dealloc` each, instead of a runtime alias check).

May import: `mlir`, `passes.registry`, `passes.ir`; never `aten_mlir.backends`.

Nothing is imported here: `aten_mlir.pass_table` names each pass's module, imported the
first time the pass is looked up.
"""
