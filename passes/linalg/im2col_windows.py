"""`aten-im2col-windows`: a correlation whose result is a small window (a convolution's weight
gradient) -> the windows of its input copied out (im2col), then one plain contraction over long
contiguous rows.

A weight gradient `gw[g, i, j, k..] += go[n, g, i, o..] * x[n, g, j, o*s + k*d]` read in place
gives the contraction kernels bad dims: the reduction runs along one output row (`o`, 4 to 32
elements) and the columns along one kernel row (`k`, 3 wide), so train_cnn's three weight
gradients ran at 0.14x eager. Copied out as `cols[n, g, (j, k..), (o..)]` (each row a strided run
of the input), the same sum is `out[g, i, J] += go[n, g, i, O] * cols[n, g, J, O]`: reduction
and columns each one long dim. When one generic copies the windows (a strided last dim, which
the per-tap slice copies of `im2col_taps` do not take), the batch goes next to the output
pixels, `cols[g, J, n, O]` with grad_output copied to `[g, i, n, O]`: the sum is then one run of
n*O, not n sums of O. It runs after fusion, which would fold the copy back in.

Only windows whose parallel side (the kernel taps) is small and static and smaller than their
reduction side are taken: a forward convolution written as a generic has the same form with the
roles swapped (output pixels parallel, kernel taps reduced) and keeps its own kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from ..ir import nested_ops, reassociation
from ..registry import ModulePass, register_pass
from .generics import indexing_maps, loop_extent, map_dims
from .im2col_taps import dim_term, tap_copies

PARALLEL = linalg.IteratorType.parallel
# The largest copy of the windows made (its static part): a batch-32 ResNet-50 stage-1 weight
# gradient is 231 MiB.
MAX_COLS_BYTES = 512 << 20
# The most kernel taps a window may have (11x11 is 121; a 3d 5x5x5 is 125).
MAX_TAPS = 256


@dataclass
class _Plan:
    windowed: int  # the input read through window exprs
    others: list[int]  # its plain dims, outside the column group, in its order
    cols: list[int]  # the column group: output dims ending in the window taps
    reduced: list[int]  # the windows' reduction dims, in order


@register_pass
@dataclass(frozen=True)
class Im2colWindows(ModulePass):
    """Copies the windows of a weight-gradient-like correlation out, then contracts plainly."""

    name: ClassVar[str] = "aten-im2col-windows"

    def run(self, module_op: ir.Operation) -> None:
        found = [(op, _plan(op)) for op in nested_ops(module_op) if op.name == "linalg.generic"]
        with module_op.context:
            for op, plan in found:
                if plan is not None:
                    _rewrite(op, plan)


def _window(e: ir.AffineExpr) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The two terms of `d0 * c0 + d1 * c1`."""
    if not isinstance(e, ir.AffineAddExpr):
        return None
    add = ir.AffineAddExpr(e)
    a, b = dim_term(add.lhs), dim_term(add.rhs)
    return (a, b) if a and b else None


def _product_of_inputs(op) -> bool:
    """The body is `out + a * b` of the two inputs (each possibly widened by `extf`)."""
    block = op.regions[0].blocks[0]
    body = [o.operation for o in block.operations]
    if len(body) < 3 or [o.name for o in body[-3:]] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    mul, add, yld = body[-3:]
    out = block.arguments[2]
    if yld.operands[0] != add.results[0] or set(add.operands) != {out, mul.results[0]}:
        return False
    widened = {o.results[0]: o.operands[0] for o in body[:-3] if o.name == "arith.extf"}
    if len(body) - 3 != len(widened):
        return False
    args = [widened.get(v, v) for v in mul.operands]
    return all(isinstance(a.owner, ir.Block) for a in args) and {
        ir.BlockArgument(a).arg_number for a in args
    } == {0, 1}


def _runs(dims: list[int], wanted: list[int]) -> bool:
    """`wanted` appears in `dims` as one run, in order."""
    if not wanted or wanted[0] not in dims:
        return False
    start = dims.index(wanted[0])
    return dims[start : start + len(wanted)] == wanted


def _plan(op) -> _Plan | None:
    if len(op.operands) != 3 or len(op.results) != 1:
        return None
    if not isinstance(op.results[0].type, ir.RankedTensorType) or not _product_of_inputs(op):
        return None
    if map_dims(indexing_maps(op)[2]) is None:
        return None
    for w in (0, 1):
        plan = _plan_windowed(op, w)
        if plan is not None:
            return plan
    return None


def _split_windows(e_list, iters):
    """(plain dims, window reduction dims, window tap dims) of a map's results, or None when a
    result is neither a dim nor a window `r * s + p * d` (r reduced, p parallel)."""
    plain, reduced, taps = [], [], []
    for e in e_list:
        term, window = dim_term(e), _window(e)
        if term is not None and term[1] == 1:
            plain.append(term[0])
        elif window is not None:
            (d0, _), (d1, _) = window
            r, p = (d0, d1) if "reduction" in iters[d0] else (d1, d0)
            if "reduction" not in iters[r] or "reduction" in iters[p]:
                return None
            reduced.append(r)
            taps.append(p)
        else:
            return None
    return plain, reduced, taps


def _plan_windowed(op, w: int) -> _Plan | None:
    """The plan with input `w` the windowed one, if its windows are a weight gradient's."""
    maps = indexing_maps(op)
    iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    out, a = map_dims(maps[2]), map_dims(maps[1 - w])
    split = _split_windows(maps[w].results, iters) if a is not None else None
    if split is None:
        return None
    plain, reduced, taps = split
    if not taps or set(plain) & set(reduced + taps) or set(taps) & set(a):
        return None
    if not _runs(a, reduced) or set(reduced) & set(out) or not _runs(out, taps):
        return None
    # The column group: the taps and the output dims just before them that only the windowed
    # input reads (a weight gradient's input channels).
    cols = list(taps)
    at = out.index(taps[0])
    while at > 0 and out[at - 1] in plain and out[at - 1] not in a:
        at -= 1
        cols.insert(0, out[at])
    tap_sizes = [_static_extent(op, d, maps) for d in taps]
    if None in tap_sizes or prod(tap_sizes) > MAX_TAPS:
        return None
    sums = [_static_extent(op, d, maps) for d in reduced]
    if None not in sums and prod(sums) <= prod(tap_sizes):
        return None  # kernel-sized sums: a forward convolution
    plan = _Plan(w, [d for d in plain if d not in cols], cols, reduced)
    known = [_static_extent(op, d, maps) for d in plan.others + plan.cols + plan.reduced]
    width = ir.ShapedType(op.operands[w].type).element_type.width // 8
    if prod(size for size in known if size is not None) * width > MAX_COLS_BYTES:
        return None  # the copy would cost more memory than the slow product costs time
    return plan


def _static_extent(op, d: int, maps) -> int | None:
    size = loop_extent(op, d, maps, static_only=True)
    return size if isinstance(size, int) else None


def _groups(dims: list[int], run: list[int]) -> list[list[int]]:
    """Reassociation of `dims` (one tensor's dims) with the dims of `run` merged into one."""
    groups, i = [], 0
    while i < len(dims):
        if dims[i] == run[0]:
            groups.append(list(range(i, i + len(run))))
            i += len(run)
        else:
            groups.append([i])
            i += 1
    return groups


def _collapse(v: ir.Value, groups) -> ir.Value:
    t = ir.RankedTensorType(v.type)
    shape = []
    for g in groups:
        sizes = [t.get_dim_size(d) for d in g]
        dynamic = any(t.is_dynamic_dim(d) for d in g)
        shape.append(ir.ShapedType.get_dynamic_size() if dynamic else prod(sizes))
    result = ir.RankedTensorType.get(shape, t.element_type)
    return tensor.collapse_shape(result, v, reassociation(groups))


def _expand(v: ir.Value, like: ir.Value, groups) -> ir.Value:
    """`v` expanded back to the type of `like` (the `?` sizes read from `like`)."""
    t = ir.RankedTensorType(like.type)
    dynamic = [
        tensor.dim(like, arith.constant(ir.IndexType.get(), d))
        for d in range(t.rank)
        if t.is_dynamic_dim(d)
    ]
    return tensor.expand_shape(t, v, reassociation(groups), dynamic, t.shape)


def _rewrite(op, plan: _Plan) -> None:
    maps = indexing_maps(op)
    iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    w, a = plan.windowed, 1 - plan.windowed
    a_dims, out_dims = map_dims(maps[a]), map_dims(maps[2])
    transposed = TRANSPOSED_COLS and _strided_last_read(maps[w], plan)
    x = op.operands[w]
    with ir.InsertionPoint(op), op.location:
        col_dims = _col_dims(plan, [], transposed)
        sizes = [loop_extent(op, d, maps) for d in col_dims]
        init = tensor.EmptyOp(sizes, ir.RankedTensorType(x.type).element_type).result
        copied = tap_copies(x, maps[w], col_dims, plan.cols, sizes, init)
        # The generic copy may lay cols out freely: the batch goes into the sum's run
        batch = _batch_dims(plan, iters, a_dims) if copied is None and BATCH_IN_SUM else []
        if copied is None:
            if batch:
                init.owner.erase()
                col_dims = _col_dims(plan, batch, transposed)
                sizes = [loop_extent(op, d, maps) for d in col_dims]
                init = tensor.EmptyOp(sizes, ir.RankedTensorType(x.type).element_type).result
            copied = _generic_copy(x, maps[w], col_dims, init)
        run = batch + plan.reduced
        cols = _collapse(copied, _col_groups(plan, col_dims, run))
        other, a_dims = _sum_last(op, maps, a, a_dims, run)
        other = _collapse(other, _groups(a_dims, run))
        out_groups = _groups(out_dims, plan.cols)
        acc = _collapse(op.operands[2], out_groups)
        # Loop dims: the merged runs become their first dim.
        dropped = set(plan.cols[1:]) | set(run[1:])
        kept = [d for d in range(len(iters)) if d not in dropped]
        new_id = {d: i for i, d in enumerate(kept)}

        def merged(dims):
            return ir.AffineMap.get(
                len(kept), 0, [ir.AffineDimExpr.get(new_id[d]) for d in dims if d not in dropped]
            )

        new_maps = [None, None, merged(out_dims)]
        new_maps[w] = merged(col_dims)
        new_maps[a] = merged(a_dims)
        inputs = [None, None]
        inputs[w], inputs[a] = cols, other
        kinds = [
            linalg.IteratorType.reduction
            if "reduction" in iters[d]
            else linalg.IteratorType.parallel
            for d in kept
        ]
        new = linalg.GenericOp_(inputs, [acc], new_maps, kinds)
        body = new.regions[0].blocks[0]
        u, v, s = body.arguments
        with ir.InsertionPoint(body):
            u, v = (t if t.type == s.type else arith.extf(s.type, t) for t in (u, v))
            linalg.YieldOp([arith.addf(s, arith.mulf(u, v))])
        result = _expand(new.results[0], op.operands[2], out_groups)
    op.results[0].replace_all_uses_with(result)
    op.erase()


def _col_dims(plan: _Plan, batch: list[int], transposed: bool) -> list[int]:
    """cols' dims: the plain dims (but `batch`), then the taps' group and the sum's run
    (`batch` and the windows' reduction dims), in that order or swapped."""
    others = [d for d in plan.others if d not in batch]
    run = batch + plan.reduced
    return others + (run + plan.cols if transposed else plan.cols + run)


def _batch_dims(plan: _Plan, iters, a_dims: list[int]) -> list[int]:
    """The plain reduction dims (a weight gradient's batch) both inputs read. Summed with the
    output pixels as one run, a strided weight gradient's product reduces over N*O elements
    once rather than over O elements N times, each time ending in a reduction across lanes and
    an update of the result (train_cnn's 32->64 gradient: 16 sums of 256)."""
    batch = [d for d in plan.others if "reduction" in iters[d]]
    return batch if all(d in a_dims for d in batch) else []


def _generic_copy(x, x_map: ir.AffineMap, col_dims: list[int], init) -> ir.Value:
    """`init` (cols, dims `col_dims`) filled with `x` read through `x_map`, one generic."""
    position = {d: i for i, d in enumerate(col_dims)}

    def moved(e):
        term = dim_term(e)
        if term is not None and term[1] == 1:
            return ir.AffineDimExpr.get(position[term[0]])
        (d0, c0), (d1, c1) = _window(e)
        return ir.AffineDimExpr.get(position[d0]) * c0 + ir.AffineDimExpr.get(position[d1]) * c1

    rank = len(col_dims)
    copy = linalg.GenericOp_(
        [x],
        [init],
        [
            ir.AffineMap.get(rank, 0, [moved(e) for e in x_map.results]),
            ir.AffineMap.get_identity(rank),
        ],
        [PARALLEL] * rank,
    )
    block = copy.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        linalg.YieldOp([block.arguments[0]])
    return copy.results[0]


def _sum_last(op, maps, a: int, a_dims: list[int], run: list[int]):
    """Operand `a` (dims `a_dims`) with the dims of `run` last and in order: itself, or a
    transposed copy (the batch of a gradient [N, F, O] moved next to its pixels)."""
    x = op.operands[a]
    if _runs(a_dims, run):
        return x, a_dims
    order = [d for d in a_dims if d not in run] + run
    rank = len(order)
    sizes = [loop_extent(op, d, maps) for d in order]
    init = tensor.EmptyOp(sizes, ir.RankedTensorType(x.type).element_type).result
    position = {d: i for i, d in enumerate(order)}
    read = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(position[d]) for d in a_dims])
    copy = linalg.GenericOp_(
        [x], [init], [read, ir.AffineMap.get_identity(rank)], [PARALLEL] * rank
    )
    block = copy.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        linalg.YieldOp([block.arguments[0]])
    return copy.results[0], order


def _col_groups(plan: _Plan, col_dims: list[int], run: list[int]) -> list[list[int]]:
    """cols[others.., (cols..), (run..)] (or the two runs swapped) as others.., one dim per
    run."""
    n = len(col_dims) - len(plan.cols) - len(run)
    first, second = (plan.cols, run) if col_dims[n] == plan.cols[0] else (run, plan.cols)
    return [[i] for i in range(n)] + [
        list(range(n, n + len(first))),
        list(range(n + len(first), n + len(first) + len(second))),
    ]


# A strided weight gradient's batch summed with its output pixels as one run (`_batch_dims`)
BATCH_IN_SUM = True


# A window read with a stride along its last dim (`ow * 2 + kw`) copied into transposed cols
# [O, J] (the outer kernel's B) instead of [J, O]: chosen on an Intel host, where it was faster;
# on znver5 the [J, O] copy (lanes along `ow`) is faster for every strided weight gradient timed
# (1 thread, thread CPU time, fwd + weight grad of a stride-2 3x3 conv: 64->128 on [8,64,56,56]
# 15.9 -> 13.6 ms, on [16,64,16,16] 2.19 -> 1.80, 3->64 on [4,3,224,224] 5.20 -> 5.15;
# train_cnn step 9.8 -> 9.1 ms), so it is off; the switch stays for other hosts' A/Bs.
TRANSPOSED_COLS = False


def _strided_last_read(x_map: ir.AffineMap, plan: _Plan) -> bool:
    """The windowed input's last dim is read with a stride (`ow * 2 + kw`)."""
    window = _window(x_map.results[-1])
    return window is not None and any(d in plan.reduced and c > 1 for d, c in window)
