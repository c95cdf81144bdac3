"""`CompiledProgram`: runs `@main` (calls to native segments, eager fallbacks) on torch tensors.

The runtime contract (shared/DESIGN.md section 6): state bound once, called like the exported
module (args/kwargs), returns the module's pytree, writes mutated buffers back, checks inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from mlir import ir

from aten_mlir.backends.reference.interpreter import REFERENCE_KERNELS, _run_aten
from aten_mlir.dialects import UnsupportedDtypeError, describe_location, dtype_of
from aten_mlir.frontend.program import Program, Signature


@dataclass(frozen=True)
class Fallback:
    """An op run with its eager kernel, and where the user wrote it."""

    op: str
    location: str

    def __str__(self) -> str:
        return f"{self.op} ({self.location})"


# Bool and unsigned tensors reach native code as the signless ints of their width (same bytes).
_STORAGE_DTYPES = {
    torch.bool: torch.int8,
    torch.uint8: torch.int8,
    torch.uint16: torch.int16,
    torch.uint32: torch.int32,
    torch.uint64: torch.int64,
}


def _storage_view(t: torch.Tensor) -> torch.Tensor:
    return t.view(_STORAGE_DTYPES[t.dtype]) if t.dtype in _STORAGE_DTYPES else t


class CompiledProgram:
    """A compiled program: call it like the exported module."""

    def __init__(
        self,
        main: ir.Operation,
        library,
        state: dict,
        signature: Signature,
        function_type: ir.FunctionType,
        program: Program | None = None,
    ):
        self.program = program  # None when compile() loaded it by an ExportedProgram's key
        self.state = state
        self.signature = signature
        self.fallbacks: list[Fallback] = _fallbacks(main)
        self.library = library
        self.from_cache = False  # True when compile() loaded it without running MLIR
        self._main = main  # kept alive: the plan the runtime walks
        self._result_types = list(function_type.results)
        # the user inputs' types before lowering, which is what callers must pass
        self._declared = {
            i: _Declared.of(t)
            for i, (s, t) in enumerate(zip(signature.inputs, function_type.inputs))
            if s.role == "user_input"
        }
        self._seed_args = _seed_arguments(main)
        self._block = main.regions[0].blocks[0]
        if len(self._block.arguments) != len(signature.inputs) + len(self._seed_args):
            raise ValueError(
                f"@main takes {len(self._block.arguments)} arguments: not the signature's "
                f"{len(signature.inputs)} inputs and {len(self._seed_args)} seeds"
            )
        self._state_pointers = {
            t.data_ptr() for t in self.state.values() if isinstance(t, torch.Tensor)
        }
        self._ops = [op.operation for op in self._block.operations]
        self._functions = {}
        for op in self._ops:
            if op.name == "func.call":
                name = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                if name not in self._functions:
                    self._functions[name] = library.function(
                        name,
                        [str(_memref(v.type)) for v in op.operands],
                        [str(_memref(r.type)) for r in op.results],
                    )

    @classmethod
    def of(cls, program: Program, main: ir.Operation, library) -> CompiledProgram:
        """`main` (the lowered plan of `program`) running on `library`."""
        ftype = ir.FunctionType(ir.TypeAttr(program.main.attributes["function_type"]).value)
        return cls(main, library, program.state, program.signature, ftype, program)

    def __repr__(self) -> str:
        return (
            f"CompiledProgram({len(self._functions)} native segment(s), "
            f"{len(self.fallbacks)} fallback(s))"
        )

    def _flatten(self, args, kwargs) -> list[torch.Tensor]:
        leaves, spec = torch.utils._pytree.tree_flatten((tuple(args), dict(kwargs)))
        in_spec = self.signature.in_spec
        if in_spec is not None and spec != in_spec:
            raise ValueError(
                "the arguments do not have the structure the program was exported with: "
                f"expected {in_spec}, got {spec}"
            )
        return [x for x in leaves if isinstance(x, torch.Tensor)]

    def __call__(self, *args, **kwargs):
        user_inputs = self._flatten(args, kwargs)
        env = self._bind(user_inputs)
        returned = None
        with torch.no_grad():
            for op in self._ops:
                if op.name == "func.return":
                    returned = [
                        _as_type(env[v], t) for v, t in zip(op.operands, self._result_types)
                    ]
                    break
                env.update(zip(op.results, self._run(op, env)))
            return self._outputs(returned, user_inputs)

    def _outputs(self, returned: list, user_inputs):
        """The module's outputs; buffers and inputs the program mutates are written in place,
        as eager writes them (so the ExportedProgram's own state sees the update too)."""
        sig = self.signature
        inputs_by_name = dict(zip((s.name for s in sig.user_inputs), user_inputs))
        user = []
        owned = {t.data_ptr() for t in user_inputs} | self._state_pointers
        for spec, value in zip(sig.outputs, returned):
            if spec.role == "user_output":
                # An output that is an input or a parameter itself (canonicalization removed a
                # copy: `clone(x)` -> `x`) is copied, as eager returns a new tensor.
                aliased = isinstance(value, torch.Tensor) and value.data_ptr() in owned
                user.append(value.clone() if aliased else value)
            elif spec.role == "mutated_buffer":
                self.state[spec.name].copy_(value)
            elif spec.role == "mutated_input":
                inputs_by_name[spec.name].copy_(value)
        for pos in sorted(sig.constant_outputs):
            user.insert(pos, sig.constant_outputs[pos])
        if sig.out_spec is not None:
            return torch.utils._pytree.tree_unflatten(user, sig.out_spec)
        return user[0] if len(user) == 1 else tuple(user)

    def _bind(self, user_inputs) -> dict:
        specs = self.signature.inputs
        n_user = sum(s.role == "user_input" for s in specs)
        if len(user_inputs) != n_user:
            raise ValueError(f"expected {n_user} tensor inputs, got {len(user_inputs)}")
        env, it = {}, enumerate(user_inputs)
        for position, (spec, arg) in enumerate(zip(specs, self._block.arguments)):
            if spec.role == "user_input":
                index, value = next(it)
                self._declared[position].check(value, index)
                if value.device.type != "cpu":
                    raise ValueError(f"user input #{index} is on {value.device}; expected cpu")
            else:
                value = self.state.get(spec.name)
                if value is None:
                    raise ValueError(f"the program's state has no {spec.role} '{spec.name}'")
            env[arg] = value
        for arg in list(self._block.arguments)[len(specs) :]:
            if arg.arg_number not in self._seed_args:
                raise ValueError(f"@main argument #{arg.arg_number} has no input spec")
            # A fresh stream per call, from torch's default generator (torch.manual_seed rules).
            env[arg] = torch.randint(-(2**62), 2**62, (2,), dtype=torch.int64)
        return env

    def _run(self, op: ir.Operation, env: dict) -> list:
        if op.name == "func.call":
            name = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            outs = self._functions[name](*[_storage_view(env[v]) for v in op.operands])
            return [_as_type(t, r.type) for t, r in zip(outs, op.results)]
        if op.name == "builtin.unrealized_conversion_cast":
            return [_as_type(env[op.operands[0]], op.results[0].type)]
        if op.name.startswith("aten."):
            try:
                return _run_aten(op, env)
            except Exception as e:
                raise RuntimeError(
                    f"{describe_location(op.location)}: fallback '{op.name}' failed in eager: "
                    f"{type(e).__name__}: {e}"
                ) from e
        return [REFERENCE_KERNELS[op.name](op, *[env[v] for v in op.operands])]


@dataclass(frozen=True)
class _Declared:
    """A user input's declared type, read once so that calls check it without MLIR."""

    text: str
    dtype: torch.dtype | None  # None: no tensor fits (the type has no torch dtype)
    shape: tuple  # None for a dynamic dim

    @classmethod
    def of(cls, t: ir.Type) -> _Declared:
        if not isinstance(t, ir.RankedTensorType):
            return cls(str(t), None, ())
        shape = tuple(None if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank))
        try:
            return cls(str(t), dtype_of(t.element_type), shape)
        except UnsupportedDtypeError:
            return cls(str(t), None, shape)

    def check(self, value, index: int) -> None:
        if not isinstance(value, torch.Tensor):
            raise ValueError(f"user input #{index} must be a tensor, got {type(value).__name__}")
        fits = (
            value.dtype == self.dtype
            and value.dim() == len(self.shape)
            and all(s is None or s == v for s, v in zip(self.shape, value.shape))
        )
        if not fits:
            raise ValueError(
                f"user input #{index}: expected {self.text} ({self.dtype}), "
                f"got {list(value.shape)} {value.dtype}"
            )


def _fallbacks(main: ir.Operation) -> list[Fallback]:
    """The aten ops `@main` runs eagerly, with where the user wrote them."""
    return [
        Fallback(op.name, describe_location(op.location))
        for op in (o.operation for o in main.regions[0].blocks[0].operations)
        if op.name.startswith("aten.")
    ]


SEED_ATTR = "aten.rng_seed"


def _seed_arguments(main: ir.Operation) -> set[int]:
    """Positions of the `@main` arguments that random-number lowerings added for their seed."""
    if "arg_attrs" not in main.attributes:
        return set()
    attrs = ir.ArrayAttr(main.attributes["arg_attrs"])
    return {i for i, d in enumerate(attrs) if SEED_ATTR in ir.DictAttr(d)}


def _memref(t: ir.Type) -> str:
    """The memref type a tensor argument has after bufferization (identity layout)."""
    t = ir.RankedTensorType(t)
    shape = "x".join("?" if t.is_dynamic_dim(i) else str(t.get_dim_size(i)) for i in range(t.rank))
    return f"memref<{shape + 'x' if shape else ''}{t.element_type}>"


def _as_type(value, t: ir.Type):
    """A tensor as the runtime type `t` says: bool and unsigned tensors travel as signless
    int bytes."""
    if not isinstance(t, ir.RankedTensorType):
        return value  # a Python scalar (`.item()`)
    want = dtype_of(ir.RankedTensorType(t).element_type)
    if value.dtype == want:
        return value
    if _STORAGE_DTYPES.get(value.dtype) == want or _STORAGE_DTYPES.get(want) == value.dtype:
        return value.view(want)
    raise TypeError(f"runtime value of dtype {value.dtype} where {want} is expected")
