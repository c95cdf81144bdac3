"""The CPU backend: LLVM-dialect modules to cached native shared libraries, called on tensors.

lib = compile_llvm_module(llvm_module)                 # builds, or loads from the disk cache
f = lib.function("f", ["memref<2x?xf32>"], ["memref<2xf32>"])
(out,) = f(torch.randn(2, 5))
"""

from .abi import NativeFunction, parse_memref_type
from .cache import compiler_version, default_cache_dir
from .native import NativeBuildError, NativeLibrary, compile_llvm_module, load_cached_library

__all__ = [
    "NativeBuildError",
    "NativeFunction",
    "NativeLibrary",
    "compile_llvm_module",
    "compiler_version",
    "default_cache_dir",
    "load_cached_library",
    "parse_memref_type",
]
