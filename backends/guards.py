"""Call-time guards: what `ep.module()` checks before running (`torch/_export/utils.py`
`_check_input_constraints_for_graph`, `_check_symint`), so that a compiled program never reads
out of bounds or answers for another program than the one exported.

Per tensor input: a tensor, the dtype, the rank, on the CPU, each static dim. Symbolic dims:
inputs sharing a size agree, derived sizes (`2*s`, `s + 1`) hold, and every size in
`range_constraints` is in its range (the lower bound only above 2, as torch lets 0/1 through).
Non-tensor arguments equal what export specialised them to. Everything is read once into steps
over plain ints (the sympy expressions become closures), so a call costs microseconds.
Failures are one `ValueError` naming the argument as the user wrote it, the dim and both sizes.
"""

from __future__ import annotations

import ctypes
import logging
import math
import operator
from typing import NamedTuple

import torch
from mlir import ir

from aten_mlir.frontend.program import Signature

from .shape_guards import compile_shape_guards
from .size_steps import size_steps

log = logging.getLogger(__name__)


class TensorSpec(NamedTuple):
    """A tensor input's declared type, read once from `@main`'s type."""

    text: str  # the MLIR type, for messages
    dtype: torch.dtype | None  # None: no tensor fits (the type has no torch dtype)
    shape: tuple  # ints, None for a dynamic dim


class CallGuards:
    """`check(leaves)` -> the tensor inputs in `@main` order, once every guard holds."""

    def __init__(self, signature: Signature, tensors: list[TensorSpec], names: list[str]):
        constants = signature.input_constants
        self.tensor_leaves = [i for i in range(len(names)) if i not in constants]
        if len(self.tensor_leaves) != len(tensors):
            raise ValueError(
                f"the signature has {len(self.tensor_leaves)} tensor inputs, @main {len(tensors)}"
            )
        self.all_tensors = not constants
        quoted = [_quoted(n) for n in names]
        self.constants = [(i, v, quoted[i]) for i, v in sorted(constants.items())]
        self.names = [names[i] for i in self.tensor_leaves]
        self._quoted = [quoted[i] for i in self.tensor_leaves]
        self.specs = tensors
        self.static = [
            (None if None in s.shape else s.shape, [(d, n) for d, n in enumerate(s.shape) if n])
            for s in tensors
        ]
        self.size_steps = size_steps(signature, tensors, self._quoted)
        self.shape_guards = compile_shape_guards(signature.shape_guards, names)
        self.index_checks = _index_checks(signature, self.tensor_leaves, self._quoted, tensors)
        # the input sizes the size steps and tracer guards already passed: both are functions of
        # the tensors' sizes alone (constants are checked for equality first, every call), so a
        # call with sizes seen before skips them. Bounded: cleared when full.
        self._passed_sizes: set = set()
        self._tensor_types = (torch.Tensor,) * len(tensors)
        self._dtypes = tuple(s.dtype for s in tensors)
        # every input's sizes when all are static and no size guard exists (else None): then
        # one comparison of the sizes checks every dim and rank
        shapes = tuple(tuple(s.shape) for s in tensors)
        static = not any(None in s for s in shapes) and not (self.size_steps or self.shape_guards)
        self._shapes = shapes if static else None

    def check(self, leaves: list) -> list:
        for index, want, name in self.constants:
            _check_constant(leaves[index], want, name)
        values = leaves if self.all_tensors else [leaves[i] for i in self.tensor_leaves]
        # A pass over all inputs per property, in C (`map`), rather than Python per input (~1.5
        # us each, 75 us of a training step's two calls); any miss re-checks input by input,
        # which raises naming the first bad one.
        typed = (
            all(map(isinstance, values, self._tensor_types))
            and tuple(map(_DTYPE, values)) == self._dtypes
            and all(map(_IS_CPU, values))
        )
        sizes = tuple(map(_SHAPE, values)) if typed else None
        # `_shapes`: all static, nothing symbolic; else sizes that passed before need nothing
        # more (a function call less per dynamic call: the common case of a serving loop)
        if sizes is None or (sizes != self._shapes and sizes not in self._passed_sizes):
            self._check_types_and_sizes(values, leaves, sizes)
        for check in self.index_checks:
            check(values)
        return values

    def _check_types_and_sizes(self, values: list, leaves: list, sizes: tuple | None) -> None:
        """The checks of `check` input by input (raising on the first that fails), but for the
        symbolic sizes of sizes seen before: they depend on the sizes alone."""
        if sizes is None or sizes not in self._passed_sizes:
            for value, spec, static, name in zip(values, self.specs, self.static, self._quoted):
                _check_type(value, spec, name)
                _check_shape(value, spec, static, name)
            if self.size_steps or self.shape_guards:
                self._check_sizes(values, leaves)
            if len(self._passed_sizes) >= _PASSED_SIZES:
                self._passed_sizes.clear()
            self._passed_sizes.add(tuple(map(_SHAPE, values)))

    def _check_sizes(self, values: list, leaves: list) -> None:
        """The symbolic sizes (bound, equal, in range) and the tracer's guards; raises."""
        env: dict = {}
        for step in self.size_steps:
            step(values, env)
        if self.shape_guards:
            self.shape_guards(leaves)


_SHAPE = operator.attrgetter("shape")
_DTYPE = operator.attrgetter("dtype")
_IS_CPU = operator.attrgetter("is_cpu")

# distinct input sizes remembered as passing (a serving loop sees a few; more just re-check)
_PASSED_SIZES = 256


def _index_checks(signature: Signature, tensor_leaves: list[int], names: list[str], specs) -> list:
    """A check per `signature.index_bounds` entry whose dim size is a constant or the size of a
    dim of some input: every index in range, as eager's kernels require (compiled code clamps
    them, so an index out of range would otherwise be a silently wrong answer). An input whose
    declared dtype is not an integer one holds no indices (the dtype is checked first)."""
    where = {
        size: (k, d)
        for k, sizes in enumerate(signature.input_sizes)
        for d, size in enumerate(sizes)
    }
    checks = []
    for leaf, size, wraps, op in signature.index_bounds:
        if leaf not in tensor_leaves:
            continue
        k = tensor_leaves.index(leaf)
        dtype = specs[k].dtype
        if dtype is None or dtype.is_floating_point or dtype.is_complex or dtype == torch.bool:
            continue
        if size.lstrip("-").isdigit():
            checks.append(_index_check(k, int(size), None, wraps, names[k], op))
        elif size in where:
            checks.append(_index_check(k, None, where[size], wraps, names[k], op))
    return checks


# Indices up to this many are read through a memoryview of their bytes (0.9 us for a [1, 7]
# int64 tensor, against 1.5 for `torch.aminmax` and two `int`s, and no tensor op dispatched,
# which costs more again inside a call: 4.6 us there); more go through aminmax.
_SMALL_INDEX = 64
_ITEM_FORMATS = {torch.int64: "q", torch.int32: "i", torch.int16: "h", torch.int8: "b"}


def _index_range(index: torch.Tensor) -> tuple[int, int]:
    """(min, max) of a non-empty integer CPU tensor."""
    fmt = _ITEM_FORMATS.get(index.dtype)
    count = index.numel()
    if fmt is not None and count <= _SMALL_INDEX and index.is_contiguous():
        # its bytes copied out (at most 512): no tensor op, no numpy array
        items = memoryview(ctypes.string_at(index.data_ptr(), count * index.itemsize)).cast(fmt)
        return min(items), max(items)
    low, high = torch.aminmax(index)
    return int(low), int(high)


def _index_check(k: int, static: int | None, dim_of: tuple | None, wraps: bool, name, op):
    def check(values):
        index = values[k]
        if index.numel() == 0:
            return
        size = static if dim_of is None else values[dim_of[0]].shape[dim_of[1]]
        low, high = _index_range(index)
        bad = high if high >= size else low if low < (-size if wraps else 0) else None
        if bad is not None:
            raise IndexError(
                f"argument {name}: index {bad} is out of range for a dim of size {size} in {op}"
            )

    return check


def _quoted(name: str) -> str:
    """`'x'` for a plain argument, `ys[1]['k']` as is for a leaf inside one."""
    return f"'{name}'" if name.isidentifier() else name


def _check_type(value, spec: TensorSpec, name: str) -> None:
    """A CPU tensor of the declared dtype and rank."""
    if not isinstance(value, torch.Tensor):
        raise ValueError(
            f"argument {name}: expected a tensor ({spec.text}), got {type(value).__name__}"
        )
    if value.dtype != spec.dtype or value.dim() != len(spec.shape):
        raise ValueError(
            f"argument {name}: expected {spec.text} ({spec.dtype}), got "
            f"{list(value.shape)} {value.dtype}"
        )
    if not value.is_cpu:
        raise ValueError(f"argument {name} is on {value.device}; expected cpu")


def _check_shape(value, spec: TensorSpec, static, name: str) -> None:
    """Every static dim as declared (the rank is checked by `_check_type`)."""
    shape, dims = static
    if shape is not None:  # all static: one comparison
        if value.shape != shape:
            _static_mismatch(name, spec, value, dims)
        return
    sizes = value.shape
    for d, n in dims:
        if sizes[d] != n:
            _static_mismatch(name, spec, value, dims)


def _check_constant(got, want, name: str) -> None:
    """As `_check_input_constraints_for_graph`: the same type and value (NaN equal to NaN)."""
    if type(got) is type(want):
        if got == want or (isinstance(want, float) and math.isnan(want) and math.isnan(got)):
            return
    raise ValueError(
        f"argument {name}: expected {want!r} (export specialised it to that value; "
        f"the program computes with it), got {got!r}"
    )


def _static_mismatch(name: str, spec: TensorSpec, value, static) -> None:
    dim = next(d for d, n in static if value.shape[d] != n)
    raise ValueError(
        f"argument {name}: expected {spec.text}, got {list(value.shape)} {value.dtype}: dim "
        f"{dim} was {spec.shape[dim]} at export (static; export with a torch.export.Dim for it "
        "to vary)"
    )


# an @main argument whose storage an `as_strided` reads (`aten-as-strided-storage`)
_STORAGE_READ = "aten.reads_storage"


def storage_reads(main: ir.Operation, signature: Signature, state: dict) -> list[int]:
    """The user inputs (positions among them) whose storage the program reads through
    `as_strided`. Compiled code sees a tensor's elements in order from offset 0, which is its
    storage only when it is contiguous and starts its storage; a parameter or buffer that is
    not cannot be compiled faithfully, so it is refused here, once."""
    if "arg_attrs" not in main.attributes:
        return []
    attrs = [ir.DictAttr(d) for d in ir.ArrayAttr(main.attributes["arg_attrs"])]
    reads, k = [], 0
    for spec, a in zip(signature.inputs, attrs):
        marked = _STORAGE_READ in a
        if spec.role == "user_input":
            if marked:
                reads.append(k)
            k += 1
        elif marked and isinstance(state.get(spec.name), torch.Tensor):
            check_storage_read(state[spec.name], spec.name, "the program's state")
    return reads


def check_storage_read(value: torch.Tensor, name: str, what: str = "argument") -> None:
    if not value.is_contiguous() or value.storage_offset() != 0:
        raise ValueError(
            f"{what} '{name}' is read through as_strided, which reads its storage, but it is not "
            f"contiguous from the start of its storage (strides {value.stride()}, offset "
            f"{value.storage_offset()}): "
            + ("pass a contiguous tensor" if what == "argument" else "make it contiguous")
        )
