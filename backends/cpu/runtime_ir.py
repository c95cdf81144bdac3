"""LLVM IR linked into every module the CPU backend builds, and the rewrite that sends its
allocations to the runtime's cache."""

import re

# f32 -> bf16 rounding (nearest-even, NaNs stay quiet). LLVM calls this libcall on CPUs without
# native bf16 conversion and libgcc only has it from GCC 13; hidden and weak, so a libgcc copy or
# another module's copy never clashes.
RUNTIME_IR = b"""
define weak hidden bfloat @__truncsfbf2(float %x) {
  %bits = bitcast float %x to i32
  %abs = and i32 %bits, 2147483647
  %nan = icmp ugt i32 %abs, 2139095040
  %high = lshr i32 %bits, 16
  %lsb = and i32 %high, 1
  %bias = add i32 %lsb, 32767
  %sum = add i32 %bits, %bias
  %rounded = lshr i32 %sum, 16
  %quiet = or i32 %high, 64
  %pick = select i1 %nan, i32 %quiet, i32 %rounded
  %half = trunc i32 %pick to i16
  %out = bitcast i16 %half to bfloat
  ret bfloat %out
}
"""


# `@malloc` / `@free` as a callee or declaration in LLVM IR text (not `@malloc.x`, `@free_list`)
_ALLOCATOR = re.compile(rb"@(malloc|free)(?![\w.$])")
_RUNTIME_ALLOCATOR = {b"malloc": b"@aten_mlir_alloc", b"free": b"@aten_mlir_free"}


def route_allocations(llvm_ir: bytes) -> bytes:
    """`llvm_ir` with the compiled code's malloc / free calls going to runtime_support.c's
    size-keyed cache of temporaries (`aten_mlir_alloc` / `aten_mlir_free`): memref.alloc
    lowers to malloc, and glibc gives MiB blocks back to the OS on free, so each call faulted
    them in again. Only for libraries linked with runtime_support.c."""
    return _ALLOCATOR.sub(lambda m: _RUNTIME_ALLOCATOR[m.group(1)], llvm_ir)
