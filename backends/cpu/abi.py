"""The calling convention of `_mlir_ciface_<name>` functions, on torch tensors.

Every argument and result is a ranked, identity-layout memref. A descriptor is
`{allocated, aligned, i64 offset, i64 sizes[rank], i64 strides[rank]}`: all 8-byte words, so the
descriptors of one call are packed into one `c_int64` array and passed by address. Results come
back through a first pointer argument to the descriptors laid back to back (for one result, to the
descriptor itself). The callee allocates every result buffer (malloc, through runtime_support.c's
cache of temporaries); the caller wraps it as a tensor's storage (or copies it) and frees each
distinct allocated pointer once, with the library's `free` (back into that cache).
"""

from __future__ import annotations

import ctypes
import operator
import re
from typing import Callable, NamedTuple

import numpy as np
import torch
from mlir import ir

from aten_mlir.backends.plan import picker

from . import threads
from .results import StaticResults, take_results
from .results import free as _free

_ELEMENT_DTYPES = {
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f32": torch.float32,
    "f64": torch.float64,
    "i1": torch.bool,
    "i8": torch.int8,
    "si8": torch.int8,
    "ui8": torch.uint8,
    "i16": torch.int16,
    "i32": torch.int32,
    "i64": torch.int64,
    "complex<f16>": torch.complex32,
    "complex<f32>": torch.complex64,
    "complex<f64>": torch.complex128,
}
# Results of these dtypes are wrapped through numpy (`np.ndarray` over the buffer, then
# `torch.from_numpy`: 0.94 us against 1.6 for `torch.frombuffer` and `.view(*sizes)`).
_NUMPY_DTYPES = {
    d: torch.empty(0, dtype=d).numpy().dtype
    for d in _ELEMENT_DTYPES.values()
    if d not in (torch.bfloat16, torch.complex32)  # numpy has no such type
}
# Signless ints are just bits: each takes the signed and the unsigned torch dtype of its width.
_ACCEPTED = {
    "i8": frozenset({torch.int8, torch.uint8}),
    "i16": frozenset({torch.int16, torch.uint16}),
    "i32": frozenset({torch.int32, torch.uint32}),
    "i64": frozenset({torch.int64, torch.uint64}),
}
# The element type is the text after the last `x` that follows a dim (`complex<f32>` has an x).
_MEMREF = re.compile(r"memref<((?:(?:\?|\d+)x)*)([a-z0-9]+|complex<[a-z0-9]+>)>")
_DIM = re.compile(r"\?|\d+")
_IS_CONTIGUOUS = torch.Tensor.is_contiguous
_DATA_PTR = torch.Tensor.data_ptr
_SHAPE = operator.attrgetter("shape")


class MemRefSpec(NamedTuple):
    """A parsed identity-layout memref type."""

    text: str
    rank: int
    dtype: torch.dtype
    dtypes: frozenset
    itemsize: int
    sizes: tuple  # ints, None where dynamic
    static_shape: tuple | None  # the sizes when all static
    strides: tuple | None  # identity strides when all static
    numpy: np.dtype | None  # the numpy dtype results are wrapped with, None: no such dtype


def identity_strides(sizes) -> tuple:
    """The row-major strides MLIR's identity layout gives `sizes`."""
    strides, step = [], 1
    for size in reversed(sizes):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


# identity strides by sizes, for `?` shapes: computed in Python per call they were a tenth of a
# tiny dynamic call. Bounded: cleared when full.
_STRIDES: dict = {}
_STRIDES_KEPT = 4096


def _strides_of(sizes: tuple) -> tuple:
    strides = _STRIDES.get(sizes)
    if strides is None:
        if len(_STRIDES) >= _STRIDES_KEPT:
            _STRIDES.clear()
        strides = _STRIDES[sizes] = identity_strides(sizes)
    return strides


def parse_memref_type(t: str | ir.Type) -> MemRefSpec:
    """Parses `memref<2x?xf32>` (text or `ir.MemRefType`); rejects layouts and memory spaces."""
    text = str(t).strip()
    match = _MEMREF.fullmatch(text)
    if not match:
        raise ValueError(f"expected an identity-layout memref type, got {text!r}")
    dims, element = match.group(1).split("x")[:-1], match.group(2)
    if element not in _ELEMENT_DTYPES or not all(_DIM.fullmatch(d) for d in dims):
        raise ValueError(f"unsupported memref type {text!r}")
    dtype = _ELEMENT_DTYPES[element]
    sizes = tuple(None if d == "?" else int(d) for d in dims)
    static = None if None in sizes else sizes
    return MemRefSpec(
        text=text,
        rank=len(sizes),
        dtype=dtype,
        dtypes=_ACCEPTED.get(element, frozenset({dtype})),
        itemsize=dtype.itemsize,
        sizes=sizes,
        static_shape=static,
        strides=None if static is None else identity_strides(static),
        numpy=_NUMPY_DTYPES.get(dtype),
    )


def _words(rank: int) -> int:
    return 3 + 2 * rank


def _describe(t) -> str:
    if not isinstance(t, torch.Tensor):
        return type(t).__name__
    return f"tensor({list(t.shape)}, {t.dtype}, {t.device})"


class NativeFunction:
    """A callable over one `_mlir_ciface_<name>`: checks inputs, marshals, decodes, frees."""

    # Each result tensor has storage of its own: a buffer the call allocated that is no
    # argument's is wrapped, any other is copied (`_take_results`).
    fresh_results = True

    def __init__(
        self,
        name: str,
        raw: Callable[..., None],
        arg_types: list,
        result_types: list,
        owner: object = None,
    ):
        self.name = name
        self.arg_specs = tuple(parse_memref_type(t) for t in arg_types)
        self.result_specs = tuple(parse_memref_type(t) for t in result_types)
        self._raw = raw
        self._owner = owner  # keeps the library (and its code) alive
        self._free = getattr(owner, "free", _free)
        offsets, words = [], 0
        for spec in self.arg_specs:
            offsets.append(8 * words)
            words += _words(spec.rank)
        self._offsets = tuple(offsets)
        # the static dims of each argument, checked on a `?` shape
        self._fixed_dims = tuple(
            tuple((d, n) for d, n in enumerate(spec.sizes) if n is not None)
            for spec in self.arg_specs
        )
        self._shapes_passed = tuple({} for _ in self.arg_specs)  # `_check_shape`
        self._argbuf_t = ctypes.c_int64 * words
        layout, words = [], 0
        for spec in self.result_specs:
            strides = spec.strides
            layout.append((spec, words, words + 3 + spec.rank, words + _words(spec.rank), strides))
            words += _words(spec.rank)
        self._result_layout = tuple(layout)
        self._resbuf_t = ctypes.c_int64 * words
        # results wanted as their bytes, not a tensor (`read_as_bytes`)
        self._bytes_results: frozenset[int] = frozenset()
        self._retyped: dict[int, torch.dtype] = {}  # results wrapped as another dtype (`wrap_as`)
        self._static = None  # `StaticResults` when it applies, else False; None: not made yet
        # One ctypes call of five arguments (threads.c `aten_mlir_call`) rather than one argument
        # per descriptor: ctypes converts each, 40 ns apiece (1.6 us of a 35 us call with 41).
        # Its arguments are ctypes objects made once, so the call needs no `argtypes`
        # conversions (0.23 us a call, not 0.47).
        call, most = threads.untyped_caller() if isinstance(raw, ctypes._CFuncPtr) else (None, 0)
        pointers = len(self.arg_specs) + (1 if self.result_specs else 0)
        self._call = call if call is not None and 0 < pointers <= most else None
        self._address = (
            ctypes.c_void_p(ctypes.cast(raw, ctypes.c_void_p).value) if self._call else None
        )
        self._offsets_array = (ctypes.c_int64 * max(1, len(offsets)))(*offsets)
        self._count = ctypes.c_int64(len(offsets))

    def read_as_bytes(self, index: int) -> None:
        """Result `index` comes back as `bytes` (a contiguous static one): the runtime's
        index-check flags, read once and dropped; wrapping them as a tensor cost 3-4 us."""
        spec = self.result_specs[index]
        if spec.static_shape is None:
            raise ValueError(f"{self.name}: result {index} ({spec.text}) is not static")
        self._bytes_results = self._bytes_results | {index}
        self._static = None

    def wrap_as(self, index: int, dtype: torch.dtype) -> None:
        """Result `index` comes back as `dtype`, an integer (or bool) dtype of its width: a bool
        or unsigned result travels as the signless int of its bytes, and is wrapped as what the
        program returns rather than viewed as it per call."""
        spec = self.result_specs[index]
        integral = not (dtype.is_floating_point or dtype.is_complex)
        if not integral or spec.dtype.is_floating_point or dtype.itemsize != spec.itemsize:
            raise ValueError(f"{self.name}: result {index} ({spec.text}) cannot be {dtype}")
        self._retyped = {**self._retyped, index: dtype}
        self._static = None

    def result_dtype(self, index: int) -> torch.dtype:
        """The dtype result `index` comes back as."""
        return self._retyped.get(index, self.result_specs[index].dtype)

    def numpy_dtype(self, index: int) -> np.dtype | None:
        """The numpy dtype result `index` is wrapped through; None: numpy has no such type."""
        return _NUMPY_DTYPES.get(self.result_dtype(index))

    strides_of = staticmethod(_strides_of)

    def __repr__(self) -> str:
        args = ", ".join(s.text for s in self.arg_specs)
        results = ", ".join(s.text for s in self.result_specs)
        return f"<NativeFunction {self.name}({args}) -> ({results})>"

    def _mismatch(self, index: int, spec: MemRefSpec, t) -> ValueError:
        return ValueError(
            f"{self.name}: argument {index}: expected a contiguous-able CPU tensor matching "
            f"{spec.text} (dtype {spec.dtype}), got {_describe(t)}"
        )

    def _marshal(self, index: int, t) -> tuple[torch.Tensor, int, tuple]:
        """Checks argument `index`: (the tensor as passed, contiguous; its data pointer; the
        words of its descriptor)."""
        spec = self.arg_specs[index]
        if not isinstance(t, torch.Tensor) or not t.is_cpu or t.dtype not in spec.dtypes:
            raise self._mismatch(index, spec, t)
        shape = t.shape
        if spec.static_shape is not None:
            if shape != spec.static_shape:
                raise self._mismatch(index, spec, t)
            strides = spec.strides
        else:
            # the `?` shapes this argument took before, with their strides: one dict lookup
            # stands for the rank and static-dim checks (they depend on the shape alone)
            strides = self._shapes_passed[index].get(shape)
            if strides is None:
                strides = self._check_shape(index, spec, t)
        if not t.is_contiguous():
            t = t.contiguous()
        ptr = t.data_ptr()
        return t, ptr, (ptr, ptr, 0, *shape, *strides)

    def _check_shape(self, index: int, spec: MemRefSpec, t: torch.Tensor) -> tuple:
        """The strides of `t`'s shape for argument `index` (a `?` memref), once its rank and
        static dims are checked; remembered for the next call of that shape."""
        shape = t.shape
        if len(shape) != spec.rank or any(shape[d] != n for d, n in self._fixed_dims[index]):
            raise self._mismatch(index, spec, t)
        passed = self._shapes_passed[index]
        if len(passed) >= _STRIDES_KEPT:
            passed.clear()
        strides = passed[shape] = identity_strides(shape)
        return strides

    def __call__(self, *tensors: torch.Tensor) -> list[torch.Tensor]:
        """Runs the function; returns fresh tensors owned by the caller."""
        if len(tensors) != len(self.arg_specs):
            raise ValueError(
                f"{self.name}: expected {len(self.arg_specs)} arguments, got {len(tensors)}"
            )
        words, keep, pointers = [], [], []
        for index, t in enumerate(tensors):
            t, ptr, descriptor = self._marshal(index, t)
            keep.append(t)  # alive until the call returns
            pointers.append(ptr)
            words += descriptor
        return self._invoke(self._argbuf_t(*words), pointers)

    def bind(
        self, fixed: dict[int, torch.Tensor], checked: bool = False
    ) -> Callable[..., list[torch.Tensor]]:
        """This function with the arguments at positions `fixed` checked and marshalled once,
        now: the result takes the other arguments, in order. A program's weights are the same
        tensors on every call; marshalling them cost more than running a small model.

        `checked`: the caller has checked, before every call, that each other argument is a
        CPU tensor of a dtype it accepts, of its rank and static sizes (`CallGuards`, for the
        plan's direct call): the call then only makes them contiguous and reads their
        addresses (and a `?` one's strides), not each check again (~2 us an argument)."""
        template, kept, pointers = self._argbuf_t(), [], []
        for index, t in fixed.items():
            t, ptr, descriptor = self._marshal(index, t)
            kept.append(t)  # a contiguous copy, if one was made, lives as long as the binding
            pointers.append(ptr)
            at = self._offsets[index] // 8
            template[at : at + len(descriptor)] = descriptor
        free = [i for i in range(len(self.arg_specs)) if i not in fixed]
        slots = [(i, self._offsets[i] // 8) for i in free]
        copy = self._argbuf_t.from_buffer_copy
        if checked:
            return self._checked_call(template, kept, pointers, free)

        def call(*tensors: torch.Tensor) -> list[torch.Tensor]:
            if len(tensors) != len(slots):
                raise ValueError(
                    f"{self.name}: expected {len(slots)} unbound arguments, got {len(tensors)}"
                )
            argbuf, keep, used = copy(template), [], list(pointers)
            for (index, at), t in zip(slots, tensors):
                t, ptr, descriptor = self._marshal(index, t)
                keep.append(t)  # alive until the call returns
                used.append(ptr)
                argbuf[at : at + len(descriptor)] = descriptor
            return self._invoke(argbuf, used)

        call._bound = kept
        return call

    def _checked_call(self, template, kept: list, pointers: list[int], free: list[int]):
        """`bind(..., checked=True)`'s call: static sizes and strides are in `template` once,
        and the `?` arguments' sizes and strides in a copy of it per distinct set of their
        shapes (one dict lookup a call rather than a ctypes slice write per argument: 0.7-1.1
        us of a dynamic b1 s7 call)."""
        ats, dynamic = [], []
        for i in free:
            at = self._offsets[i] // 8
            ats.append(at)
            spec = self.arg_specs[i]
            if spec.static_shape is None:
                dynamic.append((at + 3, at + 3 + 2 * spec.rank))
            else:
                template[at + 3 : at + 3 + 2 * spec.rank] = (*spec.static_shape, *spec.strides)
        copy, count, name = self._argbuf_t.from_buffer_copy, len(free), self.name
        shaped = [k for k, i in enumerate(free) if self.arg_specs[i].static_shape is None]
        pick = picker(shaped)
        templates: dict = {}  # the `?` arguments' shapes -> `template` with their words

        def sized(shapes: tuple):
            if len(templates) >= _STRIDES_KEPT:
                templates.clear()
            filled = copy(template)
            for (begin, end), shape in zip(dynamic, shapes):
                filled[begin:end] = (*shape, *identity_strides(shape))
            templates[shapes] = filled
            return filled

        def call(*tensors: torch.Tensor) -> list[torch.Tensor]:
            if len(tensors) != count:
                raise ValueError(f"{name}: expected {count} unbound arguments, got {len(tensors)}")
            if not all(map(_IS_CONTIGUOUS, tensors)):
                tensors = [t.contiguous() for t in tensors]  # alive until the call returns
            used = list(map(_DATA_PTR, tensors))
            if dynamic:
                shapes = tuple(map(_SHAPE, pick(tensors)))
                argbuf = copy(templates.get(shapes) or sized(shapes))
            else:
                argbuf = copy(template)
            for at, ptr in zip(ats, used):
                argbuf[at] = argbuf[at + 1] = ptr
            return self._invoke(argbuf, pointers + used)

        call._bound = kept
        return call

    def _invoke(self, argbuf, pointers: list[int]) -> list[torch.Tensor]:
        threads.sync()  # the pool follows torch.set_num_threads
        if self._call is not None:
            resbuf = self._resbuf_t() if self._result_layout else None  # None: a null pointer
            if not self._call(self._address, resbuf, argbuf, self._offsets_array, self._count):
                count = len(self._offsets)
                raise RuntimeError(f"{self.name}: aten_mlir_call refused {count} descriptors")
            return self._take_results(resbuf[:], pointers) if resbuf is not None else []
        base = ctypes.addressof(argbuf)
        descriptors = [base + offset for offset in self._offsets]
        if not self._result_layout:
            self._raw(*descriptors)
            return []
        resbuf = self._resbuf_t()
        self._raw(ctypes.addressof(resbuf), *descriptors)
        return self._take_results(resbuf[:], pointers)

    def _take_results(self, raw: list[int], input_pointers: list[int]) -> list:
        static = self._static
        if static is None:
            static = self._static = StaticResults(self) if StaticResults.applies(self) else False
        outputs = static.take(raw, input_pointers) if static else None
        if outputs is None:
            outputs = take_results(self, raw, input_pointers)
            for k, dtype in self._retyped.items():
                outputs[k] = outputs[k].view(dtype)
        return outputs
