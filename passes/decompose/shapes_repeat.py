"""Rolling, tiling and repeating -> core aten: `roll` as a `cat` of two slices per dim (never
`as_strided`), `tile` as `repeat`, `repeat_interleave` as an expanded view or an index gather."""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from .common import dtype, tensor_of, to_dtype
from .registry import register_decomposition
from .views import as_result, aten_sized, numel, rank, reshape, result_type, slice_dim, view

# -- rolling, tiling, repeating -------------------------------------------------------------------


def _roll_dim(rewriter, x: ir.Value, dim: int, shift) -> ir.Value:
    """x rolled by `shift` along `dim`: `cat(x[n - s:], x[:n - s])`, s = shift mod n."""
    n = rewriter.size(x, dim)
    if isinstance(n, int) and isinstance(shift, int):
        if n == 0 or shift % n == 0:
            return x
        cut = n - shift % n
    else:  # Python's modulo on runtime sizes: ((shift % n) + n) % n
        rem = rewriter.index_arith(arith.RemSIOp, shift, n)
        s = rewriter.index_arith(arith.RemSIOp, rewriter.index_arith(arith.AddIOp, rem, n), n)
        cut = rewriter.index_arith(arith.SubIOp, n, s)
    tail = slice_dim(rewriter, x, dim, cut, n)
    head = slice_dim(rewriter, x, dim, 0, cut)
    return rewriter.aten("aten.cat", [tail, head], dim)


def roll(rewriter, x: ir.Value, shifts: list, dims: list[int]) -> ir.Value:
    if not dims:  # ATen rolls the flattened tensor
        flat = reshape(rewriter, x, [numel(rewriter, x)])
        return view(rewriter, _roll_dim(rewriter, flat, 0, shifts[0]), rewriter.sizes(x))
    out = x
    for shift, dim in zip(shifts, dims):
        out = _roll_dim(rewriter, out, dim % rank(x), shift)
    return out if out is not x else rewriter.aten("aten.clone", x)


@register_decomposition("aten.roll")
def decompose_roll(op, rewriter):
    """aten.roll -> aten.slice.Tensor, aten.cat (per dim; no dims: on the flattened tensor via
    aten.clone, aten.view)"""
    a = rewriter.args
    return as_result(rewriter, op, roll(rewriter, a["self"], list(a["shifts"]), list(a["dims"])))


def _register_fftshift(op_name: str, inverse: bool) -> None:
    def rule(op, rewriter):
        x, dims = rewriter.args["self"], rewriter.args["dim"]
        dims = list(range(rank(x))) if dims is None else [d % rank(x) for d in dims]
        shifts = []
        for d in dims:
            n = rewriter.size(x, d)
            half = rewriter.index_arith(arith.AddIOp, n, 1) if inverse else n
            shifts.append(_floordiv(rewriter, half, 2))
        return aten_sized(
            rewriter,
            "aten.roll",
            x,
            shifts,
            dims,
            sizes=rewriter.sizes(x),
            elem=dtype(x),
        )

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.")
    rule.__doc__ = f"{op_name} -> aten.roll (by {'(n + 1)' if inverse else 'n'} // 2 per dim)"
    register_decomposition(op_name)(rule)


def _floordiv(rewriter, a, b: int):
    if isinstance(a, int):
        return a // b
    return rewriter.index_arith(arith.FloorDivSIOp, a, b)


_register_fftshift("aten.fft_fftshift", inverse=False)
_register_fftshift("aten.fft_ifftshift", inverse=True)


@register_decomposition("aten.tile")
def decompose_tile(op, rewriter):
    """aten.tile -> aten.repeat (the repeats padded with leading ones to the rank)"""
    x, reps = rewriter.args["self"], list(rewriter.args["dims"])
    reps = [1] * (rank(x) - len(reps)) + reps
    return rewriter.aten("aten.repeat", x, reps, results=result_type(op))


@register_decomposition("aten.repeat_interleave.self_int")
def decompose_repeat_interleave_self_int(op, rewriter):
    """aten.repeat_interleave.self_int -> aten.unsqueeze, aten.expand, aten.clone, aten.view
    (dim None: on the flattened tensor)"""
    x, repeats, dim = (rewriter.args[k] for k in ("self", "repeats", "dim"))
    if dim is None:
        x, dim = reshape(rewriter, x, [numel(rewriter, x)]), 0
    dim %= rank(x)
    sizes = rewriter.sizes(x)
    wide = rewriter.aten("aten.unsqueeze", x, dim + 1)
    wide = aten_sized(
        rewriter,
        "aten.expand",
        wide,
        sizes[: dim + 1] + [repeats] + sizes[dim + 1 :],
        sizes=sizes[: dim + 1] + [repeats] + sizes[dim + 1 :],
        elem=dtype(x),
    )
    merged = rewriter.index_arith(arith.MulIOp, sizes[dim], repeats)
    out = sizes[:dim] + [merged] + sizes[dim + 1 :]
    return reshape(rewriter, wide, out, results=result_type(op))


@register_decomposition("aten.repeat_interleave.self_Tensor")
def decompose_repeat_interleave_self_tensor(op, rewriter):
    """aten.repeat_interleave.self_Tensor -> aten.view, aten.expand, aten.repeat_interleave.Tensor,
    aten.index_select (ATen's own route: the index each output row reads)"""
    x, repeats, dim = (rewriter.args[k] for k in ("self", "repeats", "dim"))
    if dim is None:
        x, dim = reshape(rewriter, x, [numel(rewriter, x)]), 0
    dim %= rank(x)
    length = ir.RankedTensorType(op.results[0].type).get_dim_size(dim)
    if length < 0:
        return None  # the output length is the data's sum: kept
    if ir.RankedTensorType(repeats.type).shape in ([], [1]):
        repeats = rewriter.aten("aten.view", repeats, [1])
        repeats = rewriter.aten("aten.expand", repeats, [rewriter.size(x, dim)])
    index = rewriter.aten(
        "aten.repeat_interleave.Tensor",
        repeats,
        output_size=length,
        results=[tensor_of(op, [length], dtype(repeats))],
    )
    return rewriter.aten("aten.index_select", x, dim, index, results=result_type(op))


@register_decomposition("aten.repeat_interleave.Tensor")
def decompose_repeat_interleave_tensor(op, rewriter):
    """aten.repeat_interleave.Tensor -> aten.cumsum, aten.arange.start_step, aten.unsqueeze,
    aten.le.Tensor, aten.sum.dim_IntList: output k is the count of cumulative repeats <= k.
    Only with a static output length (else the length is the data's sum: the op stays)"""
    repeats = rewriter.args["repeats"]
    length = ir.RankedTensorType(op.results[0].type).get_dim_size(0)
    if length < 0:
        return None
    ends = rewriter.aten("aten.cumsum", repeats, 0, dtype=torch.int64)
    k = rewriter.aten("aten.arange.start_step", 0, length, 1, dtype=torch.int64)
    passed = rewriter.aten(
        "aten.le.Tensor",
        rewriter.aten("aten.unsqueeze", ends, 0),
        rewriter.aten("aten.unsqueeze", k, 1),
    )
    count = rewriter.aten("aten.sum.dim_IntList", passed, [1], dtype=torch.int64)
    return to_dtype(rewriter, count, dtype(op.results[0]))
