"""`aten-split-contraction-prologue`: a contraction with a fused prologue -> the prologue as its
own elementwise generic, then a plain `out + a * b` contraction that becomes a `tl.dot` kernel
or a CPU micro-kernel (`cpu-vectorize-contractions`).

Elementwise fusion folds producers into their consumers, a matmul included: a layer norm ends
up recomputed inside the next linear layer's reduction, once per output column. A tensor-core
product or a register-tiled kernel needs its operands in memory, and computing them once is
cheaper anyway. The
operand computed in the body (`x` in `out + x * y`) is materialized over the iteration dims it
depends on, when those are the rows (or columns), batch and reduction dims of the product.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from .ir import nested_ops
from .registry import ModulePass, register_pass

_PURE = ("arith.", "math.", "index.", "affine.apply")


def is_pure(op: ir.Operation) -> bool:
    """`op` computes a value from its operands only: no memory, no side effects."""
    return op.name.startswith(_PURE)


@register_pass
@dataclass(frozen=True)
class SplitContractionPrologue(ModulePass):
    """Splits the operand computations out of mul-add contractions on tensors."""

    name: ClassVar[str] = "aten-split-contraction-prologue"

    def run(self, module_op: ir.Operation) -> None:
        candidates = [
            op
            for op in nested_ops(module_op)
            if op.name == "linalg.generic" and _contraction_parts(op) is not None
        ]
        with module_op.context:
            for op in candidates:
                _split(op)


def _maps(op) -> list[ir.AffineMap]:
    return [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]


def _dims(m: ir.AffineMap) -> list[int] | None:
    out = []
    for e in m.results:
        if not isinstance(e, ir.AffineDimExpr):
            return None
        out.append(ir.AffineDimExpr(e).position)
    return out


def _used_dims(m: ir.AffineMap) -> list[int] | None:
    """The dims a map reads, where each result is a dim or a constant (a unit dim); else None."""
    out = []
    for e in m.results:
        if isinstance(e, ir.AffineDimExpr):
            out.append(ir.AffineDimExpr(e).position)
        elif not isinstance(e, ir.AffineConstantExpr):
            return None
    return out


def _contraction_parts(op):
    """(x, y, slice_x, slice_y) of a one-output, one-reduction generic whose body ends in
    `yield out + x * y`, where at least one of x, y is computed in the body; else None."""
    if len(op.results) != 1 or not isinstance(op.results[0].type, ir.RankedTensorType):
        return None
    iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    if sum("reduction" in t for t in iters) != 1:
        return None
    maps = _maps(op)
    if any(_used_dims(m) is None for m in maps) or _dims(maps[-1]) is None:
        return None
    block = op.regions[0].blocks[0]
    body = [o.operation for o in block.operations]
    if len(body) < 3 or [o.name for o in body[-3:]] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return None
    mul, add, yld = body[-3:]
    out = block.arguments[len(block.arguments) - 1]
    if yld.operands[0] != add.results[0] or set(add.operands) != {out, mul.results[0]}:
        return None
    x, y = mul.operands
    if out in (x, y) or not all(is_pure(o) for o in body[:-3]):
        return None
    if _is_arg(x, block) and _is_arg(y, block):
        return None  # already plain
    if str(ir.RankedTensorType(op.results[0].type).element_type) not in ("f32", "f16", "bf16"):
        return None  # no tensor-core product to feed
    return x, y


def _is_arg(v: ir.Value, block: ir.Block) -> bool:
    return isinstance(v.owner, ir.Block) and v.owner == block


def _slice(v: ir.Value, block: ir.Block):
    """(ops computing v, in body order; block args they read)."""
    ops, args, stack, seen = [], set(), [v], set()
    while stack:
        value = stack.pop()
        if _is_arg(value, block):
            args.add(value.arg_number)
            continue
        if isinstance(value.owner, ir.Block):
            return None  # a value from an enclosing region
        owner = value.owner.operation
        if owner.block != block:
            continue  # defined above the generic: usable as is
        if owner in seen:
            continue
        seen.add(owner)
        ops.append(owner)
        stack.extend(owner.operands)
    order = [o.operation for o in block.operations]
    return sorted(ops, key=order.index), args


def _split(op) -> None:
    parts = _contraction_parts(op)
    if parts is None:
        return
    block = op.regions[0].blocks[0]
    maps = _maps(op)
    iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    out_dims = set(_dims(maps[-1]))
    k = next(i for i, t in enumerate(iters) if "reduction" in t)
    new_inputs, new_maps = [], []
    plans = []
    for v in parts:
        if _is_arg(v, block):
            if _dims(maps[v.arg_number]) is None:
                return
            new_inputs.append(op.operands[v.arg_number])
            new_maps.append(maps[v.arg_number])
            continue
        sliced = _slice(v, block)
        if sliced is None:
            return
        ops, args = sliced
        dims = sorted({d for a in args for d in _used_dims(maps[a])})
        if k not in dims or not (set(dims) - {k}) <= out_dims or not args:
            return  # not an operand of a product (e.g. depends only on output dims)
        plans.append((v, ops, args, dims))
        new_inputs.append(None)
        new_maps.append(ir.AffineMap.get(len(iters), 0, [ir.AffineDimExpr.get(d) for d in dims]))
    x_dims, y_dims = (set(_dims(m)) for m in new_maps)
    if not (x_dims | y_dims) >= out_dims or not (x_dims - y_dims) or not (y_dims - x_dims):
        return  # no rows or no columns: a row-wise dot product (a variance), not a matmul
    for v, ops, args, dims in plans:
        slot = next(i for i, x in enumerate(new_inputs) if x is None)
        new_inputs[slot] = _materialize(op, v, ops, sorted(args), dims, maps)
    _rebuild(op, new_inputs, new_maps, maps[-1], iters)


def _extent(op, d: int, maps) -> ir.Value | int:
    for operand, m in zip(op.operands, maps):
        dims = [
            ir.AffineDimExpr(e).position if isinstance(e, ir.AffineDimExpr) else None
            for e in m.results
        ]
        if d in dims:
            t = ir.RankedTensorType(operand.type)
            pos = dims.index(d)
            if not t.is_dynamic_dim(pos):
                return t.get_dim_size(pos)
            with ir.InsertionPoint(op), op.location:
                return tensor.dim(operand, arith.constant(ir.IndexType.get(), pos))
    raise ValueError(f"no operand spans dim {d}")


def _materialize(op, v, ops, args, dims, maps) -> ir.Value:
    """`v` over `dims`, computed by a new parallel generic before `op`."""
    sizes = [_extent(op, d, maps) for d in dims]
    inputs = [op.operands[a] for a in args]
    position = {d: i for i, d in enumerate(dims)}

    def moved(e):
        if isinstance(e, ir.AffineDimExpr):
            return ir.AffineDimExpr.get(position[ir.AffineDimExpr(e).position])
        return e  # a constant index

    in_maps = [ir.AffineMap.get(len(dims), 0, [moved(e) for e in maps[a].results]) for a in args]
    with ir.InsertionPoint(op), op.location:
        init = tensor.EmptyOp(sizes, v.type).result
        new = linalg.GenericOp_(
            inputs,
            [init],
            [*in_maps, ir.AffineMap.get_identity(len(dims))],
            [linalg.IteratorType.parallel] * len(dims),
        )
        body = new.regions[0].blocks[0]
        mapping = {}
        old_block = op.regions[0].blocks[0]
        for a, arg in zip(args, body.arguments):
            mapping[old_block.arguments[a]] = arg
        with ir.InsertionPoint(body):
            for inner in ops:
                clone = inner.clone()
                for i, operand in enumerate(clone.operands):
                    if operand in mapping:
                        clone.operands[i] = mapping[operand]
                for r_old, r_new in zip(inner.results, clone.results):
                    mapping[r_old] = r_new
            linalg.YieldOp([mapping[v]])
    return new.results[0]


def _rebuild(op, inputs, in_maps, out_map, iters) -> None:
    """Replaces `op` with `out + a * b` over `inputs`."""
    out = op.operands[len(op.operands) - 1]
    kinds = [
        linalg.IteratorType.reduction if "reduction" in t else linalg.IteratorType.parallel
        for t in iters
    ]
    with ir.InsertionPoint(op), op.location:
        new = linalg.GenericOp_(inputs, [out], [*in_maps, out_map], kinds)
        body = new.regions[0].blocks[0]
        a, b, acc = body.arguments
        with ir.InsertionPoint(body):
            product = arith.mulf(a, b)
            linalg.YieldOp([arith.addf(acc, product)])
    op.results[0].replace_all_uses_with(new.results[0])
    op.erase()


@register_pass
@dataclass(frozen=True)
class FoldTransposes(ModulePass):
    """Folds linalg.transpose on tensors into the linalg.generic ops reading it (a permuted
    indexing map instead of a copy)."""

    name: ClassVar[str] = "aten-fold-transposes"

    def run(self, module_op: ir.Operation) -> None:
        transposes = [
            op
            for op in nested_ops(module_op)
            if op.name == "linalg.transpose" and isinstance(op.results[0].type, ir.RankedTensorType)
        ]
        with module_op.context:
            for op in transposes:
                _fold_transpose(op)


def _fold_transpose(op) -> None:
    perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    source = op.operands[0]
    for use in list(op.results[0].uses):
        user = use.owner
        user = getattr(user, "operation", user)
        n_inputs = len(user.operands) - len(user.results)
        if user.name != "linalg.generic" or use.operand_number >= n_inputs:
            continue
        maps = _maps(user)
        m = maps[use.operand_number]
        results = list(m.results)
        # transposed[i] = source[perm[i]]: source dim perm[i] is read at the transposed index i
        new_results = [None] * len(results)
        for i, p in enumerate(perm):
            new_results[p] = results[i]
        maps[use.operand_number] = ir.AffineMap.get(m.n_dims, m.n_symbols, new_results)
        user.operands[use.operand_number] = source
        user.attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(x) for x in maps])
    if not list(op.results[0].uses):
        op.erase()


# (A, B, C) dims of the named products over (m, n, k) / (b, m, n, k).
NAMED_PRODUCTS = {
    "linalg.matmul": ((0, 2), (2, 1), (0, 1)),
    "linalg.batch_matmul": ((0, 1, 3), (0, 3, 2), (0, 1, 2)),
}


@register_pass
@dataclass(frozen=True)
class GeneralizeProducts(ModulePass):
    """Rewrites linalg.matmul / batch_matmul on tensors of one float type as the equivalent
    `out + a * b` linalg.generic, so transposed operands fold into its maps."""

    name: ClassVar[str] = "aten-generalize-products"

    def run(self, module_op: ir.Operation) -> None:
        products = [op for op in nested_ops(module_op) if _plain_product(op)]
        with module_op.context:
            for op in products:
                if "indexing_maps" in op.attributes:
                    maps = _maps(op)
                else:
                    dims = NAMED_PRODUCTS[op.name]
                    n = len(dims[2]) + 1
                    maps = [
                        ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in m]) for m in dims
                    ]
                reduced = set(range(maps[2].n_dims)) - set(_dims(maps[2]) or ())
                iters = ["reduction" if d in reduced else "parallel" for d in range(maps[2].n_dims)]
                _rebuild(op, list(op.operands[:2]), maps[:2], maps[2], iters)


def _plain_product(op: ir.Operation) -> bool:
    """A named product on tensors of one float element type (no casts)."""
    if op.name not in NAMED_PRODUCTS:
        return False
    if len(op.results) != 1 or not isinstance(op.results[0].type, ir.RankedTensorType):
        return False
    element = ir.RankedTensorType(op.results[0].type).element_type
    if not isinstance(element, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)):
        return False
    return all(ir.ShapedType(v.type).element_type == element for v in op.operands)
