"""The Triton backend: segment functions at loop level -> `@triton.jit` kernels and launchers.

Importing the package registers its passes (`triton-outline-matmul`, `triton-fold-padding`,
`triton-fold-copies-into-products`, `triton-merge-slabs`, `triton-inline-producers`,
`triton-inline-small-convs`, `triton-sink-loops`, `triton-fuse-rows`, `triton-rematerialize`,
`triton-unalias-epilogues`) and nothing heavier;
torch and triton load when a program is built."""

from . import (  # noqa: F401  (register their passes)
    fold_copies,
    fuse_rows,
    inline_convs,
    inline_producers,
    matmul,
    merge_slabs,
    padding,
    rematerialize,
    sink_loops,
    unalias_epilogues,
)
from .kernel_types import KernelError


def build(module, cache_dir=None, dump_dir=None):
    """The `TritonLibrary` of a loop-level module (see `library.build`)."""
    from .library import build as _build

    return _build(module, cache_dir, dump_dir)


__all__ = ["KernelError", "build"]
