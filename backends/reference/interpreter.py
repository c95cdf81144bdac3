"""`run_reference`: executes aten IR by calling the matching `torch.ops.aten` overload per op.

It is the oracle the importer and the decompositions are checked against: no lowering, eager
kernels only. The few non-aten ops the frontend emits for symbolic sizes (`tensor.dim`, `arith`
on `index`) have small kernels in `REFERENCE_KERNELS`.
"""

from __future__ import annotations

import operator

import torch
from mlir import ir

from aten_mlir.dialects import ResultKind, describe_location, dtype_of, op_arguments
from aten_mlir.dialects.opaque import display_name, op_def_of
from aten_mlir.frontend.index_checks import raise_if_flagged
from aten_mlir.frontend.program import Program
from aten_mlir.registry import Registry

REFERENCE_KERNELS: Registry = Registry("reference kernel")


class ReferenceError(RuntimeError):
    """An op the reference interpreter cannot run, or a failing eager kernel; names op and line."""


def reference_kernel(*op_names):
    """Registers the interpreter kernel `fn(op, *operand_values)` for non-aten ops."""
    return REFERENCE_KERNELS.register_each(*op_names)


def _binary(fn):
    return lambda op, a, b: fn(a, b)


for _name, _fn in {
    "arith.addi": operator.add,
    "arith.subi": operator.sub,
    "arith.muli": operator.mul,
    "arith.floordivsi": operator.floordiv,
    "arith.maxsi": max,
    "arith.minsi": min,
    "arith.andi": operator.and_,
    "arith.ori": operator.or_,
    "arith.xori": operator.xor,
    "arith.addf": operator.add,
    "arith.subf": operator.sub,
    "arith.mulf": operator.mul,
    "arith.divf": operator.truediv,
}.items():
    reference_kernel(_name)(_binary(_fn))


@reference_kernel("arith.remsi")
def _remsi(op, a, b):
    rem = abs(a) % abs(b)  # C remainder: the sign follows the dividend
    return rem if a >= 0 else -rem


@reference_kernel("arith.divsi")
def _divsi(op, a, b):
    quotient = abs(a) // abs(b)  # C division truncates toward zero
    return quotient if (a >= 0) == (b >= 0) else -quotient


_CMP = {
    0: operator.eq,
    1: operator.ne,
    2: operator.lt,
    3: operator.le,
    4: operator.gt,
    5: operator.ge,
}


@reference_kernel("arith.cmpi")
def _cmpi(op, a, b):
    return _CMP[ir.IntegerAttr(op.attributes["predicate"]).value](a, b)


@reference_kernel("arith.select")
def _select(op, c, a, b):
    return a if c else b


@reference_kernel("arith.constant")
def _constant(op):
    attr = op.attributes["value"]
    if isinstance(attr, ir.BoolAttr):
        return bool(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        is_bool = isinstance(attr.type, ir.IntegerType) and attr.type.width == 1
        return bool(attr.value) if is_bool else attr.value
    if isinstance(attr, ir.FloatAttr):
        return attr.value
    raise ReferenceError(f"arith.constant of {attr} is not a scalar")


@reference_kernel("arith.index_cast", "arith.index_castui")
def _index_cast(op, a):
    return int(a)


@reference_kernel("arith.sitofp", "arith.uitofp", "arith.extf", "arith.truncf")
def _to_float(op, a):
    return float(a)  # Python floats are doubles: truncf to f32 rounds later, where it is stored


@reference_kernel("arith.fptosi", "arith.fptoui")
def _to_int(op, a):
    return int(a)  # truncates toward zero, as the cast does


@reference_kernel("arith.maximumf", "arith.minimumf")
def _extremum_f(op, a, b):
    if a != a or b != b:
        return float("nan")  # these two propagate NaN
    return max(a, b) if op.name == "arith.maximumf" else min(a, b)


@reference_kernel("arith.negf")
def _negf(op, a):
    return -a


# arith.cmpf predicates: 1..6 ordered (false on NaN), 8..13 unordered (true on NaN).
_FCMP = {
    1: operator.eq,
    2: operator.gt,
    3: operator.ge,
    4: operator.lt,
    5: operator.le,
    6: operator.ne,
}


@reference_kernel("arith.cmpf")
def _cmpf(op, a, b):
    p = ir.IntegerAttr(op.attributes["predicate"]).value
    unordered = a != a or b != b
    if p in (0, 15):
        return p == 15
    if p == 7:
        return not unordered
    if p == 14:
        return unordered
    if p < 7:
        return not unordered and _FCMP[p](a, b)
    return unordered or _FCMP[p - 7](a, b)


@reference_kernel("arith.ceildivsi", "arith.ceildivui")
def _ceildiv(op, a, b):
    return -((-a) // b)


@reference_kernel("arith.divui")
def _divui(op, a, b):
    return a // b


@reference_kernel("tensor.dim")
def _dim(op, t, d):
    return t.shape[d]


@reference_kernel("tensor.from_elements")
def _from_elements(op, *values):
    """A scalar entering a compiled segment, boxed as a 0-d tensor."""
    t = ir.RankedTensorType(op.results[0].type)
    return torch.tensor(values, dtype=dtype_of(t.element_type)).reshape(t.shape)


@reference_kernel("tensor.extract")
def _extract(op, t, *indices):
    """A scalar leaving a native segment, unboxed from its 0-d tensor."""
    return t[tuple(indices)].item()


def _substitute(value, env):
    if isinstance(value, ir.Value):
        return env[value]
    if isinstance(value, list):
        return [_substitute(v, env) for v in value]
    return value


def run_aten_op(op: ir.Operation, env: dict):
    opdef = op_def_of(op)  # an opaque call runs the overload it names, as the compiled plan does
    if opdef is None or opdef.inexpressible:
        raise ReferenceError(f"'{display_name(op)}' is not a runnable aten op")
    bound = {k: _substitute(v, env) for k, v in op_arguments(op, opdef).items()}
    args = [bound[a.name] for a in opdef.args if not a.kwarg_only]
    kwargs = {a.name: bound[a.name] for a in opdef.args if a.kwarg_only}
    out = opdef.overload(*args, **kwargs)
    outs = list(out) if len(opdef.results) > 1 else [out]
    flat = []
    for r, o in zip(opdef.results, outs):
        flat.extend(o if r.kind is ResultKind.TENSOR_LIST else [o])
    return flat


def _run_op(op: ir.Operation, env: dict) -> list:
    if op.name.startswith("aten."):
        return run_aten_op(op, env)
    kernel = REFERENCE_KERNELS.get(op.name)
    if kernel is None:
        raise ReferenceError(f"the reference interpreter has no kernel for '{op.name}'")
    out = kernel(op, *[env[v] for v in op.operands])
    return [out]


def _check_input(arg: ir.Value, value, name: str) -> None:
    if not isinstance(value, torch.Tensor):
        raise ValueError(f"input '{name}' must be a tensor, got {type(value).__name__}")
    t = ir.RankedTensorType(arg.type)
    if _mismatches(t, value):
        raise ValueError(
            f"input '{name}': expected {t} ({dtype_of(t.element_type)}), "
            f"got {list(value.shape)} {value.dtype}"
        )


def _bind_arguments(program: Program, block, user_inputs) -> dict:
    specs = program.signature.inputs
    n_user = sum(s.role == "user_input" for s in specs)
    if len(user_inputs) != n_user:
        raise ValueError(f"expected {n_user} user inputs, got {len(user_inputs)}")
    env, it = {}, enumerate(user_inputs)
    for spec, arg in zip(specs, block.arguments):
        if spec.role == "user_input":
            _, value = next(it)
            _check_input(arg, value, spec.name)
        elif spec.name in program.state:
            value = program.state[spec.name]
        else:
            raise ValueError(f"the program's state has no {spec.role} '{spec.name}'")
        env[arg] = value
    return env


def run_reference(program: Program, *user_inputs):
    """Runs `program` on `user_inputs` (its tensor user inputs in signature order) with eager
    ATen kernels; returns the user outputs (a tuple when several) and writes mutated buffers
    back into `program.state`."""
    block = program.main.regions[0].blocks[0]
    env = _bind_arguments(program, block, user_inputs)
    returned = None
    with torch.no_grad():
        for op in block.operations:
            op = op.operation
            if op.name == "func.return":
                returned = [env[v] for v in op.operands]
                break
            try:
                results = _run_op(op, env)
            except ReferenceError as e:
                raise ReferenceError(f"{describe_location(op.location)}: {e}") from None
            except Exception as e:  # an eager kernel rejected its inputs: say which op and line
                raise ReferenceError(
                    f"{describe_location(op.location)}: '{op.name}' failed in eager: "
                    f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                ) from e
            _check_results(op, results)
            env.update(zip(op.results, results))
    return _user_outputs(program, returned, user_inputs)


def _check_results(op: ir.Operation, results: list) -> None:
    """The IR's claim about each result holds for what the kernel returned: a type the verifier
    could not refute (a size known only at run time) must not let a tensor of another shape
    flow on as if it were the declared one. Rank and dtype are checked for every result, sizes
    for the first: ATen's CPU kernels return a multi-result op's auxiliary results (a batch
    norm's saved statistics in eval, `_embedding_bag`'s offset2bag and bag sizes) with other
    sizes than its meta kernel, which the exported types follow."""
    for i, (r, value) in enumerate(zip(op.results, results)):
        if not isinstance(value, torch.Tensor) or not isinstance(r.type, ir.RankedTensorType):
            continue
        if _mismatches(ir.RankedTensorType(r.type), value, sizes=i == 0):
            raise ReferenceError(
                f"{describe_location(op.location)}: '{op.name}' result #{i} is declared "
                f"{r.type} but the kernel returned {list(value.shape)} {value.dtype}"
            )


def _mismatches(t: ir.RankedTensorType, value: torch.Tensor, sizes: bool = True) -> bool:
    static = [None if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank)]
    return (
        value.dtype != dtype_of(t.element_type)
        or value.dim() != t.rank
        or (sizes and any(s is not None and s != v for s, v in zip(static, value.shape)))
    )


def _user_outputs(program: Program, returned: list, user_inputs):
    sig = program.signature
    for spec, value in zip(sig.outputs, returned):
        if spec.role == "index_check":  # before any write-back, as eager raises
            raise_if_flagged(value, spec.name)
    inputs_by_name = dict(zip((s.name for s in sig.user_inputs), user_inputs))
    user = []
    for spec, value in zip(sig.outputs, returned):
        if spec.role == "user_output":
            user.append(value)
        elif spec.role == "mutated_buffer":
            program.state[spec.name] = value
        elif spec.role == "mutated_input":
            with torch.no_grad():
                inputs_by_name[spec.name].copy_(value)  # as eager mutates the caller's tensor
    for pos in sorted(sig.constant_outputs):
        user.insert(pos, sig.constant_outputs[pos])
    if sig.out_spec is not None:
        return torch.utils._pytree.tree_unflatten(user, sig.out_spec)
    return user[0] if len(user) == 1 else tuple(user)
