"""Core aten -> linalg on tensors: the lowering table and the `convert-aten-to-linalg` pass.

The room holds the lowering table (`registry.py`: `LOWERINGS`), one rule module per op family
(`elementwise.py`, `reductions.py`, ...; sub-families in `<family>_<concept>.py`), the builders
and queries they share (`builder.py`, `complex_core.py`, `convolution_tensors.py`,
`elementwise_core.py`, `indexing_core.py`, `indexing_mask.py`, `pooling_windows.py`,
`random_bits.py`, `reductions_common.py`, `sorting_merge.py`, `views_common.py`), the pass
(`lower_pass.py`) and the coverage report (`coverage.py`).

It may import `aten_mlir.dialects`, the target-neutral helpers of `passes/` (`rules`, `registry`,
`monomials`) and `decompose.registry` (the rewriter a rule builds aten ops with); never a backend.

Every rule module is listed once in the table below and registers its rules when imported from
here; no module imports a sibling to make it register. Registration order does not matter: the
table is keyed by op name and a name taken twice raises.
"""

# The rule table: every module that fills LOWERINGS, plus the convert-aten-to-linalg pass module.
from . import (  # noqa: F401
    activations,
    complex_ops,
    convolution,
    convolution_backward,
    creation,
    creation_arange,
    distance,
    elementwise,
    embedding,
    embedding_bag,
    fft,
    indexing,
    lower_pass,
    matmul,
    normalization,
    normalization_backward,
    padding,
    pooling,
    pooling_adaptive,
    pooling_backward,
    pooling_backward_avg,
    random,
    reductions,
    reductions_arg,
    reductions_scan,
    rnn,
    scalars,
    scatter,
    scatter_masked,
    shapes,
    sorting,
    unary,
    unary_pow,
    upsample,
    upsample_grid,
    views,
    views_slices,
)
from .registry import LOWERINGS, register_lowering

__all__ = ["LOWERINGS", "register_lowering"]
