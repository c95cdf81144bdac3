"""Views -> tensor reshapes, slices and `linalg.transpose` / `linalg.broadcast`.

A view is expressed with tensor ops (collapse_shape, expand_shape, extract_slice), never a copy:
bufferization turns them into memref views where the layout allows. Sizes come from the size
arguments (symbolic ones are `index` operands), checked against the FX result type, which wins.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg

from ..ir.monomials import Mono, div, divides, mul
from .builder import LoweringRewriter, tensor_type
from .registry import register_lowering
from .views_common import (
    DYN,
    Size,
    cast_to,
    collapse,
    const_int,
    dim_sizes,
    expand,
    folded,
    iop,
    located,
    product,
    size_args,
    unit_groups,
)


class _Symbols:
    """Numbers the unknown sizes, so that products of sizes compare as monomials: the size
    `x.size(0)` of an operand and the `tensor.dim` of `x` read by a size argument match."""

    def __init__(self):
        self.keys: list = []

    def key(self, k) -> int:
        for i, known in enumerate(self.keys):
            if len(known) == len(k) and all(a == b for a, b in zip(known, k)):
                return i
        self.keys.append(k)
        return len(self.keys) - 1

    def mono(self, v: Size) -> Mono:
        c = const_int(v)
        if c is not None:
            return c, ()
        owner = v.owner if not isinstance(v.owner, ir.Block) else None
        if owner is not None and owner.operation.name == "tensor.dim":
            dim = const_int(owner.operation.operands[1])
            if dim is not None:
                return 1, (self.key(("dim", _root(owner.operation.operands[0]), dim)),)
        if owner is not None and owner.operation.name == "arith.muli":
            a, b = (self.mono(o) for o in owner.operation.operands)
            return mul(a, b)
        return 1, (self.key(("value", v)),)


def _root(v: ir.Value) -> ir.Value:
    """`v` before the bool <-> i8 storage casts."""
    while not isinstance(v.owner, ir.Block) and v.owner.operation.name == (
        "builtin.unrealized_conversion_cast"
    ):
        v = v.owner.operation.operands[0]
    return v


def _match_groups(ins: list[Mono], outs: list[Mono]):
    """Reassociation groups (input dims, output dims) with equal products; from the first dims
    that cannot be matched on, one group of all the dims left (the products before it matched,
    so the rest have equal products too). Keeping the matched groups keeps each one to a single
    dynamic size where it can (`x.view(x.size(0), 3, 5, x.size(3), 384)` of a 6-d `x` with
    dynamic dims: one all-dims group would hold two dynamic sizes, which expand-strided-metadata
    asserts on)."""
    one = (1, ())
    gi_all, go_all = [], []
    i = j = 0
    while i < len(ins) and j < len(outs):
        gi, go, pi, po = [i], [j], ins[i], outs[j]
        i, j = i + 1, j + 1
        while pi != po:
            static = not pi[1] and not po[1]
            if i < len(ins) and (divides(pi, po) or (static and 0 < pi[0] < po[0])):
                gi.append(i)
                pi, i = mul(pi, ins[i]), i + 1
            elif j < len(outs) and (divides(po, pi) or (static and 0 < po[0] < pi[0])):
                go.append(j)
                po, j = mul(po, outs[j]), j + 1
            else:
                return _rest_grouped(gi_all, go_all, gi[0], go[0], len(ins), len(outs))
        gi_all.append(gi)
        go_all.append(go)
    left_in, left_out = list(range(i, len(ins))), list(range(j, len(outs)))
    if any(ins[k] != one for k in left_in) or any(outs[k] != one for k in left_out):
        start_in = gi_all[-1][0] if gi_all else 0
        start_out = go_all[-1][0] if go_all else 0
        return _rest_grouped(gi_all[:-1], go_all[:-1], start_in, start_out, len(ins), len(outs))
    if gi_all:
        gi_all[-1].extend(left_in)
        go_all[-1].extend(left_out)
    return gi_all, go_all


def _rest_grouped(gi_all, go_all, i: int, j: int, n_in: int, n_out: int):
    """The matched groups, then one group of dims i.. of the input and j.. of the output."""
    if not gi_all or i == n_in or j == n_out:
        return [list(range(n_in))], [list(range(n_out))]
    return gi_all + [list(range(i, n_in))], go_all + [list(range(j, n_out))]


def reshape(rw: LoweringRewriter, x: ir.Value, result: ir.RankedTensorType, sizes) -> ir.Value:
    """`x` viewed as `result`: collapse_shape then expand_shape over groups of dims with equal
    products. `sizes` are the result sizes (ints, index values, at most one -1)."""
    in_sizes = rw.sizes(x)
    sizes = [folded(s) for s in sizes]
    k = next((i for i, s in enumerate(sizes) if isinstance(s, int) and s == -1), None)
    if k is not None:
        known = product(rw, [s for i, s in enumerate(sizes) if i != k])
        sizes[k] = iop(rw, "floordiv", product(rw, in_sizes), known)
    sizes = dim_sizes(rw, result, sizes)
    syms = _Symbols()
    ins = [
        syms.mono(s) if isinstance(s, int) else (1, (syms.key(("dim", _root(x), d)),))
        for d, s in enumerate(in_sizes)
    ]
    outs = [syms.mono(s) for s in sizes]
    if k is not None and result.is_dynamic_dim(k):  # the inferred size as a monomial
        total, known = (1, ()), (1, ())
        for m in ins:
            total = mul(total, m)
        for i, m in enumerate(outs):
            known = known if i == k else mul(known, m)
        if divides(known, total):
            outs[k] = div(total, known)
    groups_in, groups_out = _match_groups(ins, outs)
    # A size the result type leaves `?` but the view gives as a constant (the FX type of
    # `view(.., 384)` from symbolic sizes): expanded to the static size, then cast to `?`.
    known = [folded(s) for s in sizes]
    shape = [s if isinstance(s, int) else result.get_dim_size(d) for d, s in enumerate(known)]
    exact = ir.RankedTensorType.get(shape, result.element_type)
    return cast_to(rw, expand(rw, collapse(rw, x, groups_in), groups_out, exact, sizes), result)


@register_lowering("aten.view", unsigned=True, complex=True)
@located
def lower_view(op, rw):
    """aten.view -> tensor.collapse_shape, tensor.expand_shape"""
    return reshape(rw, rw.args["self"], rw.result_type(), size_args(rw, rw.args["size"]))


@register_lowering("aten.permute", unsigned=True, complex=True)
@located
def lower_permute(op, rw):
    """aten.permute -> linalg.transpose"""
    x, result = rw.args["self"], rw.result_type()
    rank = tensor_type(x).rank
    perm = [p % rank for p in rw.args["dims"]] if rank else []
    if perm == list(range(rank)):
        return cast_to(rw, x, result)
    # The operand's dims must agree with the result's where the FX types know them.
    x_t = tensor_type(x)
    known = [x_t.get_dim_size(d) if not x_t.is_dynamic_dim(d) else -1 for d in range(rank)]
    for i, p in enumerate(perm):
        if not result.is_dynamic_dim(i):
            known[p] = result.get_dim_size(i)
    x = cast_to(
        rw, x, ir.RankedTensorType.get([k if k >= 0 else DYN for k in known], x_t.element_type)
    )
    sizes = rw.sizes(x)
    init = rw.empty(result, [sizes[p] for p in perm])
    with rw.at():
        return linalg.transpose(x, outs=[init], permutation=perm).results[0]


@register_lowering("aten.expand", unsigned=True, complex=True)
@located
def lower_expand(op, rw):
    """aten.expand -> tensor.collapse_shape, linalg.broadcast"""
    x, result = rw.args["self"], rw.result_type()
    x_t = tensor_type(x)
    size = size_args(rw, rw.args["size"])
    lead = result.rank - x_t.rank
    in_sizes = rw.sizes(x)
    out_sizes, added, dropped = [], [], []
    for j, s in enumerate(size):
        i = j - lead
        if i < 0:
            out_sizes.append(s)
            added.append(j)
            continue
        out_sizes.append(in_sizes[i] if s == -1 else s)
        # torch.export specialises sizes 1, so only a static 1 broadcasts.
        if in_sizes[i] == 1 and (result.is_dynamic_dim(j) or result.get_dim_size(j) != 1):
            added.append(j)
            dropped.append(i)
    if not added:
        return cast_to(rw, x, result)
    x = collapse(rw, x, unit_groups(x_t.rank, dropped))
    out_sizes = dim_sizes(rw, result, out_sizes)
    kept = [j for j in range(result.rank) if j not in added]
    shape = [s if isinstance(s, int) else DYN for s in (out_sizes[j] for j in kept)]
    x = cast_to(rw, x, ir.RankedTensorType.get(shape, result.element_type))
    init = rw.empty(result, out_sizes)
    with rw.at():
        return linalg.broadcast(x, outs=[init], dimensions=added).results[0]


def _squeeze(rw, dims):
    x, result = rw.args["self"], rw.result_type()
    x_t = tensor_type(x)
    rank = x_t.rank
    dims = {d % rank for d in dims} if rank else set()
    gone = sorted(d for d in dims if not x_t.is_dynamic_dim(d) and x_t.get_dim_size(d) == 1)
    if rank - len(gone) != result.rank:
        return None  # a `?` dim the FX graph squeezed: the size is not known to be 1
    return cast_to(rw, collapse(rw, x, unit_groups(rank, gone)), result)


@register_lowering("aten.squeeze.dim", unsigned=True, complex=True)
@located
def lower_squeeze_dim(op, rw):
    """aten.squeeze.dim -> tensor.collapse_shape"""
    return _squeeze(rw, [rw.args["dim"]])


@register_lowering("aten.squeeze.dims", unsigned=True, complex=True)
@located
def lower_squeeze_dims(op, rw):
    """aten.squeeze.dims -> tensor.collapse_shape"""
    return _squeeze(rw, rw.args["dim"])


@register_lowering("aten.unsqueeze", unsigned=True, complex=True)
@located
def lower_unsqueeze(op, rw):
    """aten.unsqueeze -> tensor.expand_shape"""
    x, result = rw.args["self"], rw.result_type()
    dim = rw.args["dim"] % result.rank
    sizes = rw.sizes(x)
    sizes.insert(dim, 1)
    return expand(rw, x, unit_groups(result.rank, [dim]), result, sizes)
