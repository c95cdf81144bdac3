"""View and shape ops -> core aten views (view, permute, expand, slice, select, squeeze...).

Views never become `as_strided`: each rule names the logical view it stands for. In the aten IR a
tensor is a value (no strides, no aliasing), so `aten.reshape` is `aten.view` exactly, and the
functional `*_copy` variants torch.export emits are their views.

Sizes a rule passes to a view are ints where static and `tensor.dim` values where the op's type
has `?`; the rule that produces the op's result gives it the op's result type (`results=`), which
is the truth for shape and dtype alike.
"""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from aten_mlir.dialects import get_op_def

from .common import dtype as _dtype
from .common import numel, rank, tensor_of  # noqa: F401  (re-exported)
from .registry import register_decomposition


def result_type(op) -> list[ir.Type]:
    """`results=` for an op building the single result of `op`."""
    return [op.results[0].type]


def tensor_like(rewriter, sizes: list, like: ir.Value) -> ir.RankedTensorType:
    """The tensor type of `sizes` (a runtime value or -1 is `?`) with `like`'s element type."""
    dyn = ir.ShapedType.get_dynamic_size()
    shape = [s if isinstance(s, int) and s >= 0 else dyn for s in sizes]
    with rewriter.op.location:
        return ir.RankedTensorType.get(shape, ir.RankedTensorType(like.type).element_type)


def view(rewriter, x: ir.Value, sizes: list, *, results=None) -> ir.Value:
    """`aten.view(x, sizes)`; sizes holding runtime values make `?` dims unless `results`."""
    if results is None and any(isinstance(s, ir.Value) for s in sizes):
        results = [tensor_like(rewriter, sizes, x)]
    return rewriter.aten("aten.view", x, list(sizes), results=results)


def _runtime_scalar(arg) -> bool:
    if isinstance(arg, (list, tuple)):
        return any(_runtime_scalar(a) for a in arg)
    return isinstance(arg, ir.Value) and not isinstance(arg.type, ir.RankedTensorType)


def aten_sized(rewriter, op_name: str, *args, sizes: list, elem: torch.dtype, **kwargs):
    """`rewriter.aten(...)` for an op whose arguments may hold runtime sizes (index values,
    which meta inference cannot run on): the result type is given as `sizes` of `elem`."""
    results = None
    if _runtime_scalar(args) or _runtime_scalar(list(kwargs.values())):
        results = [tensor_of(rewriter.op, sizes, elem)]
    return rewriter.aten(op_name, *args, results=results, **kwargs)


def arange(rewriter, start, end, elem: torch.dtype = torch.int64) -> ir.Value:
    """`aten.arange.start_step(start, end, 1)`; either end may be a runtime size."""
    count = rewriter.index_arith(arith.SubIOp, end, start)
    return aten_sized(
        rewriter, "aten.arange.start_step", start, end, 1, sizes=[count], elem=elem, dtype=elem
    )


def slice_dim(rewriter, x: ir.Value, dim: int, start, end) -> ir.Value:
    """`aten.slice.Tensor(x, dim, start, end)` (0 <= start <= end <= size; runtime ones too)."""
    sizes = rewriter.sizes(x)
    sizes[dim] = rewriter.index_arith(arith.SubIOp, end, start)
    return aten_sized(
        rewriter, "aten.slice.Tensor", x, dim, start, end, sizes=sizes, elem=_dtype(x)
    )


def as_result(rewriter, op, value: ir.Value) -> ir.Value:
    """`value` with the type of `op`'s result: itself, or an `aten.view` that states the static
    sizes the op's type knows (or forgets)."""
    if value.type == op.results[0].type:
        return value
    return view(rewriter, value, rewriter.sizes(value), results=result_type(op))


# Ops whose result is a fresh contiguous tensor (BLAS outputs).
CONTIGUOUS_RESULTS = frozenset({"aten.mm", "aten.bmm", "aten.addmm"})


def _non_unit(sizes: list) -> list:
    return [s for s in sizes if not (isinstance(s, int) and s == 1)]


def viewable(rewriter, x: ir.Value, sizes: list) -> bool:
    """True when `aten.view(x, sizes)` succeeds whatever x's strides: x is a fresh contiguous
    result, has at most one dim that may exceed 1, or the view only adds or drops size-1 dims."""
    if isinstance(x, ir.OpResult):
        owner = x.owner.operation
        if owner.name in CONTIGUOUS_RESULTS:
            return True
        if owner.name == "aten.clone" and "memory_format" in owner.attributes:
            return ir.StringAttr(owner.attributes["memory_format"]).value == "contiguous_format"
    have, want = _non_unit(rewriter.sizes(x)), _non_unit(sizes)
    if len(have) <= 1:
        return True
    return len(have) == len(want) and all(
        a is b or (isinstance(a, int) and isinstance(b, int) and a == b) for a, b in zip(have, want)
    )


def reshape(rewriter, x: ir.Value, sizes: list, *, results=None) -> ir.Value:
    """ATen's `reshape`: `aten.view`, after `aten.clone` to contiguous memory unless `viewable`.
    The clone is what eager reshape does to a non-viewable input; the reference interpreter runs
    eager view kernels, which reject such strides."""
    if not viewable(rewriter, x, sizes):
        x = rewriter.aten("aten.clone", x, memory_format=torch.contiguous_format)
    return view(rewriter, x, sizes, results=results)


def permute(rewriter, x: ir.Value, dims: list[int], *, results=None) -> ir.Value:
    return rewriter.aten("aten.permute", x, dims, results=results)


def transposed_dims(n: int, dim0: int, dim1: int) -> list[int]:
    dims = list(range(n))
    if n:
        dim0, dim1 = dim0 % n, dim1 % n
        dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
    return dims


def broadcast_size(rewriter, sizes: list) -> int | ir.Value:
    """The broadcast of sizes that are equal or 1: a static size other than 1 wins, else the
    runtime maximum (`arith.maxsi`) of the dynamic ones."""
    static = [s for s in sizes if isinstance(s, int) and s != 1]
    if static:
        return static[0]
    dynamic = [s for s in sizes if isinstance(s, ir.Value)]
    if not dynamic:
        return 1
    out = dynamic[0]
    for s in dynamic[1:]:
        out = rewriter.index_arith(arith.MaxSIOp, out, s)
    return out


# -- transposes and permutations ------------------------------------------------------------------


@register_decomposition("aten.transpose.int")
def decompose_transpose(op, rewriter):
    """aten.transpose.int -> aten.permute"""
    x = rewriter.args["self"]
    dims = transposed_dims(rank(x), rewriter.args["dim0"], rewriter.args["dim1"])
    return permute(rewriter, x, dims, results=result_type(op))


@register_decomposition("aten.t")
def decompose_t(op, rewriter):
    """aten.t -> aten.permute (the identity permutation below rank 2)"""
    x = rewriter.args["self"]
    return permute(rewriter, x, transposed_dims(rank(x), 0, -1), results=result_type(op))


@register_decomposition("aten.swapaxes")
def decompose_swapaxes(op, rewriter):
    """aten.swapaxes -> aten.transpose.int"""
    x, a, b = (rewriter.args[k] for k in ("self", "axis0", "axis1"))
    return rewriter.aten("aten.transpose.int", x, a, b, results=result_type(op))


@register_decomposition("aten.movedim.int")
def decompose_movedim(op, rewriter):
    """aten.movedim.int -> aten.permute"""
    x = rewriter.args["self"]
    n = rank(x)
    src, dst = (rewriter.args[k] % max(n, 1) for k in ("source", "destination"))
    dims = [d for d in range(n) if d != src]
    dims.insert(dst, src)
    return permute(rewriter, x, dims[:n], results=result_type(op))


# -- reshapes -------------------------------------------------------------------------------------


def _decompose_as_view(size_arg: str, op, rewriter):
    return view(rewriter, rewriter.args["self"], rewriter.args[size_arg], results=result_type(op))


@register_decomposition("aten.reshape")
def decompose_reshape(op, rewriter):
    """aten.reshape -> aten.clone (to contiguous memory, unless provably viewable), aten.view:
    eager reshape's copy of a non-viewable input, so that eager view kernels accept the view"""
    x, sizes = rewriter.args["self"], rewriter.args["shape"]
    return reshape(rewriter, x, sizes, results=result_type(op))


@register_decomposition("aten._unsafe_view")
def decompose_unsafe_view(op, rewriter):
    """aten._unsafe_view -> aten.view"""
    return _decompose_as_view("size", op, rewriter)


@register_decomposition("aten.view_as")
def decompose_view_as(op, rewriter):
    """aten.view_as -> aten.view (the sizes of `other`)"""
    x, other = rewriter.args["self"], rewriter.args["other"]
    return view(rewriter, x, rewriter.sizes(other), results=result_type(op))


@register_decomposition("aten.flatten.using_ints")
def decompose_flatten(op, rewriter):
    """aten.flatten.using_ints -> aten.clone (unless provably viewable), aten.view: ATen
    flattens with reshape"""
    x = rewriter.args["self"]
    n = rank(x)
    if n == 0:
        return reshape(rewriter, x, [1], results=result_type(op))
    start, end = rewriter.args["start_dim"] % n, rewriter.args["end_dim"] % n
    sizes = rewriter.sizes(x)
    flat = 1
    for s in sizes[start : end + 1]:
        flat = rewriter.index_arith(arith.MulIOp, flat, s)
    return reshape(rewriter, x, sizes[:start] + [flat] + sizes[end + 1 :], results=result_type(op))


@register_decomposition("aten.unflatten.int")
def decompose_unflatten(op, rewriter):
    """aten.unflatten.int -> aten.view"""
    x, dim, parts = (rewriter.args[k] for k in ("self", "dim", "sizes"))
    sizes = rewriter.sizes(x)
    dim %= len(sizes)
    return view(rewriter, x, sizes[:dim] + list(parts) + sizes[dim + 1 :], results=result_type(op))


@register_decomposition("aten.squeeze")
def decompose_squeeze(op, rewriter):
    """aten.squeeze -> aten.squeeze.dims (the static size-1 dims; the op's type already assumes
    a `?` dim is not 1, as torch.export does)"""
    x = rewriter.args["self"]
    t = ir.RankedTensorType(x.type)
    dims = [d for d in range(t.rank) if t.get_dim_size(d) == 1 and not t.is_dynamic_dim(d)]
    if t.rank - len(dims) != rank(op.results[0]):
        return None
    return rewriter.aten("aten.squeeze.dims", x, dims, results=result_type(op))


# -- expansion ------------------------------------------------------------------------------------


@register_decomposition("aten.expand_as")
def decompose_expand_as(op, rewriter):
    """aten.expand_as -> aten.expand (the sizes of `other`)"""
    x, other = rewriter.args["self"], rewriter.args["other"]
    return rewriter.aten("aten.expand", x, rewriter.sizes(other), results=result_type(op))


@register_decomposition("aten.broadcast_tensors")
def decompose_broadcast_tensors(op, rewriter):
    """aten.broadcast_tensors -> aten.expand (each tensor to the common shape)"""
    tensors = rewriter.args["tensors"]
    n = max(rank(t) for t in tensors)
    shape = []
    for d in range(n):
        sizes = [rewriter.size(t, d - n) for t in tensors if d - n >= -rank(t)]
        shape.append(broadcast_size(rewriter, sizes))
    return [
        rewriter.aten("aten.expand", t, shape, results=[r.type])
        for t, r in zip(tensors, op.results)
    ]


# -- splits, slices and selections ----------------------------------------------------------------


@register_decomposition("aten.split.Tensor")
def decompose_split(op, rewriter):
    """aten.split.Tensor -> aten.split_with_sizes (the last piece takes the remainder)"""
    x, split_size, dim = (rewriter.args[k] for k in ("self", "split_size", "dim"))
    n = len(op.results)
    rest = rewriter.index_arith(arith.MulIOp, split_size, n - 1)
    last = rewriter.index_arith(arith.SubIOp, rewriter.size(x, dim), rest)
    sizes = [split_size] * (n - 1) + [last]
    return rewriter.build(
        "aten.split_with_sizes", x, sizes, dim, results=[r.type for r in op.results]
    ).results


@register_decomposition("aten.split.sizes")
def decompose_split_sizes(op, rewriter):
    """aten.split.sizes -> aten.split_with_sizes"""
    x, sizes, dim = (rewriter.args[k] for k in ("self", "split_size", "dim"))
    results = [r.type for r in op.results]
    return rewriter.build("aten.split_with_sizes", x, sizes, dim, results=results).results


@register_decomposition("aten.chunk")
def decompose_chunk(op, rewriter):
    """aten.chunk -> aten.split.Tensor (pieces of ceil(size / chunks))"""
    x, chunks, dim = (rewriter.args[k] for k in ("self", "chunks", "dim"))
    size = rewriter.size(x, dim)
    if isinstance(size, ir.Value):
        plus = rewriter.index_arith(arith.AddIOp, size, chunks - 1)
        split_size = rewriter.index_arith(arith.FloorDivSIOp, plus, chunks)
    else:
        split_size = -(-size // chunks)
    results = [r.type for r in op.results]
    return rewriter.build("aten.split.Tensor", x, split_size, dim, results=results).results


@register_decomposition("aten.unbind.int")
def decompose_unbind(op, rewriter):
    """aten.unbind.int -> aten.select.int (one per result)"""
    x, dim = rewriter.args["self"], rewriter.args["dim"]
    return [
        rewriter.aten("aten.select.int", x, dim, i, results=[r.type])
        for i, r in enumerate(op.results)
    ]


@register_decomposition("aten.narrow")
def decompose_narrow(op, rewriter):
    """aten.narrow -> aten.slice.Tensor"""
    x, dim, start, length = (rewriter.args[k] for k in ("self", "dim", "start", "length"))
    if isinstance(start, int) and start < 0:
        start = rewriter.index_arith(arith.AddIOp, start, rewriter.size(x, dim))
    end = rewriter.index_arith(arith.AddIOp, start, length)
    return rewriter.aten("aten.slice.Tensor", x, dim, start, end, results=result_type(op))


# -- the functional `*_copy` variants: in value semantics, the views themselves -------------------


def _register_copy_as_view(copy_name: str, view_name: str) -> None:
    def decompose_copy(op, rewriter):
        schema = get_op_def(view_name).args  # the same arguments, `self` passed by position
        args = [rewriter.args[a.name] for a in schema if not a.kwarg_only]
        kwargs = {a.name: rewriter.args[a.name] for a in schema if a.kwarg_only}
        return rewriter.aten(view_name, *args, **kwargs, results=[r.type for r in op.results])

    decompose_copy.__name__ = "decompose_" + copy_name.split(".", 1)[1].replace(".", "_")
    decompose_copy.__doc__ = f"{copy_name} -> {view_name}"
    register_decomposition(copy_name)(decompose_copy)


COPY_VIEWS = {
    "aten.view_copy": "aten.view",
    "aten.expand_copy": "aten.expand",
    "aten.permute_copy": "aten.permute",
    "aten.t_copy": "aten.t",
    "aten.transpose_copy.int": "aten.transpose.int",
    "aten.squeeze_copy": "aten.squeeze",
    "aten.squeeze_copy.dim": "aten.squeeze.dim",
    "aten.squeeze_copy.dims": "aten.squeeze.dims",
    "aten.unsqueeze_copy": "aten.unsqueeze",
    "aten.select_copy.int": "aten.select.int",
    "aten.slice_copy.Tensor": "aten.slice.Tensor",
    "aten.diagonal_copy": "aten.diagonal",
    "aten.alias_copy": "aten.alias",
    "aten.narrow_copy": "aten.narrow",
}
for _copy, _view in COPY_VIEWS.items():
    _register_copy_as_view(_copy, _view)
