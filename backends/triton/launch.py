"""What generated launchers call at run time: buffer pool, views, block sizes."""

from __future__ import annotations

import math
import os

import numpy as np
import torch


def interpreting() -> bool:
    """Kernels run in Triton's interpreter when no GPU is present (or when asked)."""
    return os.environ.get("TRITON_INTERPRET") == "1" or not torch.cuda.is_available()


def xblock(total: int) -> int:
    """Lanes per program: large under the interpreter (each program is one numpy pass), 1024 on
    a GPU (4 warps of 8 elements per thread)."""
    if interpreting():
        return max(16, min(1 << max(total - 1, 1).bit_length(), 1 << 16))
    return 1024


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def count(lb: int, ub: int, step: int) -> int:
    return max(0, cdiv(ub - lb, step))


class Pool:
    """Buffers whose lifetime ended (`memref.dealloc`) are reused by later allocations of the
    same byte size on the same device, as a caching allocator does, within one call."""

    def __init__(self):
        self.free: dict = {}

    def empty(self, shape, dtype, device) -> torch.Tensor:
        shape = [int(s) for s in shape]
        numel = 1
        for s in shape:
            numel *= s
        nbytes = numel * torch.empty((), dtype=dtype).element_size()
        stack = self.free.get((nbytes, str(device)))
        if stack:
            storage = stack.pop()
            return torch.empty(0, dtype=dtype, device=device).set_(storage, 0, shape)
        return torch.empty(shape, dtype=dtype, device=device)

    def release(self, t: torch.Tensor) -> None:
        storage = t.untyped_storage()
        self.free.setdefault((storage.nbytes(), str(t.device)), []).append(storage)


def copy(dst: torch.Tensor, src: torch.Tensor) -> None:
    """`memref.copy` (a device copy kernel; named so that traffic reports see it)."""
    dst.copy_(src)


def subview(t: torch.Tensor, offsets, sizes, strides, result_shape) -> torch.Tensor:
    """`memref.subview`: a strided window of `t`; unit dims the result type drops are dropped
    (left to right, as MLIR matches them)."""
    offset = t.storage_offset() + sum(int(o) * s for o, s in zip(offsets, t.stride()))
    new_strides = [int(st) * s for st, s in zip(strides, t.stride())]
    sizes = [int(s) for s in sizes]
    view = t.as_strided(sizes, new_strides, offset)
    if len(result_shape) == len(sizes):
        return view
    keep, r = [], 0
    for d, s in enumerate(sizes):
        if r == len(result_shape):
            break
        want = result_shape[r]
        # a static result size matches greedily, as MLIR does; a dynamic one leaves a unit dim
        # to drop while more dims remain than the result has left
        if want == s or (want is None and not (s == 1 and len(sizes) - d > len(result_shape) - r)):
            keep.append(d)
            r += 1
    return view.as_strided([sizes[d] for d in keep], [new_strides[d] for d in keep], offset)


def helpers():
    """The helper functions (`helpers.py`) as a module of the current mode: interpreted helpers
    for interpreted kernels, JIT ones for kernels being compiled (Triton does not mix them)."""
    import importlib.util
    import sys
    from pathlib import Path

    import triton

    mode = "interpreted" if triton.knobs.runtime.interpret else "jit"
    name = f"aten_mlir_triton_helpers_{mode}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("helpers.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def matmul_blocks(m: int, n: int, k: int) -> tuple[int, int, int]:
    """Tile sizes from the problem: up to 64 x 64 output tiles and 32-deep K steps (at least
    16 each, as tl.dot needs); whole small problems in one tile."""

    def fit(size: int, cap: int) -> int:
        return max(16, min(cap, 1 << max(size - 1, 1).bit_length()))

    return fit(m, 64), fit(n, 64), fit(k, 32)


def row_blocks(m: int, n: int, k: int) -> tuple[int, int, int]:
    """Tile sizes for a product whose tail reduces along its rows: one column tile holds a
    whole row; fewer rows per tile as rows grow, to keep the tile at most 64 x 64 elements."""
    bm, _, bk = matmul_blocks(m, n, k)
    bn = max(16, 1 << max(n - 1, 1).bit_length())
    return max(16, min(bm, 4096 // bn)), bn, bk


def matmul_precision(a: torch.Tensor) -> str:
    if a.dtype == torch.float32 and torch.get_float32_matmul_precision() == "highest":
        return "ieee"
    return "tf32"


def stdlib():
    """Triton's standard-library functions (`tl.sum`, `tl.zeros`, ...) usable in the current
    mode. They are JIT functions made when triton was first imported; if the interpreter was
    switched on later (torch imports triton early), calling them from an interpreted kernel
    fails, so they are re-wrapped as interpreted functions. Generated code calls them through
    this namespace, never as `tl.<name>`."""
    import types

    import triton
    import triton.language as tl
    from triton.runtime.jit import JITFunction

    if not triton.knobs.runtime.interpret:
        return tl
    from triton.runtime.interpreter import InterpretedFunction

    names = {}
    for name in dir(tl.standard):
        value = getattr(tl.standard, name)
        if isinstance(value, JITFunction):
            names[name] = InterpretedFunction(value.fn)
    return types.SimpleNamespace(**names)


# -- host scalars: what the launcher computes between launches (sizes, seeds, 0-d values) ------
def wrap(v: int, bits: int) -> int:
    """`v` as a signed `bits`-wide integer (two's complement wrap-around)."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def fptosi(v, bits: int) -> int:
    """A host float -> signed int conversion as the CPU's truncating one (x86 `cvttsd2si`):
    NaN, infinities and values out of range give the "integer indefinite" (the lowest value
    of 32 or 64 bits, narrower results truncate a 32-bit conversion), where Python's `int()`
    raises; eager's CPU kernels convert the same way."""
    v = float(v)
    wide = 64 if bits > 32 else 32
    if v != v or not -(2.0 ** (wide - 1)) <= v < 2.0 ** (wide - 1):
        return -(1 << (wide - 1))
    return int(v)


def unsigned(v, bits: int) -> int:
    return int(v) & ((1 << bits) - 1)


def scalar(t: torch.Tensor):
    """A 0-d tensor's value as a host scalar of its precision (numpy float, or int/bool)."""
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: host bf16 scalars are float32
        return np.float32(t.item())
    value = t.detach().cpu().numpy()[()]
    return value if value.dtype.kind == "f" else value.item()


def cmpf(predicate: int, a, b) -> bool:
    """`arith.cmpf` on host floats (0 false ... 15 true, as MLIR numbers them)."""
    unordered = bool(np.isnan(a) or np.isnan(b))
    ordered = {1: a == b, 2: a > b, 3: a >= b, 4: a < b, 5: a <= b, 6: a != b, 7: True}
    if predicate == 0:
        return False
    if predicate == 15:
        return True
    if predicate <= 7:
        return not unordered and bool(ordered[predicate])
    if predicate == 14:
        return unordered
    return unordered or bool(ordered[predicate - 7] if predicate != 13 else a != b)


def maximumf(a, b):
    return a if np.isnan(a) else b if np.isnan(b) else np.maximum(a, b)


def minimumf(a, b):
    return a if np.isnan(a) else b if np.isnan(b) else np.minimum(a, b)


def erf(a):
    return type(a)(math.erf(float(a)))


def erfc(a):
    return type(a)(math.erfc(float(a)))


def ipowi(a: int, b: int) -> int:
    """`math.ipowi`: a ** b by squaring (the caller wraps it to the width); a negative b gives
    0 unless |a| is 1, as integer division would."""
    if b >= 0:
        return a**b
    return 1 if a == 1 else (1 if b % 2 == 0 else -1) if a == -1 else 0


def round_half_away(a):
    return type(a)(np.sign(a) * np.floor(np.abs(a) + 0.5))


def bf16(a):
    """A host bfloat16 scalar: the value rounded to bfloat16, carried as a numpy float32."""
    return np.float32(torch.tensor(float(a), dtype=torch.bfloat16).item())


def store(t: torch.Tensor, index, value) -> None:
    """A host scalar written into `t` (numpy scalars as exact Python numbers)."""
    t[index] = value.item() if isinstance(value, np.generic) else value
