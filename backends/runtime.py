"""`CompiledProgram`: runs `@main` (calls to native segments, eager fallbacks) on torch tensors.

The runtime contract (shared/DESIGN.md section 6): state bound once, called like the exported
module (args/kwargs), returns the module's pytree, writes mutated buffers back, checks inputs.
"""

from __future__ import annotations

import operator
import warnings
from dataclasses import dataclass

import torch
from mlir import ir

from aten_mlir.dialects import UnsupportedDtypeError, describe_location, dtype_of
from aten_mlir.frontend.index_checks import raise_if_flagged
from aten_mlir.frontend.program import Program, Signature

from .arguments import ArgumentBinder
from .guards import CallGuards, TensorSpec, check_storage_read, storage_reads
from .plan import Plan, picker


@dataclass(frozen=True)
class Fallback:
    """An op run with its eager kernel, and where the user wrote it."""

    op: str
    location: str

    def __str__(self) -> str:
        return f"{self.op} ({self.location})"


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
        declared = [
            _tensor_spec(t)
            for s, t in zip(signature.inputs, function_type.inputs)
            if s.role == "user_input"
        ]
        # bool and unsigned inputs are lowered to signless ints: their declared dtypes say which
        self.declared_dtypes = [t.dtype for t in declared]
        self._binder = ArgumentBinder(signature, len(declared) + len(signature.input_constants))
        self._guards = CallGuards(signature, declared, self._binder.names)
        mutated = {s.name for s in signature.outputs if s.role == "mutated_input"}
        self._mutated = [k for k, s in enumerate(signature.user_inputs) if s.name in mutated]
        self._input_index = {s.name: k for k, s in enumerate(signature.user_inputs)}
        self._index_check = next(
            (k for k, s in enumerate(signature.outputs) if s.role == "index_check"), None
        )
        self._written_state = [
            (s.name, state[s.name])
            for s in signature.outputs
            if s.role == "mutated_buffer" and isinstance(state.get(s.name), torch.Tensor)
        ]
        # integer inputs cannot require grad (torch refuses it), so only the others are looked at
        self._grad_inputs = [
            k for k, t in enumerate(declared) if t.dtype is not None and not _integral(t.dtype)
        ]
        self._grad_warned = not self._grad_inputs
        # off where gradients are taken care of around the call (the torch.compile backend)
        self.warn_requires_grad = True
        # Set by compile() from an ExportedProgram: makes its `ep.module()`, which runs a call
        # whose inputs alias each other as eager does (the compiled graph is functional).
        self.eager = None
        self._eager_module = None
        self._seed_args = _seed_arguments(main)
        self._block = main.regions[0].blocks[0]
        self._state_pointers = {
            t.data_ptr() for t in self.state.values() if isinstance(t, torch.Tensor)
        }
        # The state is bound once (`plan.Plan`); a parameter replaced since (`.to(dtype)`,
        # `.data =`, a new Parameter) would hand the compiled code storage of another size or type.
        self._state_specs = [
            s
            for s in signature.inputs
            if s.role != "user_input" and isinstance(state.get(s.name), torch.Tensor)
        ]
        self._state_tensors = [state[s.name] for s in self._state_specs]
        self._state_storage = [t.data_ptr() for t in self._state_tensors]
        self._pack = _packer(signature)
        self._functions = {}
        self._plan = Plan(self, library)
        # the user outputs' positions when each is a native result with storage of its own
        # (`Plan.fresh`) and nothing is written back: `_outputs` then only picks them
        roles = {s.role for s in signature.outputs}
        self._fresh_outputs = (
            [k for k, s in enumerate(signature.outputs) if s.role == "user_output"]
            if self._plan.fresh and roles <= {"user_output", "index_check"}
            else None
        )
        self._pick_fresh = picker(self._fresh_outputs or ())
        self._storage_reads = storage_reads(main, signature, state)

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

    def __call__(self, *args, **kwargs):
        if not kwargs and len(args) == self._binder.flat_positional:  # called as exported
            leaves = args
        else:
            leaves = self._binder.bind(args, kwargs)
        user_inputs = self._guards.check(leaves)
        if list(map(_DATA_PTR, self._state_tensors)) != self._state_storage:
            self._state_replaced()
        for k in self._storage_reads:
            check_storage_read(user_inputs[k], self._guards.names[k])
        if self._mutated or self._written_state:
            pair = _aliased(user_inputs, self._guards.names, self._mutated, self._written_state)
            if pair is not None:
                return self._run_eagerly(pair, args, kwargs)
        if not self._grad_warned and self.warn_requires_grad:
            self._warn_requires_grad(user_inputs)
        # as torch.no_grad(), without making a context object per call
        grad = torch.is_grad_enabled()
        torch._C._set_grad_enabled(False)
        try:
            return self._outputs(self._plan.run(user_inputs), user_inputs)
        finally:
            torch._C._set_grad_enabled(grad)

    def _state_replaced(self):
        for spec, t, pointer in zip(self._state_specs, self._state_tensors, self._state_storage):
            if t.data_ptr() != pointer:
                raise RuntimeError(
                    f"{spec.role} '{spec.name}' was replaced after compile (its storage changed: "
                    f"now {tuple(t.shape)} {t.dtype}); the compiled program was built for the "
                    "old one: update it in place (`copy_`, `load_state_dict`) or compile again"
                )

    def _warn_requires_grad(self, user_inputs) -> None:
        for k in self._grad_inputs:
            name, value = self._guards.names[k], user_inputs[k]
            if value.requires_grad:
                self._grad_warned = True
                warnings.warn(
                    f"input '{name}' requires grad, but gradients are not tracked by compiled "
                    "programs: the outputs have no autograd graph (to train, use "
                    'torch.compile(model, backend="aten_mlir"))',
                    UserWarning,
                    stacklevel=3,
                )
                return

    def _run_eagerly(self, pair: tuple[str, str], args, kwargs):
        """A call whose mutated input or buffer shares memory with an input: the compiled graph
        reads every input as it was before the mutation, eager reads through the alias."""
        written, other = pair
        if self.eager is None:
            raise ValueError(
                f"{written} is written by the program and shares memory with {other}: the "
                f"compiled program would read {other} as it was before the write, unlike "
                "eager; pass separate tensors (a .clone())"
            )
        if self._eager_module is None:
            self._eager_module = self.eager()
        return self._eager_module(*args, **kwargs)

    def _outputs(self, returned: list, user_inputs):
        """The module's outputs; buffers and inputs the program mutates are written in place,
        as eager writes them (so the ExportedProgram's own state sees the update too)."""
        sig = self.signature
        if self._index_check is not None:  # before any write-back, as eager raises
            raise_if_flagged(returned[self._index_check], sig.outputs[self._index_check].name)
        if self._fresh_outputs is not None:  # nothing to copy or write back
            return self._pack(list(self._pick_fresh(returned)))
        user = []
        inputs = {t.data_ptr() for t in user_inputs}
        for spec, value in zip(sig.outputs, returned):
            if spec.role == "user_output":
                # An output that is an input or a parameter itself (canonicalization removed a
                # copy: `clone(x)` -> `x`) is copied, as eager returns a new tensor. (The state's
                # pointers are a set of their own: their union with the inputs' was made per call.)
                if isinstance(value, torch.Tensor):
                    pointer = value.data_ptr()
                    if pointer in inputs or pointer in self._state_pointers:
                        value = value.clone()
                user.append(value)
            elif spec.role == "mutated_buffer":
                self.state[spec.name].copy_(value)
            elif spec.role == "mutated_input":
                user_inputs[self._input_index[spec.name]].copy_(value)
        return self._pack(user)


_DATA_PTR = torch.Tensor.const_data_ptr  # the same address, without a mutable-data check


def _integral(dtype: torch.dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex)


def _packer(sig: Signature):
    """`pack(user outputs)` -> what the module returns: its constant outputs put in, then its
    output pytree rebuilt (a leaf is returned as is: `tree_unflatten` took 0.19 us)."""
    constants = sorted(sig.constant_outputs.items())
    spec = sig.out_spec
    if not constants and spec is not None and spec.is_leaf():
        return operator.itemgetter(0)
    if not constants and spec is None:
        return lambda user: user[0] if len(user) == 1 else tuple(user)

    def pack(user: list):
        for pos, value in constants:
            user.insert(pos, value)
        if spec is not None:
            return torch.utils._pytree.tree_unflatten(user, spec)
        return user[0] if len(user) == 1 else tuple(user)

    return pack


def _tensor_spec(t: ir.Type) -> TensorSpec:
    """A user input's declared type, read once so that calls check it without MLIR."""
    if not isinstance(t, ir.RankedTensorType):
        return TensorSpec(str(t), None, ())
    shape = tuple(None if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank))
    try:
        return TensorSpec(str(t), dtype_of(t.element_type), shape)
    except UnsupportedDtypeError:
        return TensorSpec(str(t), None, shape)


def _aliased(inputs: list, names: list[str], mutated: list[int], written_state: list):
    """(what is written, the input it overlaps) as message text, or None: a mutated input or
    buffer sharing memory with an(other) input. Address ranges only: tensors of different
    storages never overlap, views of one storage are caught."""
    spans = [_span(t) for t in inputs]
    written = [(f"argument '{names[m]}'", spans[m], m) for m in mutated]
    written += [(f"buffer '{name}'", _span(t), None) for name, t in written_state]
    for label, span, m in written:
        if span is None:
            continue
        for k, other in enumerate(spans):
            if k != m and other is not None and other[0] < span[1] and span[0] < other[1]:
                return label, f"argument '{names[k]}'"
    return None


def _span(t: torch.Tensor) -> tuple[int, int] | None:
    """The bytes `t` can touch, [start, end); None when it has no element."""
    if t.numel() == 0:
        return None
    start = t.data_ptr()
    last = sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
    return start, start + (last + 1) * t.element_size()


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
