"""Row dims of a product folded into one before the kernels see it: `C[b, s, n] += A[b, s, k] *
B[k, n]` with (b, s) adjacent and contiguous in both A and C and absent from B is the 2-D product
of b*s rows. The kernels take one m dim and loop over the others, so unfolded a Linear on
[8, 128, 768] ran eight 128-row products (the dot kernel, or panels copied per batch row)
instead of one of 1024 rows: ~10% slower on BERT's 768x768 projections
(/work/notes/f32real/heads_ab2.py). A `?` batch folds too (the folded extent is `?`).

The fold is a `memref.collapse_shape` of A and C (and of C's zero fill, so the kernels still
see that fill as C's and drop it) and the generic's maps and iterators with one dim less.
"""

from __future__ import annotations

from types import SimpleNamespace

from mlir import ir
from mlir.dialects import memref

from aten_mlir.backends.cpu.target import cpu_target
from aten_mlir.passes.ir import reassociation

from .kernels import zero_fill_before
from .vectorize_plan import is_identity_layout

# off: each batch row its own product, as before (for A/B timing)
ENABLED = True


def _plain_dims(m: ir.AffineMap) -> list[int] | None:
    if not all(isinstance(e, ir.AffineDimExpr) for e in m.results):
        return None
    return [ir.AffineDimExpr(e).position for e in m.results]


def _collapsible(t: ir.MemRefType, axis: int) -> bool:
    """Axes `axis` and `axis + 1` of `t` are one contiguous run."""
    if is_identity_layout(t):
        return True
    strides, _ = t.get_strides_and_offset()
    inner = t.shape[axis + 1]
    dynamic = ir.ShapedType.is_dynamic_size
    if dynamic(inner) or dynamic(strides[axis]) or dynamic(strides[axis + 1]):
        return False
    return strides[axis] == strides[axis + 1] * inner


def _collapse(value: ir.Value, axis: int) -> ir.Value:
    """`value` with axes `axis` and `axis + 1` as one (`_collapsible` holds)."""
    t = ir.MemRefType(value.type)
    shape = list(t.shape)
    pair = shape[axis : axis + 2]
    dynamic = any(ir.ShapedType.is_dynamic_size(s) for s in pair)
    shape[axis : axis + 2] = [ir.ShapedType.get_dynamic_size() if dynamic else pair[0] * pair[1]]
    if is_identity_layout(t):
        layout = None
    else:
        strides, offset = t.get_strides_and_offset()
        layout = ir.StridedLayoutAttr.get(offset, strides[:axis] + strides[axis + 1 :])
    result = ir.MemRefType.get(shape, t.element_type, layout, t.memory_space)
    groups = [[i] for i in range(axis)] + [[axis, axis + 1]]
    groups += [[i] for i in range(axis + 2, t.rank)]
    return memref.collapse_shape(result, value, reassociation(groups))


def _pair(a: list[int], c: list[int], b: list[int]) -> tuple[int, int] | None:
    """Positions (in A, in C) of two loop dims adjacent in the same order in A and C, not in B."""
    for i in range(len(a) - 1):
        d1, d2 = a[i], a[i + 1]
        if d1 in b or d2 in b or d1 not in c:
            continue
        j = c.index(d1)
        if j + 1 < len(c) and c[j + 1] == d2:
            return i, j
    return None


def _fold_once(op: ir.Operation) -> bool:
    """Folds one pair of row dims of generic product `op`; False when none folds."""
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    dims = [_plain_dims(m) for m in maps]
    if None in dims:
        return False
    for which in (0, 1):  # either input may be A (the one holding the rows)
        a, b, c = dims[which], dims[1 - which], dims[2]
        found = _pair(a, c, b)
        if found is None:
            continue
        i, j = found
        a_t, c_t = (ir.MemRefType(op.operands[x].type) for x in (which, 2))
        if not (_collapsible(a_t, i) and _collapsible(c_t, j)):
            continue
        gone = a[i + 1]
        fill = zero_fill_before(SimpleNamespace(op=op))
        with op.location:
            with ir.InsertionPoint(fill or op):
                new_c = _collapse(op.operands[2], j)
            with ir.InsertionPoint(op):
                new_a = _collapse(op.operands[which], i)
        if fill is not None:
            fill.operands[1] = new_c
        op.operands[which] = new_a
        op.operands[2] = new_c
        n_dims = maps[0].n_dims - 1
        new_maps = [
            ir.AffineMap.get(
                n_dims, 0, [ir.AffineDimExpr.get(d - (d > gone)) for d in ds if d != gone]
            )
            for ds in dims
        ]
        iters = list(ir.ArrayAttr(op.attributes["iterator_types"]))
        op.attributes["indexing_maps"] = ir.ArrayAttr.get(
            [ir.AffineMapAttr.get(m) for m in new_maps]
        )
        op.attributes["iterator_types"] = ir.ArrayAttr.get(iters[:gone] + iters[gone + 1 :])
        return True
    return False


def fold_rows(op: ir.Operation, match, cpu: str = "") -> bool:
    """Folds the row dims of the memref generic product `op` that `match` (the contraction
    matcher) takes, as long as it still takes it; True when any folded. `cpu`: the -mcpu name
    (whether bf16/f16 products may run on AMX)."""
    if not ENABLED or op.name != "linalg.generic" or len(op.operands) != 3 or len(op.results):
        return False
    if any(not isinstance(v.type, ir.MemRefType) for v in op.operands) or match(op) is None:
        return False
    # bf16/f16 products only on targets without AMX: the AMX kernel applies the elementwise
    # generic reading its f32 C (bias, GELU, rounding) as its epilogue, matched on C itself; a
    # folded C is read back through a view, and the epilogue was left out. Elsewhere unfolded
    # bf16 Linears ran as one small product per batch row: a ConvNeXt block's [7, 14, 14, 96]
    # Linear as 98 14-row products, 0.33-0.44x eager bf16 (helper bf16b's note).
    narrow = not isinstance(ir.MemRefType(op.operands[0].type).element_type, ir.F32Type)
    if narrow and cpu_target(cpu or None).amx_bf16:
        return False
    # the folded product is the same contraction with one row dim less (its n and k dims keep
    # their layouts), which `match` takes too; were it not, the views are still exact and the
    # product runs as loops
    folded = False
    while _fold_once(op):
        folded = True
    return folded
