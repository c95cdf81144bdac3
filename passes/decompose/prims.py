"""The `prims` ops a program calls directly (torch-mlir's e2e suite does; export keeps them, and
torch's `run_decompositions` cannot functionalize the aliasing ones) -> core aten.

Each rule gives the op's own result type to what it builds (`results=`), so shape and dtype are
the prim's (`collapse`'s `end` is inclusive). Not here: `prims.sum`, whose eager kernel widens
int32 to int64 while its meta function (so the exported type) keeps int32.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .registry import register_decomposition
from .views import rank, result_type, view


def _collapse(op, rewriter):
    """Dims `start..end` (both included) of `a` merged into one, as one view."""
    a, start, end = (rewriter.args[k] for k in ("a", "start", "end"))
    sizes = rewriter.sizes(a)
    merged = 1
    for s in sizes[start : end + 1]:
        merged = rewriter.index_arith(arith.MulIOp, merged, s)
    return view(rewriter, a, sizes[:start] + [merged] + sizes[end + 1 :], results=result_type(op))


@register_decomposition("prims.collapse_view")
def decompose_collapse_view(op, rewriter):
    """prims.collapse_view -> aten.view (dims start..end, end included, merged)"""
    return _collapse(op, rewriter)


@register_decomposition("prims.collapse")
def decompose_collapse(op, rewriter):
    """prims.collapse -> aten.view (the copying twin of collapse_view: values are the same)"""
    return _collapse(op, rewriter)


@register_decomposition("prims.split_dim")
def decompose_split_dim(op, rewriter):
    """prims.split_dim -> aten.view (dim split into outer_length x the rest)"""
    a, dim, outer = (rewriter.args[k] for k in ("a", "dim", "outer_length"))
    sizes = rewriter.sizes(a)
    dim = dim % len(sizes)
    inner = ir.RankedTensorType(op.results[0].type).get_dim_size(dim + 1)
    if inner < 0:  # `?`: the inner length is size / outer_length at run time
        inner = rewriter.index_arith(arith.DivSIOp, sizes[dim], outer)
    return view(
        rewriter, a, sizes[:dim] + [outer, inner] + sizes[dim + 1 :], results=result_type(op)
    )


@register_decomposition("prims.view_of")
def decompose_view_of(op, rewriter):
    """prims.view_of -> aten.alias"""
    return rewriter.aten("aten.alias", rewriter.args["a"], results=result_type(op))


@register_decomposition("prims.convert_element_type")
def decompose_convert_element_type(op, rewriter):
    """prims.convert_element_type -> aten._to_copy"""
    a, dtype = rewriter.args["a"], rewriter.args["dtype"]
    return rewriter.aten("aten._to_copy", a, dtype=dtype, results=result_type(op))


@register_decomposition("prims.squeeze")
def decompose_squeeze(op, rewriter):
    """prims.squeeze -> aten.squeeze.dims"""
    a, dims = rewriter.args["a"], rewriter.args["dimensions"]
    if not dims:
        return a
    return rewriter.aten("aten.squeeze.dims", a, list(dims), results=result_type(op))


@register_decomposition("prims.transpose")
def decompose_transpose(op, rewriter):
    """prims.transpose -> aten.permute"""
    a, permutation = rewriter.args["a"], rewriter.args["permutation"]
    return rewriter.aten("aten.permute", a, list(permutation), results=result_type(op))


@register_decomposition("prims.broadcast_in_dim")
def decompose_broadcast_in_dim(op, rewriter):
    """prims.broadcast_in_dim -> aten.view, aten.expand: `a`'s dims placed at
    broadcast_dimensions (size 1 elsewhere), then expanded to `shape`"""
    a, shape, dims = (rewriter.args[k] for k in ("a", "shape", "broadcast_dimensions"))
    sizes = rewriter.sizes(a)
    placed = [1] * len(shape)
    for source, target in enumerate(dims):
        placed[target] = sizes[source]
    if len(shape) != rank(a):
        a = view(rewriter, a, placed)
    return rewriter.aten("aten.expand", a, list(shape), results=result_type(op))


@register_decomposition("prims.fma")
def decompose_fma(op, rewriter):
    """prims.fma -> aten.mul.Tensor, aten.add.Tensor: (a * b) + c, rounded twice as the prim's
    eager kernel computes it (dynamo's form of `addcmul_`, in optimizer steps)"""
    a, b, c = (rewriter.args[k] for k in ("a", "b", "c"))
    product = rewriter.aten("aten.mul.Tensor", a, b)
    return rewriter.aten("aten.add.Tensor", product, c, results=result_type(op))
