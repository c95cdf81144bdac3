"""Kernel emission for the Triton backend: one loop nest, or one product call with what fuses
into it, -> the source text of one `@triton.jit` kernel.

`kernel.KernelWriter` walks a nest (`kernel_loops` its `scf.for`s, `views` the memref views made
inside it, `kernel_memory` store-to-load forwarding, `ops.OPS` the scalar ops); `matmul` and
`conv` hold the `tl.dot` templates, `epilogue`/`row_epilogue` the nests run on a product's
tile, `operand_prologue` the nest computing an operand in its load; `kernel_types` the data
(`Kernel`, `Param`, `View`, `KernelError`), `source_text` the checks on generated text.

May import: MLIR, `aten_mlir.dialects`, the room's `loop_ir` and `products`. Never `passes/`
or `host/`."""
