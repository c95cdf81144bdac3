"""The data of generated kernels: Triton type spellings, parameters, kernels, in-kernel views,
and the two ways writing one fails (`KernelError`; `NeedScalar`, caught by the launcher)."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir


class KernelError(RuntimeError):
    """An op the Triton emitter cannot express (names the op and the user's line)."""


class NeedScalar(Exception):
    """Lane-dependent control flow: the nest is re-emitted in scalar mode."""


_TL_TYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64"}


_SIG = {"f16": "fp16", "bf16": "bf16", "f32": "fp32", "f64": "fp64"}


def scalar_signature(t: ir.Type) -> str:
    if isinstance(t, ir.IndexType):
        return "i64"
    if isinstance(t, ir.IntegerType):
        return f"i{ir.IntegerType(t).width}"
    return _SIG[str(t)]


def param_signature(kind: str, source) -> str:
    if kind == "result":
        return "*" + scalar_signature(source.type)
    if kind == "memref":
        return "*" + scalar_signature(ir.MemRefType(source.type).element_type)
    if kind == "scalar":
        return scalar_signature(source.type)
    return "i32"


def tl_type(t: ir.Type) -> str:
    if isinstance(t, ir.IndexType):
        return "tl.int64"
    if isinstance(t, ir.IntegerType):
        return f"tl.int{ir.IntegerType(t).width}"
    name = _TL_TYPES.get(str(t))
    if name is None:
        raise KernelError(f"no Triton type for {t}")
    return f"tl.{name}"


@dataclass
class View:
    """A memref inside a kernel: pointer expression, element offset, strides and sizes."""

    ptr: str
    offset: str
    strides: list[str]
    sizes: list[str]


@dataclass
class Param:
    name: str
    kind: str  # "memref" (a tensor), "stride" / "size" (of memref `source`, dim), "scalar"
    source: ir.Value | None  # only while the launcher is written (the IR is freed after)
    dim: int = -1
    sig: str = "i32"  # its Triton signature type, for ahead-of-time compilation


@dataclass
class Kernel:
    name: str
    mode: str
    source: str
    params: list[Param]
    bounds: list = field(default_factory=list)  # (lb, ub, step) values of the parallel dims
    ops: list[str] = field(default_factory=list)  # "aten.x (file:line)" fused in
    reads: set = field(default_factory=set)  # names of the memref params it loads from
    writes: set = field(default_factory=set)  # ... and stores to
