"""Target-neutral passes over aten IR (before it is lowered): `aten-verify` (the dialect
verifier as a pass) and `aten-drop-dead` (erases aten ops nothing uses, by their schemas).
The decompositions (`decompose/`) and the lowering to linalg (`aten_to_linalg/`) have folders
of their own.

May import: `mlir`, `aten_mlir.dialects`, `passes.registry` / `passes.ir`, and
`passes.decompose` for the core target set `aten-verify{target=core}` checks against; never
`aten_mlir.backends` (a backend imports passes, not the other way round).

Nothing is imported here: `aten_mlir.pass_table` names each pass's module, imported the
first time the pass is looked up.
"""
