"""Stage "decompose": any aten program -> the target op set, as MLIR rewrite patterns."""

from __future__ import annotations

from aten_mlir.frontend.program import Program, parse_module

from . import (  # noqa: F401  (registers the rules)
    activations,
    aliases,
    as_strided_storage,
    attention,
    convolution,
    creation,
    elementwise,
    factorizations,
    fft,
    indexing,
    linalg,
    losses,
    matrices,
    normalization,
    padding,
    pooling,
    prims,
    quantized,
    random,
    reductions,
    rnn,
    shapes,
    sorting,
    special,
    upsample,
    views,
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
