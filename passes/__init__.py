"""Passes over aten IR: a registry of named passes and mlir-opt style pipelines."""

from . import (  # noqa: F401  (registers the passes)
    aten_to_linalg,
    clamp_indices,
    clone_broadcast_producers,
    contraction_prologue,
    decompose,
    drop_dead,
    dynamic_expands,
    expand_casts,
    outline_repeats,
    reuse_dead_inputs,
    split_deallocs,
    unshare_fills,
    verify,
    widen_i1_memrefs,
)
from .pipeline import (
    NestedPipeline,
    PassElement,
    PipelineFailedError,
    build_pass_manager,
    parse_pipeline,
    run_pipeline,
)
from .registry import (
    PASSES,
    ModulePass,
    PassFailure,
    PassOptionError,
    PipelineError,
    UnknownPassError,
    get_pass,
    option,
    register_pass,
)

__all__ = [
    "PASSES",
    "ModulePass",
    "NestedPipeline",
    "PassElement",
    "PassFailure",
    "PassOptionError",
    "PipelineError",
    "PipelineFailedError",
    "UnknownPassError",
    "build_pass_manager",
    "get_pass",
    "option",
    "parse_pipeline",
    "register_pass",
    "run_pipeline",
]
