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
import math
import re
from typing import Callable, NamedTuple

import numpy as np
import torch
from mlir import ir

from . import threads

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
# `memref.get_global` lowers to this sentinel allocated pointer: the buffer is not heap memory.
_NOT_HEAP = frozenset({0, 0xDEADBEEF})

_libc = ctypes.CDLL(None)
_free = _libc.free
_free.argtypes = [ctypes.c_void_p]
_free.restype = None


class _Allocation:
    """Owns one result buffer malloc'd by the compiled code: freed when the last tensor over it
    (views included: torch keeps the buffer object alive with the storage) is gone."""

    __slots__ = ("address", "wrapped", "free")

    def __init__(self, address: int, free=_free):
        self.address = address
        self.wrapped = False  # a tensor already uses it as storage
        self.free = free  # the library's (its cache of temporaries), else libc's

    def __del__(self):
        self.free(self.address)


def _wrap(owner: _Allocation, address: int, sizes, spec) -> torch.Tensor:
    """A tensor over `nbytes` at `address`, no copy; it keeps `owner` alive (the tensor's
    storage holds the array, the array the ctypes buffer, the buffer `owner`)."""
    count = math.prod(sizes)
    view = (ctypes.c_char * (count * spec.itemsize)).from_address(address)
    view._owner = owner
    if spec.numpy is not None:
        return torch.from_numpy(np.ndarray(sizes, spec.numpy, view))
    flat = torch.frombuffer(view, dtype=spec.dtype, count=count)
    # sizes unpacked: `view(tuple)` parses a sequence and took half again as long
    return flat.view(*sizes) if sizes else flat.view(())


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

    def bind(self, fixed: dict[int, torch.Tensor]) -> Callable[..., list[torch.Tensor]]:
        """This function with the arguments at positions `fixed` checked and marshalled once,
        now: the result takes the other arguments, in order. A program's weights are the same
        tensors on every call; marshalling them cost more than running a small model."""
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

    def _take_results(self, raw: list[int], input_pointers: list[int]) -> list[torch.Tensor]:
        outputs, owners = [], {}
        try:
            for k, (spec, at, strides_at, end, static_strides) in enumerate(self._result_layout):
                alloc, aligned, offset = raw[at : at + 3]
                sizes = tuple(raw[at + 3 : strides_at])
                strides = tuple(raw[strides_at:end])
                if k in self._bytes_results:
                    outputs.append(_bytes_of(spec, alloc, aligned, offset, sizes, strides))
                    if alloc not in _NOT_HEAP and alloc not in input_pointers:
                        owners.setdefault(alloc, _Allocation(alloc, self._free))
                    continue
                # a `?` result in its own row-major buffer is wrapped too, not copied out
                static_strides = static_strides or _strides_of(sizes)
                # a result returned in its own heap buffer becomes the tensor's storage; one
                # that is an input, a constant or a strided view of a buffer is copied
                owned = alloc not in _NOT_HEAP and alloc not in input_pointers
                if owned and alloc not in owners:
                    owners[alloc] = _Allocation(alloc, self._free)
                if spec.static_shape is not None and sizes != spec.static_shape:
                    raise RuntimeError(
                        f"{self.name}: result of type {spec.text} came back with sizes {sizes}"
                    )
                address = aligned + offset * spec.itemsize
                # two results over one buffer (`return %x, %x`) stay two tensors: copy the second
                fresh = owned and not owners[alloc].wrapped
                if fresh and strides == static_strides and math.prod(sizes) > 0:
                    owners[alloc].wrapped = True
                    outputs.append(_wrap(owners[alloc], address, sizes, spec))
                    continue
                if strides == static_strides:
                    out = torch.empty(sizes, dtype=spec.dtype)
                    ctypes.memmove(out.data_ptr(), address, out.nbytes)
                else:
                    out = _copy_out(spec, address, sizes, strides)
                outputs.append(out)
        finally:
            # owned buffers are freed with their last tensor (or here, on an error)
            owners.clear()
        return outputs


def _bytes_of(spec: MemRefSpec, alloc, aligned, offset, sizes, strides) -> bytes:
    address = aligned + offset * spec.itemsize
    if sizes != spec.static_shape or strides != spec.strides:
        return _copy_out(spec, address, sizes, strides).numpy().tobytes()
    return ctypes.string_at(address, math.prod(sizes) * spec.itemsize)


def _copy_out(spec: MemRefSpec, address: int, sizes: tuple, strides: tuple):
    """Copies one result buffer of any (non-negative) strides into a fresh contiguous tensor."""
    out = torch.empty(sizes, dtype=spec.dtype)
    numel = math.prod(sizes)
    if numel == 0:
        return out
    if all(n == 1 or s == t for n, s, t in zip(sizes, strides, identity_strides(sizes))):
        ctypes.memmove(out.data_ptr(), address, numel * spec.itemsize)
        return out
    if any(s < 0 for s in strides):
        raise RuntimeError(f"result of type {spec.text} has negative strides {strides}")
    span = 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    source = (ctypes.c_char * (span * spec.itemsize)).from_address(address)
    flat = torch.frombuffer(source, dtype=spec.dtype)
    out.copy_(flat.as_strided(sizes, strides))
    return out
