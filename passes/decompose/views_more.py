"""More views -> core views: aliases of `split`/`chunk`/`unbind`/`unfold` and their `*_copy`
forms, tensor_split and its h/v/d forms as slices, movedim lists as permutes, detach/contiguous.
`view_as_real`/`view_as_complex` reinterpret memory between real pairs and complex numbers:
no core op does that, and torch has no decomposition either."""

from __future__ import annotations

import torch
from mlir import ir

from .registry import keep_whole, register_decomposition
from .views import permute, rank, reshape, result_type


def _register_alias(op_name: str, target: str, args: tuple[str, ...], kwargs=()) -> None:
    """`op_name` -> `target` with the same arguments, every result kept."""

    def rule(op, rewriter):
        a = rewriter.args
        out = rewriter.build(
            target,
            *(a[k] for k in args),
            **{k: a[k] for k in kwargs},
            results=[r.type for r in op.results],
        )
        return list(out.results)

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = f"{op_name} -> {target}"
    register_decomposition(op_name)(rule)


for _name, _target, _args in (
    ("aten.unsafe_split.Tensor", "aten.split.Tensor", ("self", "split_size", "dim")),
    ("aten.split_copy.Tensor", "aten.split.Tensor", ("self", "split_size", "dim")),
    ("aten.unsafe_split_with_sizes", "aten.split_with_sizes", ("self", "split_sizes", "dim")),
    ("aten.split_with_sizes_copy", "aten.split_with_sizes", ("self", "split_sizes", "dim")),
    ("aten.unsafe_chunk", "aten.chunk", ("self", "chunks", "dim")),
    ("aten.unbind_copy.int", "aten.unbind.int", ("self", "dim")),
    ("aten.unfold_copy", "aten.unfold", ("self", "dimension", "size", "step")),
    ("aten.swapdims", "aten.transpose.int", ("self", "dim0", "dim1")),
    ("aten.moveaxis.int", "aten.movedim.int", ("self", "source", "destination")),
    ("aten.moveaxis.intlist", "aten.movedim.intlist", ("self", "source", "destination")),
    ("aten.linalg_diagonal", "aten.diagonal", ("A", "offset", "dim1", "dim2")),
    ("aten.detach", "aten.alias", ("self",)),
    ("aten.detach_copy", "aten.alias", ("self",)),
    ("aten.lift_fresh_copy", "aten.clone", ("self",)),
    ("aten.ravel", "aten.flatten.using_ints", ("self",)),
    ("aten._reshape_copy", "aten.reshape", ("self", "size")),
    ("aten.view_as_real_copy", "aten.view_as_real", ("self",)),
    ("aten.view_as_complex_copy", "aten.view_as_complex", ("self",)),
):
    _register_alias(_name, _target, _args)

_REASON = "reinterprets the memory of complex numbers as real pairs (or back); no core op does"
keep_whole("aten.view_as_real", _REASON + ", and torch has no decomposition")
keep_whole("aten.view_as_complex", _REASON + ", and torch has no decomposition")


@register_decomposition("aten.contiguous")
def decompose_contiguous(op, rewriter):
    """aten.contiguous -> aten.clone (to the memory format asked)"""
    fmt = rewriter.args["memory_format"] or torch.contiguous_format
    return rewriter.aten("aten.clone", rewriter.args["self"], memory_format=fmt)


@register_decomposition("aten.reshape_as")
def decompose_reshape_as(op, rewriter):
    """aten.reshape_as -> aten.clone (unless provably viewable), aten.view (`other`'s sizes)"""
    x, other = rewriter.args["self"], rewriter.args["other"]
    return reshape(rewriter, x, rewriter.sizes(other), results=result_type(op))


@register_decomposition("aten.movedim.intlist")
def decompose_movedim_intlist(op, rewriter):
    """aten.movedim.intlist -> aten.permute (the moved dims at their places, the rest in order)"""
    x = rewriter.args["self"]
    n = rank(x)
    src = [d % max(n, 1) for d in rewriter.args["source"]]
    dst = [d % max(n, 1) for d in rewriter.args["destination"]]
    rest = iter(d for d in range(n) if d not in src)
    placed = dict(zip(dst, src))
    dims = [placed[p] if p in placed else next(rest) for p in range(n)]
    return permute(rewriter, x, dims, results=result_type(op))


# -- tensor_split and hsplit/vsplit/dsplit: slices ------------------------------------------------


def _split_at(op, rewriter, x: ir.Value, dim: int, bounds: list[int]):
    """One `aten.slice.Tensor` per piece between consecutive `bounds` (clamped to the size)."""
    size = ir.RankedTensorType(x.type).get_dim_size(dim)
    if size < 0:
        return None
    edges = [0] + [min(max(b, 0), size) for b in bounds] + [size]
    pieces = []
    for (start, end), r in zip(zip(edges, edges[1:]), op.results):
        end = max(start, end)
        piece = rewriter.aten("aten.slice.Tensor", x, dim, start, end, results=[r.type])
        pieces.append(piece)
    return pieces


def _section_bounds(size: int, sections: int) -> list[int]:
    """numpy's array_split: the first `size % sections` pieces one longer."""
    base, extra = divmod(size, sections)
    bounds, at = [], 0
    for i in range(sections - 1):
        at += base + (1 if i < extra else 0)
        bounds.append(at)
    return bounds


def _tensor_split(op, rewriter, dim, sections=None, indices=None):
    x = rewriter.args["self"]
    dim %= max(rank(x), 1)
    size = ir.RankedTensorType(x.type).get_dim_size(dim)
    if sections is not None:
        if size < 0:
            return None
        indices = _section_bounds(size, sections)
    return _split_at(op, rewriter, x, dim, list(indices))


@register_decomposition("aten.tensor_split.sections")
def decompose_tensor_split_sections(op, rewriter):
    """aten.tensor_split.sections -> aten.slice.Tensor (the first size % n pieces one longer)"""
    return _tensor_split(op, rewriter, rewriter.args["dim"], sections=rewriter.args["sections"])


@register_decomposition("aten.tensor_split.indices")
def decompose_tensor_split_indices(op, rewriter):
    """aten.tensor_split.indices -> aten.slice.Tensor (between the indices)"""
    return _tensor_split(op, rewriter, rewriter.args["dim"], indices=rewriter.args["indices"])


def _register_directional_split(op_name: str, key: str, dim_of) -> None:
    def rule(op, rewriter):
        dim = dim_of(rank(rewriter.args["self"]))
        return _tensor_split(op, rewriter, dim, **{key: rewriter.args[key]})

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = f"{op_name} -> aten.slice.Tensor (tensor_split along its dim)"
    register_decomposition(op_name)(rule)


def _hsplit_dim(rank: int) -> int:
    return 1 if rank > 1 else 0


def _vsplit_dim(rank: int) -> int:
    return 0


def _dsplit_dim(rank: int) -> int:
    return 2


for _name, _key, _dim_of in (
    ("aten.hsplit.int", "sections", _hsplit_dim),
    ("aten.hsplit.array", "indices", _hsplit_dim),
    ("aten.vsplit.int", "sections", _vsplit_dim),
    ("aten.vsplit.array", "indices", _vsplit_dim),
    ("aten.dsplit.int", "sections", _dsplit_dim),
    ("aten.dsplit.array", "indices", _dsplit_dim),
):
    _register_directional_split(_name, _key, _dim_of)
