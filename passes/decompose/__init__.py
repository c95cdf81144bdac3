"""Stage "decompose": any aten program -> the target op set, as MLIR rewrite patterns.

The room holds the decomposition table (`registry.py`: `DECOMPOSITIONS`, and `KEPT_WHOLE` for the
ops left whole on purpose), one rule module per op family (`activations.py`, `views.py`, ...;
sub-families in `<family>_<concept>.py`), the helpers they share (`common.py`,
`elementwise_common.py`, `losses_common.py`, `upsample_index.py`, `upsample_aa.py`), the
`aten-decompose` / `aten-check-target` passes (`decompose_pass.py`), the `aten-as-strided-storage`
pass and the coverage report against torch's table (`coverage.py`).

It may import `aten_mlir.dialects`, `aten_mlir.frontend.program` (the Program `decompose` returns)
and the target-neutral helpers of `passes/` (`rules`, `registry`, `pipeline`, `monomials`); never
`aten_to_linalg` or a backend.

Every rule module is listed once in the table below and registers its rules when imported from
here; no module imports a sibling to make it register. Registration order does not matter: the
tables are keyed by op name and a name taken twice raises.
"""

from __future__ import annotations

from aten_mlir.frontend.program import Program, parse_module

# The rule table: every module that fills DECOMPOSITIONS or KEPT_WHOLE, plus the
# aten-as-strided-storage pass module.
from . import (  # noqa: F401
    activations,
    aliases,
    as_strided_storage,
    attention,
    attention_backward,
    composites,
    convolution,
    creation,
    elementwise,
    elementwise_math,
    elementwise_predicates,
    factorizations,
    factorizations_solve,
    factorizations_spectral,
    fft,
    fft_stft,
    indexing,
    indexing_backward,
    indexing_bag_backward,
    indexing_hist,
    indexing_search,
    indexing_strided,
    indexing_unique,
    linalg,
    losses,
    losses_distance,
    losses_distance_backward,
    losses_nll,
    matrices,
    matrices_einsum,
    matrices_trilinear,
    normalization,
    padding,
    pooling,
    pooling_backward,
    prims,
    quantized,
    random,
    random_dropout,
    reductions,
    reductions_matrix,
    reductions_scans,
    rnn,
    shapes,
    shapes_calculus,
    shapes_repeat,
    sorting,
    sorting_quantile,
    special,
    transformer_layers,
    upsample,
    upsample_grid,
    upsample_grid_backward,
    upsample_shuffle,
    views,
    views_more,
)
from .decompose_pass import DEFAULT_KEPT, AtenCheckTarget, AtenDecompose, ops_outside, target_set
from .registry import (
    DECOMPOSITIONS,
    KEPT_WHOLE,
    DecompositionRewriter,
    keep_whole,
    register_decomposition,
)


def decompose(program: Program, keep=(), only=()) -> Program:
    """A new Program with the ops outside the target set decomposed (same state and
    signature), as `torch._decomp.get_decompositions` + `run_decompositions` do for FX."""
    from aten_mlir.passes.pipeline import run_pipeline

    module = parse_module(program.text(debug_info=True), "<decompose>")
    run_pipeline(module, f"{AtenDecompose(keep=tuple(keep), only=tuple(only))},aten-verify")
    return program.with_module(module)


__all__ = [
    "DECOMPOSITIONS",
    "DEFAULT_KEPT",
    "AtenCheckTarget",
    "AtenDecompose",
    "DecompositionRewriter",
    "KEPT_WHOLE",
    "decompose",
    "keep_whole",
    "ops_outside",
    "register_decomposition",
    "target_set",
]
