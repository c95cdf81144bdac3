"""`aten-split-dynamic-expands`: no `expand_shape` group with two dynamic sizes reaches
`expand-strided-metadata` (`memref/check_expand_groups.py` checks it again right before).

Upstream `expand-strided-metadata` cannot compute the strides of an `expand_shape` group with
more than one dynamic size (it asserts "There must be at most one dynamic size per group" and
aborts the process). A view the sizes cannot match statically lowers to one: a product with a
dynamic batch and sequence folds its batch dims for `aten.bmm` and unfolds them with a view
whose sizes are `tensor.dim` values of another tensor (`q @ k.transpose(-1, -2)` with `Dim`s),
and the view lowering, seeing no equal products, collapses everything to 1-D and expands it
again (`[[0, 1, 2, 3]] output_shape [%b, 3, %s, %t]`).

`aten-split-dynamic-expands` (on tensors, after `resolve-ranked-shaped-type-result-dims` and
CSE, when the sizes are the SSA values they resolve to) rewrites each such expand:
- of a `collapse_shape`: the source's dims and the result's sizes are matched again as products
  of SSA sizes (`%m = arith.muli %b, %c3` matches `%b, 3`), so `[?x?x?] -> [?x3x?x?]` becomes
  the expand `[[0, 1], [2], [3]]`, or nothing at all when the view is the identity;
- of a fresh result (computed into a `tensor.empty`, inserted nowhere): left alone, as
  `aten-expands-as-casts` makes the bufferized expand a `reinterpret_cast` of that contiguous
  buffer (a linear layer's rows unfolded into a dynamic batch and sequence);
- otherwise, a gather: a `linalg.generic` over the result reading the source at the row-major
  index (a copy, always correct).
With `fold-only` (the CPU fusion stage runs it after `linalg-fuse-elementwise-ops`, then fuses
again) it only folds `expand(collapse(x))` pairs whose sizes match (`fold_pairs`): the views
back that fusion's reshape propagation leaves around a `?`-row product.
`multi_dynamic` and `output_sizes` are read by the memref passes (`aten-check-expand-groups`,
`aten-expands-as-casts`) too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from ..ir import constant_int, reassociation, walked_ops
from ..ir.monomials import Mono, divides, mul
from ..registry import ModulePass, option, register_pass
from .full_slices import fold_full_slices
from .symbolic_dims import first_named, unify_symbolic_dims

_DYN = ir.ShapedType.get_dynamic_size()


def _groups(op: ir.Operation) -> list[list[int]]:
    return [
        [ir.IntegerAttr(d).value for d in g] for g in ir.ArrayAttr(op.attributes["reassociation"])
    ]


def multi_dynamic(op: ir.Operation) -> bool:
    """An expand_shape group with more than one dynamic result size."""
    result = ir.ShapedType(op.results[0].type)
    return any(sum(result.is_dynamic_dim(d) for d in g) > 1 for g in _groups(op))


def _resolved_dim(v: ir.Value, d: int) -> ir.Value | int:
    """Dim `d` of tensor `v` as a static int or the SSA value it is built from: through
    destination-passing ops (the init's size) and `tensor.empty` (its size operand)."""
    t = ir.RankedTensorType(v.type)
    if not t.is_dynamic_dim(d):
        return t.get_dim_size(d)
    for _ in range(64):  # a chain of inits; bounded
        owner = v.owner
        if isinstance(owner, ir.Block):
            return _Dim(*first_named(v, d))
        owner = owner.operation
        if owner.name == "tensor.empty":
            shape = ir.RankedTensorType(v.type)
            k = sum(shape.is_dynamic_dim(i) for i in range(d))
            return owner.operands[k]
        if owner.name == "tensor.extract_slice":
            return _slice_size(owner, d)
        if owner.name == "tensor.expand_shape":  # fusion's views: their `output_shape` sizes
            return output_sizes(owner)[d]
        if owner.name == "tensor.insert_slice":  # the destination's sizes (GPT-2's v, a copy)
            v = owner.operands[1]
            continue
        n_res = len(owner.results)
        if owner.name.startswith("linalg.") and n_res and len(owner.operands) >= n_res:
            number = ir.OpResult(v).result_number
            init = owner.operands[len(owner.operands) - n_res + number]
            if init.type == v.type:
                v = init
                continue
        return _Dim(v, d)
    return _Dim(v, d)


def _slice_size(op: ir.Operation, d: int) -> ir.Value:
    """The size operand of a `tensor.extract_slice`'s dynamic result dim `d` (a q/k/v slice of a
    fused projection: its sizes are the batch and sequence values the views use). A rank-reduced
    slice drops static unit dims only, so the k-th dynamic result dim is the k-th dynamic size."""
    shape = ir.RankedTensorType(op.results[0].type)
    k = sum(shape.is_dynamic_dim(i) for i in range(d))
    offsets = ir.DenseI64ArrayAttr(op.attributes["static_offsets"])
    return op.operands[1 + sum(o == _DYN for o in offsets) + k]


@dataclass(frozen=True)
class _Dim:
    """A dynamic size known only as `tensor.dim value, d`."""

    value: ir.Value
    d: int


class _Symbols:
    def __init__(self):
        self.keys: list = []

    def key(self, k) -> int:
        for i, known in enumerate(self.keys):
            if _same(known, k):
                return i
        self.keys.append(k)
        return len(self.keys) - 1

    def mono(self, s) -> Mono:
        if isinstance(s, int):
            return s, ()
        if isinstance(s, ir.Value):
            c = constant_int(s)
            if c is not None:
                return c, ()
            owner = s.owner
            if not isinstance(owner, ir.Block) and owner.name == "arith.muli":
                a, b = (self.mono(o) for o in owner.operands)
                return a[0] * b[0], tuple(sorted(a[1] + b[1]))
            if not isinstance(owner, ir.Block) and owner.name == "tensor.dim":
                d = constant_int(owner.operands[1])
                if d is not None:
                    return self.mono(_resolved_dim(owner.operands[0], d))
        return 1, (self.key(s),)


def _same(a, b) -> bool:
    if isinstance(a, _Dim) and isinstance(b, _Dim):
        return a.value == b.value and a.d == b.d
    if isinstance(a, ir.Value) and isinstance(b, ir.Value):
        return a == b
    return False


def _match(ins: list[Mono], outs: list[Mono]):
    """Groups (input dims, output dims) of equal products, or None."""
    groups, i, j = [], 0, 0
    while i < len(ins) and j < len(outs):
        gi, go, pi, po = [i], [j], ins[i], outs[j]
        i, j = i + 1, j + 1
        while pi != po:
            if i < len(ins) and divides(pi, po):
                gi.append(i)
                pi, i = mul(pi, ins[i]), i + 1
            elif j < len(outs) and divides(po, pi):
                go.append(j)
                po, j = mul(po, outs[j]), j + 1
            else:
                return None
        groups.append((gi, go))
    rest_in, rest_out = list(range(i, len(ins))), list(range(j, len(outs)))
    if any(ins[k] != (1, ()) for k in rest_in) or any(outs[k] != (1, ()) for k in rest_out):
        return None
    if not groups:
        return None
    groups[-1][0].extend(rest_in)
    groups[-1][1].extend(rest_out)
    return groups


def output_sizes(op: ir.Operation) -> list:
    """The result sizes of an expand_shape: ints, and its `output_shape` values where `?`."""
    static = ir.DenseI64ArrayAttr(op.attributes["static_output_shape"])
    dynamic = iter(op.operands[1:])
    return [next(dynamic) if s == _DYN else s for s in static]


def _regroup(op: ir.Operation) -> ir.Value | None:
    """An expand of a collapse, regrouped by matching products (None: the sizes do not match,
    or a group would still hold two dynamic sizes)."""
    collapse = op.operands[0].owner
    if isinstance(collapse, ir.Block) or collapse.name != "tensor.collapse_shape":
        return None
    x = collapse.operands[0]
    x_t, result = ir.RankedTensorType(x.type), ir.RankedTensorType(op.results[0].type)
    syms = _Symbols()
    ins = [syms.mono(_resolved_dim(x, d)) for d in range(x_t.rank)]
    sizes = output_sizes(op)
    groups = _match(ins, [syms.mono(s) for s in sizes])
    if groups is None:
        return None
    if any(sum(result.is_dynamic_dim(d) for d in go) > 1 for _, go in groups):
        return None
    if all(len(gi) == 1 and len(go) == 1 for gi, go in groups) and x_t == result:
        return x
    with ir.InsertionPoint(op), op.location:
        mid_shape = []
        for gi, _ in groups:
            dims = [x_t.get_dim_size(d) for d in gi]
            mid_shape.append(_DYN if _DYN in dims else _prod(dims))
        mid = x
        if any(len(gi) > 1 for gi, _ in groups):
            mid_t = ir.RankedTensorType.get(mid_shape, x_t.element_type)
            mid = tensor.CollapseShapeOp(mid_t, x, reassociation([g for g, _ in groups])).result
        dynamic = [s for s in sizes if isinstance(s, ir.Value)]
        static = [s if isinstance(s, int) else _DYN for s in sizes]
        return tensor.ExpandShapeOp(
            result, mid, reassociation([g for _, g in groups]), dynamic, static
        ).result


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def _gather(op: ir.Operation) -> ir.Value:
    """The expand as a copy: result[i..] = source[row-major index of i.. within each group]."""
    source, result = op.operands[0], ir.RankedTensorType(op.results[0].type)
    sizes = output_sizes(op)
    rank = result.rank
    with ir.InsertionPoint(op), op.location:
        index = ir.IndexType.get()
        size_values = [
            s if isinstance(s, ir.Value) else arith.ConstantOp(index, s).result for s in sizes
        ]
        init = tensor.EmptyOp(sizes, result.element_type).result
        identity = ir.AffineMap.get_identity(rank)
        parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
        generic = linalg.GenericOp(
            [result],
            [],
            [init],
            ir.ArrayAttr.get([ir.AffineMapAttr.get(identity)]),
            ir.ArrayAttr.get([parallel] * rank),
        )
        block = generic.regions[0].blocks.append(result.element_type)
        with ir.InsertionPoint(block):
            at = [linalg.IndexOp(d).result for d in range(rank)]
            src_index = []
            for g in _groups(op):
                flat = at[g[0]]
                for d in g[1:]:
                    flat = arith.AddIOp(arith.MulIOp(flat, size_values[d]).result, at[d]).result
                src_index.append(flat)
            linalg.YieldOp([tensor.ExtractOp(source, src_index).result])
        return generic.results[0]


def _fresh(v: ir.Value) -> bool:
    """`v` is computed into a `tensor.empty` (through destination-passing inits) that nothing
    inserts into another tensor: its buffer is a fresh identity-layout allocation, which
    `aten-expands-as-casts` expands as a `reinterpret_cast` (the gather is a full copy, and
    fused into a product it makes the operand a computed load the kernels cannot take)."""
    for _ in range(64):  # a chain of inits; bounded
        owner = v.owner
        if isinstance(owner, ir.Block) or _inserted(v):
            return False
        owner = owner.operation
        if owner.name == "tensor.empty":
            return True
        n_res = len(owner.results)
        if not (owner.name.startswith("linalg.") and n_res and len(owner.operands) >= n_res):
            return False
        init = owner.operands[len(owner.operands) - n_res + ir.OpResult(v).result_number]
        if init.type != v.type:
            return False
        v = init
    return False


def _inserted(v: ir.Value) -> bool:
    """Some use of `v` inserts it into another tensor (eliminate-empty-tensors would make its
    buffer a subview of that tensor's)."""
    return any(
        getattr(u.owner, "operation", u.owner).name in ("tensor.insert_slice",) for u in v.uses
    )


def fold_pairs(module_op: ir.Operation) -> int:
    """Replaces each `expand(collapse(x))` with two dynamic sizes in a group by `x` (or a
    regrouped view of it) where the sizes match as SSA products; the number replaced.

    Fusion's reshape propagation turns a `Linear` over `[b, s, k]` (rows flattened for the
    product) into `collapse(bias(product))` over `[b, s, n]` and leaves the view back,
    `expand(collapse(..)) output_shape [%b, %s, n]`, which upstream folds only for static
    sizes: the dynamic compile kept the bias, GELU and residual adds as separate passes over
    memory (and the residual's flat loop between two row nests) where a static one fuses them.
    """
    count = 0
    for op in [o for o in walked_ops(module_op) if o.name == "tensor.expand_shape"]:
        collapse = op.operands[0].owner
        if isinstance(collapse, ir.Block) or collapse.name != "tensor.collapse_shape":
            continue
        if not multi_dynamic(op):
            continue
        value = _regroup(op)
        if value is None:
            continue
        op.results[0].replace_all_uses_with(value)
        op.erase()
        count += 1
        if not list(collapse.results[0].uses):
            collapse.erase()
    return count


@register_pass
@dataclass(frozen=True)
class SplitDynamicExpands(ModulePass):
    """Rewrites tensor.expand_shape groups with two dynamic sizes: regrouped against their
    collapsed source where the SSA sizes match, else a gather."""

    name: ClassVar[str] = "aten-split-dynamic-expands"
    fold_only: bool = option(
        False,
        "only fold expands of collapses whose sizes match (no gathers): after fusion, whose "
        "reshape propagation leaves `expand(collapse(x))` pairs upstream cannot fold",
    )

    def run(self, module_op: ir.Operation) -> None:
        if self.fold_only:
            fold_pairs(module_op)
            return
        unify_symbolic_dims(module_op)  # one size per export symbol: the views' sizes match
        fold_full_slices(module_op)  # and a slice of a whole fresh tensor is that tensor
        found = [
            op
            for op in walked_ops(module_op)
            if op.name == "tensor.expand_shape" and multi_dynamic(op)
        ]
        for op in found:
            if _fresh(op.operands[0]):
                continue  # a view of a fresh buffer: `aten-expands-as-casts` casts it, no copy
            value = _regroup(op) or _gather(op)
            collapse = op.operands[0].owner
            op.results[0].replace_all_uses_with(value)
            op.erase()
            if not isinstance(collapse, ir.Block) and not list(collapse.results[0].uses):
                collapse.erase()
