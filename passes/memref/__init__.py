"""Target-neutral passes over memref IR (the llvm stage) that keep upstream's memref -> LLVM
lowering from aborting: `aten-expands-as-casts` (`expand_casts`: an expand_shape group with two
dynamic sizes -> a reinterpret_cast), `aten-check-expand-groups` (`check_expand_groups`: a
diagnostic for any such group left) and `aten-widen-i1-memrefs` (`widen_i1_memrefs`: i1 buffers
-> i8).

May import: `mlir`, `passes.registry`, `passes.ir`, the expand-shape queries of
`passes.linalg.dynamic_expands`; never `aten_mlir.backends`.

Nothing is imported here: `aten_mlir.pass_table` names each pass's module, imported the
first time the pass is looked up.
"""
