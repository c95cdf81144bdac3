"""The Triton backend: segment functions at loop level -> `@triton.jit` kernels and launchers.

The room, in the order a program goes through it:
- `pipeline.py`: the Triton stage list (which passes run, in order).
- `passes/`: the `triton-*` passes over linalg and loop-level IR (outlining products, padding,
  fusing nests, inlining producers). They import `loop_ir`, `products` and, for the fusion
  plans the codegen will follow, public names of `codegen.epilogue`; never codegen privates.
- `loop_ir.py`, `products.py`: the loop-IR queries and the product calls' vocabulary that
  passes and codegen share (below both; they import no other module of the room).
- `codegen/`: one loop nest or product -> the source of one kernel (`KernelWriter`, the op
  tables, matmul/conv templates, epilogues and prologues fused into a `tl.dot` kernel).
- `host/`: the Python launchers between kernels (`SegmentWriter`, the host op table), the
  module file the program runs from, and `library.build`.
- `launch.py`, `helpers.py`: what generated code imports at run time (host helpers; device
  helpers loaded by file path). Their paths are part of every generated module: kept stable.
- `aot.py`: ahead-of-time compilation of the kernels for a GPU target (no device needed).

The `triton-*` passes are named, with their modules, in `aten_mlir/pass_table.py` and load
when a pipeline or `aten-opt` first names them: importing the package registers nothing. Torch
and triton load when a program is built."""

from .codegen.kernel_types import KernelError


def build(module, cache_dir=None, dump_dir=None):
    """The `TritonLibrary` of a loop-level module (see `host.library.build`)."""
    from .host.library import build as _build

    return _build(module, cache_dir, dump_dir)


__all__ = ["KernelError", "build"]
