"""aten-mlir: torch.export programs -> an ATen MLIR dialect -> linalg -> loops -> CPU / Triton.

ep = torch.export.export(model, example_inputs)
program = aten_mlir.import_program(ep)      # aten dialect, verified
print(program)                              # the IR
outputs = aten_mlir.run_reference(program, *example_inputs)
compiled = aten_mlir.compile(ep)                # native CPU code
outputs = compiled(*example_inputs)
"""

from .backends.compiler import CompileError, compile
from .backends.reference import ReferenceError, run_reference
from .backends.runtime import CompiledProgram, Fallback
from .dialects import AtenVerificationError, verify_module
from .frontend import IRParseError, Program, UnsupportedOpError, import_program
from .passes.decompose import decompose

__version__ = "0.1.0"

__all__ = [
    "AtenVerificationError",
    "CompileError",
    "CompiledProgram",
    "Fallback",
    "IRParseError",
    "Program",
    "ReferenceError",
    "UnsupportedOpError",
    "compile",
    "decompose",
    "import_program",
    "run_reference",
    "verify_module",
]
