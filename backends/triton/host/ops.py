"""Launcher (host) translations: allocations, views, copies and scalar arithmetic between
kernel launches, one rule per op name (`@HOST.register("memref.alloc")`, a rule `fn(w, op)`
writing through the segment writer `w`).

Host integers are Python ints wrapped to their width; host floats are numpy scalars of their
precision (bfloat16 rounded through torch), so sizes, seeds and 0-d computations match the
device's arithmetic bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from aten_mlir.dialects import dtype_of
from aten_mlir.registry import Registry

from ..codegen.kernel_types import KernelError

HOST: Registry[Callable] = Registry("Triton host op")


_HOST_BINARY = {
    "arith.addi": "({a} + {b})",
    "arith.subi": "({a} - {b})",
    "arith.muli": "({a} * {b})",
    "arith.addf": "({a} + {b})",
    "arith.subf": "({a} - {b})",
    "arith.mulf": "({a} * {b})",
    "arith.divf": "({a} / {b})",
    "arith.floordivsi": "({a} // {b})",
    "arith.ceildivsi": "(-(-{a} // {b}))",
    "arith.divsi": "int({a} / {b})",
    "arith.divui": "({a} // {b})",
    "arith.remsi": "int(math.fmod({a}, {b}))",
    "arith.remui": "({a} % {b})",
    "arith.maxsi": "max({a}, {b})",
    "arith.minsi": "min({a}, {b})",
    "arith.maxui": "max({a}, {b})",
    "arith.minui": "min({a}, {b})",
    "arith.andi": "({a} & {b})",
    "arith.ori": "({a} | {b})",
    "arith.xori": "({a} ^ {b})",
}
_HOST_CMPI = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">=", 6: "<", 7: "<=", 8: ">", 9: ">="}
_HOST_CASTS = (
    "arith.index_cast",
    "arith.index_castui",
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
    "arith.sitofp",
    "arith.uitofp",
    "arith.extf",
    "arith.truncf",
    "arith.fptosi",
    "arith.bitcast",
)
# Host scalars are Python ints (wrapped to their width) and numpy floats (their precision).
_HOST_EXTRA = {
    "arith.shli": "({a} << {b})",
    "arith.shrsi": "({a} >> {b})",
    "arith.shrui": "(unsigned({a}, WIDTH) >> {b})",
    "arith.negf": "(-{a})",
    "arith.remf": "np.fmod({a}, {b})",
    "arith.maximumf": "maximumf({a}, {b})",
    "arith.minimumf": "minimumf({a}, {b})",
    "arith.maxnumf": "np.fmax({a}, {b})",
    "arith.minnumf": "np.fmin({a}, {b})",
    "math.sqrt": "np.sqrt({a})",
    "math.exp": "np.exp({a})",
    "math.log": "np.log({a})",
    "math.log1p": "np.log1p({a})",
    "math.expm1": "np.expm1({a})",
    "math.tanh": "np.tanh({a})",
    "math.absf": "np.abs({a})",
    "math.absi": "abs({a})",
    "math.floor": "np.floor({a})",
    "math.ceil": "np.ceil({a})",
    "math.trunc": "np.trunc({a})",
    "math.roundeven": "np.rint({a})",
    "math.sin": "np.sin({a})",
    "math.cos": "np.cos({a})",
    "math.erf": "erf({a})",
    "math.powf": "np.power({a}, {b})",
    "math.log2": "np.log2({a})",
    "math.log10": "np.log10({a})",
    "math.copysign": "np.copysign({a}, {b})",
    "math.atan2": "np.arctan2({a}, {b})",
    "math.atan": "np.arctan({a})",
    "math.asin": "np.arcsin({a})",
    "math.acos": "np.arccos({a})",
    "math.sinh": "np.sinh({a})",
    "math.cosh": "np.cosh({a})",
    "math.asinh": "np.arcsinh({a})",
    "math.acosh": "np.arccosh({a})",
    "math.atanh": "np.arctanh({a})",
    "math.tan": "np.tan({a})",
    "math.rsqrt": "(1 / np.sqrt({a}))",
    "math.erfc": "erfc({a})",
    "math.round": "round_half_away({a})",
    "math.fma": "({0} * {1} + {2})",
    "math.ipowi": "ipowi({a}, {b})",
    "math.fpowi": "np.power({a}, {b})",
}


@HOST.register("arith.constant")
def _constant(w, op):
    w.names[op.results[0]] = host_constant(op)


@HOST.register_each(*_HOST_BINARY, *_HOST_EXTRA)
def _arith(w, op):
    operands = [w.v(o) for o in op.operands]
    fmt = _HOST_BINARY.get(op.name) or _HOST_EXTRA[op.name]
    if "WIDTH" in fmt:
        fmt = fmt.replace("WIDTH", str(_width(op.operands[0].type)))
    expr = fmt.format(*operands, a=operands[0], b=operands[-1])
    w.define(op.results[0], typed(expr, op.results[0].type))


@HOST.register("arith.cmpi")
def _cmpi(w, op):
    pred = ir.IntegerAttr(op.attributes["predicate"]).value
    a, b = (w.v(o) for o in op.operands)
    if pred >= 6:
        t = op.operands[0].type
        a, b = f"unsigned({a}, {_width(t)})", f"unsigned({b}, {_width(t)})"
    w.define(op.results[0], f"({a} {_HOST_CMPI[pred]} {b})")


@HOST.register("arith.cmpf")
def _cmpf(w, op):
    pred = ir.IntegerAttr(op.attributes["predicate"]).value
    a, b = (w.v(o) for o in op.operands)
    w.define(op.results[0], f"cmpf({pred}, {a}, {b})")


@HOST.register("math.ctlz")
def _ctlz(w, op):
    # leading zeros of the value's bits (a sort's stage count: log2 of a dynamic size)
    width = _width(op.operands[0].type)
    bits = f"unsigned({w.v(op.operands[0])}, {width})"
    w.define(op.results[0], typed(f"({width} - {bits}.bit_length())", op.results[0].type))


@HOST.register("arith.select")
def _select(w, op):
    c, a, b = (w.v(o) for o in op.operands)
    w.define(op.results[0], f"({a} if {c} else {b})")


@HOST.register_each(*_HOST_CASTS)
def _cast(w, op):
    value = w.v(op.operands[0])
    if op.name in ("arith.extui", "arith.uitofp", "arith.index_castui"):
        value = f"unsigned({value}, {_width(op.operands[0].type)})"
    if op.name == "arith.fptosi":
        value = f"fptosi({value}, {_width(op.results[0].type)})"
    w.define(op.results[0], typed(value, op.results[0].type))


@HOST.register_each("memref.alloc", "memref.alloca")
def _alloc(w, op):
    t = ir.MemRefType(op.results[0].type)
    shape = _shape(w, t, iter(op.operands))
    dtype = torch_dtype(t.element_type)
    w.define(op.results[0], f"pool.empty([{', '.join(shape)}], {dtype}, dev)")


@HOST.register("memref.dealloc")
def _dealloc(w, op):
    w.emit(f"pool.release({w.v(op.operands[0])})")


@HOST.register("memref.dim")
def _dim(w, op):
    w.define(op.results[0], f"{w.v(op.operands[0])}.shape[{w.v(op.operands[1])}]")


@HOST.register("memref.extract_aligned_pointer_as_index")
def _base_pointer(w, op):
    # the deallocation pipeline compares buffers' base pointers when a buffer may alias another
    # (a result picked at run time); each pool allocation owns its storage
    w.define(op.results[0], f"{w.v(op.operands[0])}.untyped_storage().data_ptr()")


@HOST.register_each("memref.cast", "memref.assume_alignment")
def _alias(w, op):
    w.names[op.results[0]] = w.v(op.operands[0])


@HOST.register_each("memref.expand_shape", "memref.collapse_shape")
def _reshape(w, op):
    t = ir.MemRefType(op.results[0].type)
    if op.name == "memref.expand_shape":
        shape = _shape(w, t, iter(op.operands[1:]))
    else:
        shape = _collapsed_shape(w, op)
    w.define(op.results[0], f"{w.v(op.operands[0])}.view([{', '.join(shape)}])")


@HOST.register("memref.subview")
def _subview(w, op):
    w.define(op.results[0], _host_subview(w, op))


@HOST.register("memref.copy")
def _copy(w, op):
    src, dst = (w.v(o) for o in op.operands)
    w.emit(f"copy({dst}, {src})")


@HOST.register("memref.load")
def _load(w, op):
    memref, *indices = op.operands
    idx = ", ".join(w.v(i) for i in indices)
    target = f"{w.v(memref)}[({idx},)]" if idx else w.v(memref)
    w.define(op.results[0], f"scalar({target})")


@HOST.register("memref.store")
def _store(w, op):
    value, memref, *indices = op.operands
    idx = ", ".join(w.v(i) for i in indices)
    index = f"({idx},)" if idx else "()"
    w.emit(f"store({w.v(memref)}, {index}, {w.v(value)})")


@HOST.register("func.return")
def _return(w, op):
    outs = ", ".join(w.v(o) for o in op.operands)
    w.emit(f"return ({outs},)" if outs else "return ()")


def _shape(w, t: ir.MemRefType, dynamic) -> list[str]:
    return [
        w.v(next(dynamic)) if t.is_dynamic_dim(d) else str(t.get_dim_size(d)) for d in range(t.rank)
    ]


def host_constant(op: ir.Operation) -> str:
    attr = op.attributes["value"]
    t = op.results[0].type
    if isinstance(attr, ir.BoolAttr):
        return str(ir.BoolAttr(attr).value)
    if isinstance(t, (ir.IndexType, ir.IntegerType)):
        v = ir.IntegerAttr(attr).value
        return (
            str(bool(v))
            if isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1
            else str(v)
        )
    return typed(f'float("{ir.FloatAttr(attr).value}")', t)


def torch_dtype(t: ir.Type) -> str:
    if isinstance(t, ir.IndexType):
        return "torch.int64"
    return f"torch.{str(dtype_of(t)).removeprefix('torch.')}"


def _width(t: ir.Type) -> int:
    return 64 if isinstance(t, ir.IndexType) else ir.IntegerType(t).width


_NP = {"f16": "np.float16", "f32": "np.float32", "f64": "np.float64", "bf16": "bf16"}


def typed(expr: str, t: ir.Type) -> str:
    """A host expression given the semantics of MLIR type `t`: ints wrap to their width (i1 is a
    bool), floats are numpy scalars of their precision."""
    if isinstance(t, ir.IndexType):
        return f"int({expr})"
    if isinstance(t, ir.IntegerType):
        width = ir.IntegerType(t).width
        return f"bool({expr})" if width == 1 else f"wrap(int({expr}), {width})"
    name = _NP.get(str(t))
    if name is None:
        raise KernelError(f"host scalars of type {t} are not supported")
    return f"{name}({expr})"


def _collapsed_shape(w, op: ir.Operation) -> list[str]:
    src = w.v(op.operands[0])
    groups = [
        [ir.IntegerAttr(i).value for i in g] for g in ir.ArrayAttr(op.attributes["reassociation"])
    ]
    return ["*".join(f"{src}.shape[{d}]" for d in g) or "1" for g in groups]


def _host_subview(w, op: ir.Operation) -> str:
    def mixed(static_name: str, dyn):
        static = ir.DenseI64ArrayAttr(op.attributes[static_name])
        out = []
        for s in static:
            out.append(
                w.v(next(dyn))
                if s == ir.ShapedType.get_dynamic_stride_or_offset()
                or s == ir.ShapedType.get_dynamic_size()
                else str(s)
            )
        return out

    operands = list(op.operands[1:])
    segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    n_off, n_size, n_stride = segments[1], segments[2], segments[3]
    offs = iter(operands[:n_off])
    sizes = iter(operands[n_off : n_off + n_size])
    strides = iter(operands[n_off + n_size : n_off + n_size + n_stride])
    o = mixed("static_offsets", offs)
    s = mixed("static_sizes", sizes)
    st = mixed("static_strides", strides)
    rt = ir.MemRefType(op.results[0].type)
    shape = [None if rt.is_dynamic_dim(d) else rt.get_dim_size(d) for d in range(rt.rank)]
    return (
        f"subview({w.v(op.operands[0])}, [{', '.join(o)}], [{', '.join(s)}], "
        f"[{', '.join(st)}], {shape})"
    )
