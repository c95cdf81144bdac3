"""Target-neutral passes over aten IR and what runs them: the pass registry (`registry.py`:
`ModulePass`, `PASSES`, `get_pass`), mlir-opt style pipelines (`pipeline.py`), the rule tables'
mechanism (`rules.py`), the shared IR queries (`ir/`) and one folder per IR level (`aten/`,
`decompose/`, `aten_to_linalg/`, `linalg/`, `bufferization/`, `memref/`).

Every pass of the tree (these and the backends' `cpu-*` / `triton-*`) has a line in
`aten_mlir.pass_table`; `PASSES` imports a pass's module the first time the pass is looked up
or listed, so no pass depends on what happens to be imported.
May import: `mlir`, `aten_mlir.dialects`, `aten_mlir.registry`, `aten_mlir.pass_table`; never
`aten_mlir.backends` (a backend imports passes, not the other way round).
"""

from . import (  # noqa: F401  (the rooms, for their public names; passes register lazily)
    aten,
    aten_to_linalg,
    bufferization,
    decompose,
    linalg,
    memref,
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
