"""Target-neutral passes around one-shot bufferization and ownership-based deallocation:
`aten-split-fresh-deallocs` (`split_deallocs`: a dealloc of distinct fresh buffers -> one
`memref.dealloc` each, instead of a runtime alias check).

May import: `mlir`, `passes.registry`, `passes.ir`; never `aten_mlir.backends`.
"""

from . import split_deallocs  # noqa: F401  (registers the pass)
