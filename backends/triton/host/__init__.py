"""The host side of the Triton backend: a segment function -> its Python launcher (the
`SegmentWriter` in `launcher`, with `ops.HOST` for the ops run between kernels: allocations,
views, copies, scalar arithmetic), the program's module text and file (`library`,
`module_files`), and the bytes-moved report of a program's launches (`traffic`).

May import: the room's `codegen`, `loop_ir`, `products` and `launch`; never `passes/`."""
