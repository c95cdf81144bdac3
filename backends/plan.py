"""`Plan`: `@main` read once into steps over numbered value slots (native calls, eager
fallbacks, casts), run per call by `CompiledProgram` (`runtime.py`)."""

from __future__ import annotations

import dataclasses
import operator

import torch
from mlir import ir

from aten_mlir.backends.reference.interpreter import REFERENCE_KERNELS, run_aten_op
from aten_mlir.dialects import describe_location, dtype_of
from aten_mlir.dialects.opaque import (
    OPAQUE_CALL,
    display_name,
    opaque_op_def,
    opaque_overload,
    overload_name,
)
from aten_mlir.dialects.opdefs import ResultKind
from aten_mlir.dialects.ops import op_arguments

# Bool and unsigned tensors reach native code as the signless ints of their width (same bytes).
_STORAGE_DTYPES = {
    torch.bool: torch.int8,
    torch.uint8: torch.int8,
    torch.uint16: torch.int16,
    torch.uint32: torch.int32,
    torch.uint64: torch.int64,
}


def picker(positions):
    """A function of a sequence giving the tuple of its items at `positions`: one C call
    (`itemgetter`), where a list comprehension cost ~0.1 us an item."""
    positions = tuple(positions)
    if len(positions) > 1:
        return operator.itemgetter(*positions)
    if positions:
        (position,) = positions
        return lambda values: (values[position],)
    return lambda values: ()


def _storage_view(t: torch.Tensor) -> torch.Tensor:
    return t.view(_STORAGE_DTYPES[t.dtype]) if t.dtype in _STORAGE_DTYPES else t


class Plan:
    """`@main` read once into steps over numbered value slots, so that a call touches no MLIR
    object: walking the IR per call cost more than running a small model. The program's state
    fills its slots once, and native calls take it pre-marshalled (`NativeFunction.bind`)."""

    def __init__(self, program, library):  # program: the `runtime.CompiledProgram`
        block = program._block
        specs = program.signature.inputs
        if len(block.arguments) != len(specs) + len(program._seed_args):
            raise ValueError(
                f"@main takes {len(block.arguments)} arguments: not the signature's "
                f"{len(specs)} inputs and {len(program._seed_args)} seeds"
            )
        self.slots: dict = {}
        self._native: dict = {}  # result slot -> (native function, result index)
        self.template: list = []
        self.user: list[int] = []  # the slot of each user input
        self.seeds: list[int] = []
        fixed: set[int] = set()
        self._user_dtypes: list = []  # each user input's dtype as lowered (a bool's is int8)
        self._declared = getattr(program, "declared_dtypes", [])  # ... as the caller passes it
        self._last_native = None  # (call, operand slots, results, function, bound) of the last step
        for position, arg in enumerate(block.arguments):
            slot = self._slot(arg)
            if position >= len(specs):
                if arg.arg_number not in program._seed_args:
                    raise ValueError(f"@main argument #{arg.arg_number} has no input spec")
                self.seeds.append(slot)
            elif specs[position].role == "user_input":
                self.user.append(slot)
                self._user_dtypes.append(_dtype(arg.type))
            else:
                value = program.state.get(specs[position].name)
                if value is None:
                    raise ValueError(
                        f"the program's state has no {specs[position].role} "
                        f"'{specs[position].name}'"
                    )
                self.template[slot] = value
                fixed.add(slot)
        _name_opaque_fallbacks(program, block)
        self.steps: list = []
        self.returned: list[tuple[int, torch.dtype | None]] = []
        for op in (o.operation for o in block.operations):
            if op.name == "func.return":
                types = program._result_types
                self.returned = [(self.slots[v], _dtype(t)) for v, t in zip(op.operands, types)]
                break
            self.steps.append(self._step(op, program, library, fixed))
        self._flags_as_bytes(program)
        self.direct = self._direct_call(program)
        if self.direct is not None:
            self._operands, self._picks = picker(self.direct[1]), picker(self.direct[3])
        # every returned value is a tensor in storage of its own, not an input's or the
        # state's (`NativeFunction.fresh_results`): the runtime need not look for aliases
        self.fresh = self.direct is not None and getattr(
            self._last_native[3], "fresh_results", False
        )

    def _flags_as_bytes(self, program) -> None:
        """The `index_check` flags come back from their native call as bytes: the runtime only
        reads them, and wrapping them as a tensor cost 3-4 us a call."""
        if program._index_check is None:
            return
        slot = self.returned[program._index_check][0]
        if any(slot in operands for _, operands, _ in self.steps):
            return  # read by another step: it stays a tensor
        for _, _, results in self.steps:
            for r, (result_slot, _dtype) in enumerate(results):
                native = self._native.get(result_slot)
                if result_slot == slot and native is not None:
                    function, index = native
                    if hasattr(function, "read_as_bytes"):
                        function.read_as_bytes(index)
                        results[r] = (result_slot, None)
                        self.returned[program._index_check] = (slot, None)
                    return

    def _direct_call(self, program):
        """(native call, the user input for each of its operands, the operands viewed as the
        signless ints of their bytes, the result for each returned value) when `@main` is one
        native call on user inputs returning its results as they come back: `run` then skips
        the slots (1-1.5 us of a 30 us call); else None."""
        if len(self.steps) != 1 or self.seeds or self._last_native is None:
            return None
        call, operands, results, function, bound = self._last_native
        if any(s not in self.user for s in operands):
            return None
        order = [self.user.index(s) for s in operands]
        # bool and unsigned inputs go in as signless ints (`_storage_view`): the declared dtypes
        # say which (the lowered ones are already signless)
        views = [i for i, k in enumerate(order) if self._declared[k] in _STORAGE_DTYPES]
        slots = [slot for slot, _ in results]
        picks = []
        for slot, want in self.returned:
            if slot not in slots:
                return None
            r = slots.index(slot)
            got = (
                None if r in getattr(function, "_bytes_results", ()) else _result_dtype(function, r)
            )
            if got != want:
                # a bool (unsigned) result comes back as the signless int of its bytes: wrapped
                # as what the program returns
                if got is None or _STORAGE_DTYPES.get(want) != got:
                    return None
                if not hasattr(function, "wrap_as"):
                    return None
                function.wrap_as(r, want)
            picks.append(r)
        if self._guards_cover(program, function, order, bound):
            call = function.bind(bound, checked=True)
        return call, order, views, picks

    def _guards_cover(self, program, function, order: list[int], bound: dict) -> bool:
        """Whether `CallGuards`, which runs before every call, checks all that the native
        call's marshalling would check of each user input it takes: a CPU tensor of a dtype the
        argument accepts (its storage dtype for bool / unsigned), of the argument's rank and
        static sizes. The guards' type is `@main`'s declared one and the argument's the memref
        of the same value, so they agree but for what lowering changed (a bool's i8)."""
        guards = getattr(program, "_guards", None)
        if guards is None or not hasattr(function, "bind") or not hasattr(function, "arg_specs"):
            return False
        free = [i for i in range(len(function.arg_specs)) if i not in bound]
        for i, k in zip(free, order):
            arg, spec = function.arg_specs[i], guards.specs[k]
            dtype = _STORAGE_DTYPES.get(spec.dtype, spec.dtype)
            if spec.dtype is None or dtype not in arg.dtypes or tuple(spec.shape) != arg.sizes:
                return False
        return True

    def _slot(self, value) -> int:
        self.slots[value] = len(self.template)
        self.template.append(None)
        return self.slots[value]

    def _step(self, op: ir.Operation, program, library, fixed: set[int]):
        """(callable on the operand values, operand slots, [(result slot, dtype)])."""
        operands = [self.slots[v] for v in op.operands]
        # eager fallbacks return what their op returns (a Python scalar for `.item()`)
        typed = op.name in ("func.call", "builtin.unrealized_conversion_cast")
        results = [(self._slot(r), _dtype(r.type) if typed else None) for r in op.results]
        if op.name == OPAQUE_CALL:
            self._last_native = None
            return opaque_runner(op), operands, results
        if op.name != "func.call":
            self._last_native = None
            values = list(op.operands)
            return (lambda *xs: _run_other(op, dict(zip(values, xs)))), operands, results
        name = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        function = program._functions.get(name)
        if function is None:
            function = program._functions[name] = library.function(
                name,
                [str(_memref(v.type)) for v in op.operands],
                [str(_memref(r.type)) for r in op.results],
            )
        # weights that are contiguous go in once; others are made contiguous per call, as
        # binding a copy would miss in-place updates of the original
        bound = {
            # an alias: it keeps the state's storage even if the parameter object is given
            # another (`.data =`); such a call is refused (`_state_replaced`) before it runs
            i: _storage_view(self.template[s].detach())
            for i, s in enumerate(operands)
            if s in fixed
            and isinstance(self.template[s], torch.Tensor)
            and self.template[s].is_contiguous()
        }
        for r, (slot, _) in enumerate(results):
            self._native[slot] = (function, r)
        if bound and hasattr(function, "bind"):
            call = function.bind(bound)
            operands = [s for i, s in enumerate(operands) if i not in bound]
        else:
            call, bound = function, {}
        self._last_native = (call, operands, results, function, bound)
        return (lambda *xs: call(*map(_storage_view, xs))), operands, results

    def run(self, user_inputs: list) -> list:
        """The values `@main` returns, for `user_inputs` (checked by `CallGuards`)."""
        if self.direct is not None:
            call, _, views, _ = self.direct
            operands = self._operands(user_inputs)
            if views:
                operands = list(operands)
                for i in views:
                    operands[i] = _storage_view(operands[i])
            return self._picks(call(*operands))
        values = list(self.template)
        for slot, value in zip(self.user, user_inputs):
            values[slot] = value
        for slot in self.seeds:
            # A fresh stream per call, from torch's default generator (torch.manual_seed rules).
            values[slot] = torch.randint(-(2**62), 2**62, (2,), dtype=torch.int64)
        for run, operands, results in self.steps:
            outs = run(*[values[s] for s in operands])
            for (slot, dtype), out in zip(results, outs):
                values[slot] = _retype(out, dtype)
        return [_retype(values[slot], dtype) for slot, dtype in self.returned]


def _name_opaque_fallbacks(program, block: ir.Block) -> None:
    """The program's list of fallbacks names each eager op of `@main` by its MLIR name, in
    order (`runtime._fallbacks`); an opaque call's report names the overload it runs instead
    (`mylib::foo.default`), which is what its user wrote."""
    fallbacks = getattr(program, "fallbacks", None)
    if not fallbacks:
        return
    eager = [op for op in (o.operation for o in block.operations) if op.name.startswith("aten.")]
    if len(eager) != len(fallbacks) or all(op.name != OPAQUE_CALL for op in eager):
        return
    program.fallbacks = [
        dataclasses.replace(f, op=display_name(op)) if op.name == OPAQUE_CALL else f
        for f, op in zip(fallbacks, eager)
    ]


class _Operand(int):
    """The position of a step's operand in a call template (`opaque_runner`)."""


def _template(value, positions: dict):
    """An argument with each `ir.Value` replaced by its operand position."""
    if isinstance(value, ir.Value):
        return _Operand(positions[value])
    if isinstance(value, list):
        return [_template(v, positions) for v in value]
    return value


def _filled(value, xs):
    if isinstance(value, _Operand):
        return xs[value]
    if isinstance(value, list):
        return [_filled(v, xs) for v in value]
    return value


def opaque_runner(op: ir.Operation):
    """The eager step of an `aten.opaque_call`: its overload, found by name once (checked to be
    the one named: `dialects/opaque.py`), called per call on the operand values in the places
    its schema puts them, and its results flattened as `@main` numbers them."""
    overload = opaque_overload(op)
    opdef = opaque_op_def(overload)
    positions = {v: i for i, v in reversed(list(enumerate(op.operands)))}
    bound = {k: _template(v, positions) for k, v in op_arguments(op, opdef).items()}
    args = [bound[a.name] for a in opdef.args if not a.kwarg_only]
    kwargs = {a.name: bound[a.name] for a in opdef.args if a.kwarg_only}
    lists = [r.kind is ResultKind.TENSOR_LIST for r in opdef.results]
    where, name = describe_location(op.location), overload_name(overload)

    def run(*xs):
        try:
            out = overload(*_filled(args, xs), **{k: _filled(v, xs) for k, v in kwargs.items()})
        except Exception as e:
            raise RuntimeError(
                f"{where}: fallback '{name}' failed in eager: {type(e).__name__}: {e}"
            ) from e
        outs = list(out) if len(lists) > 1 else [out] if lists else []
        flat = []
        for is_list, o in zip(lists, outs):
            flat.extend(o if is_list else [o])
        return flat

    return run


def _result_dtype(function, r: int) -> torch.dtype | None:
    """The dtype native result `r` comes back as; None when unknown (not an `abi` function)."""
    return function.result_dtype(r) if hasattr(function, "result_dtype") else None


def _run_other(op: ir.Operation, env: dict) -> list:
    """An op of `@main` other than a native call: a cast, an eager fallback, scalar glue."""
    if op.name == "builtin.unrealized_conversion_cast":
        return [env[op.operands[0]]]
    if op.name.startswith("aten."):
        try:
            return run_aten_op(op, env)
        except Exception as e:
            raise RuntimeError(
                f"{describe_location(op.location)}: fallback '{op.name}' failed in eager: "
                f"{type(e).__name__}: {e}"
            ) from e
    return [REFERENCE_KERNELS[op.name](op, *[env[v] for v in op.operands])]


def _memref(t: ir.Type) -> str:
    """The memref type a tensor argument has after bufferization (identity layout)."""
    t = ir.RankedTensorType(t)
    shape = "x".join("?" if t.is_dynamic_dim(i) else str(t.get_dim_size(i)) for i in range(t.rank))
    return f"memref<{shape + 'x' if shape else ''}{t.element_type}>"


def _dtype(t: ir.Type) -> torch.dtype | None:
    """The dtype of a runtime value of type `t`; None for a Python scalar (`.item()`)."""
    return (
        dtype_of(ir.RankedTensorType(t).element_type)
        if isinstance(t, ir.RankedTensorType)
        else None
    )


def _retype(value, want: torch.dtype | None):
    """A tensor as dtype `want`: bool and unsigned tensors travel as signless int bytes."""
    if want is None or value.dtype == want:
        return value
    if _STORAGE_DTYPES.get(value.dtype) == want or _STORAGE_DTYPES.get(want) == value.dtype:
        return value.view(want)
    raise TypeError(f"runtime value of dtype {value.dtype} where {want} is expected")
