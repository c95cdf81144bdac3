"""Stage "import": ExportedProgram -> `Program` (a module of aten ops, its state and signature)."""

from .importer import UnsupportedOpError, import_program
from .program import InputSpec, IRParseError, OutputSpec, Program, Signature, parse_module

__all__ = [
    "IRParseError",
    "InputSpec",
    "OutputSpec",
    "Program",
    "Signature",
    "UnsupportedOpError",
    "import_program",
    "parse_module",
]
