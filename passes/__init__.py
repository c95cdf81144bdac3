"""Passes over aten IR: a registry of named passes and mlir-opt style pipelines."""

from . import (  # noqa: F401  (registers the passes)
    accurate_math,
    aten_to_linalg,
    c_interface,
    contraction_prologue,
    cpu_contractions,
    cpu_copies,
    cpu_fuse_row_nests,
    cpu_parallelize,
    cpu_vectorize,
    decompose,
    drop_dead,
    fast_math,
    outline_nests,
    outline_repeats,
    reuse_dead_inputs,
    split_deallocs,
    unshare_fills,
    verify,
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
