"""Ahead-of-time compilation of a program's kernels for a GPU target, on a machine with none.

`triton.compile(ASTSource(fn, signature, constexprs), target=GPUTarget(...))` runs Triton's
whole pipeline (TTIR -> TTGIR -> LLVM -> PTX/cubin via the bundled ptxas, or AMDGCN/hsaco); the
signature comes from the kernel's parameters: memrefs are typed pointers, strides, sizes and
trip counts 32-bit ints, captured scalars their own type.
"""

from __future__ import annotations

from .codegen.kernel_types import Kernel
from .codegen.matmul import PAIR_STRIDES
from .host.module_files import execute


def signature(kernel: Kernel) -> dict[str, str]:
    sig = {p.name: p.sig for p in kernel.params}
    if kernel.mode == "matmul":
        for name in "M N K K2 B1 sa0 sa1 sam sak sak2 sb0 sb1 sbk sbn sbk2 sc0 sc1 scm scn".split():
            sig[name] = "i32"
        if "bq" in sig:
            sig.update({name: "i32" for name in PAIR_STRIDES})
        return {
            **sig,
            "BM": "constexpr",
            "BN": "constexpr",
            "BK": "constexpr",
            "PRECISION": "constexpr",
        }
    if kernel.mode == "conv":
        names = "NB C IH IW F OH OW KH KW sa0 sa1 sa2 sa3 sb0 sb1 sb2 sb3 sc0 sc1 sc2 sc3"
        for name in (names + " SH SW DH DW PH PW").split():
            sig[name] = "i32"
        return {
            **sig,
            "BM": "constexpr",
            "BN": "constexpr",
            "BK": "constexpr",
            "PRECISION": "constexpr",
        }
    if kernel.mode == "block":
        sig["XBLOCK"] = "constexpr"
    return sig


def constexprs(kernel: Kernel, xblock: int) -> dict:
    if kernel.mode in ("matmul", "conv"):
        import torch

        precision = "ieee" if torch.get_float32_matmul_precision() == "highest" else "tf32"
        return {"BM": 64, "BN": 64, "BK": 32, "PRECISION": precision}
    return {"XBLOCK": xblock} if kernel.mode == "block" else {}


def compile_kernels(library, target, xblock: int = 1024) -> dict[str, dict]:
    import triton
    from triton.compiler import ASTSource

    was = triton.knobs.runtime.interpret
    triton.knobs.runtime.interpret = False  # compiling needs JIT functions, not interpreted ones
    try:
        module = _jit_module(library)
        out = {}
        for kernel in library.kernels:
            fn = getattr(module, kernel.name)
            source = ASTSource(fn, signature(kernel), constexprs=constexprs(kernel, xblock))
            compiled = triton.compile(source, target=target)
            out[kernel.name] = dict(compiled.asm)
        return out
    finally:
        triton.knobs.runtime.interpret = was


def _jit_module(library):
    """The generated module executed again (from its text) with interpretation off: JIT
    functions."""
    return execute(library.source, library.path, f"aten_mlir_triton_aot_{library.path.stem}")
