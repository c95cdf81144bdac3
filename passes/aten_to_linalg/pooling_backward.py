"""Max pooling backward and col2im, and the masked-gather helpers the pooling backward rules
share (average pooling's are in `pooling_backward_avg.py`): gathers over the windows covering
each input element (max_pool2d_with_indices_backward: a scatter by its indices, or a gather when
the windows tile the plane and every index lies in its own window; see there).

These ops scatter-add from window outputs into the input; written as scatters they would race
in parallel loops, so each rule is a `linalg.generic` over the *input* (parallel) and the few
window offsets that can reach it (reduction), reading the contributions with `tensor.extract` at
clamped positions and masking those that are not real. Offsets run so that contributions arrive
in ascending output order, as ATen's CPU kernels add them (same rounding).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from . import convolution_tensors as T
from .builder import PARALLEL, REDUCTION, is_float, tensor_type
from .indexing_core import loop_nest
from .pooling_windows import CMPI, Windows
from .registry import register_lowering
from .scatter import combine
from .views_common import collapse, expand, located, product


def add_masked(acc, v, valid):
    """acc + v where `valid`, else acc (a contribution that is not real adds nothing)."""
    zero = arith.constant(v.type, 0.0 if is_float(v.type) else 0)
    v = arith.select(valid, v, zero)
    return arith.addf(acc, v) if is_float(v.type) else arith.addi(acc, v)


def clamp_index(v, size):
    """An index clamped into [0, size): where a masked contribution is read (in bounds)."""
    return arith.maxsi(arith.minsi(v, arith.subi(T.ival(size), T.icst(1))), T.icst(0))


def _hit(t, s, count):
    """For t = h + p - k*d: whether an output o = t / s with 0 <= o < count exists there."""
    ok = arith.cmpi(CMPI.sge, t, T.icst(0))
    if s != 1:
        ok = arith.andi(ok, arith.cmpi(CMPI.eq, arith.remsi(t, T.icst(s)), T.icst(0)))
    o = arith.divsi(t, T.icst(s)) if s != 1 else t
    return arith.andi(ok, arith.cmpi(CMPI.slt, o, T.ival(count))), o


def float_inputs(rw, *values):
    """Whether every operand and the result are floats (the float-only pooling ops)."""
    return all(is_float(tensor_type(v).element_type) for v in values) and is_float(
        rw.result_type().element_type
    )


@register_lowering("aten.max_pool2d_with_indices_backward")
@located
def lower_max_pool2d_with_indices_backward(op, rw):
    """aten.max_pool2d_with_indices_backward -> tensor.collapse_shape, scf.for(tensor.extract,
    tensor.insert), tensor.expand_shape: each grad_output element added at its index

    ATen's kernel scatters by `indices` alone, whatever window an index lies in (indices that
    did not come from max_pool2d_with_indices, as torch-mlir's e2e tests pass, land where they
    say), in ascending output order per plane: so does this loop (a gather over each input's
    windows would miss indices outside the window). Kernel size, stride, padding, dilation and
    ceil_mode only shape grad_output. An index outside the plane is skipped (ATen skips -1 and
    writes out of bounds for the others).

    When windows tile the plane (kernel == stride, `_own_windows`), a vector pass checks that
    every index in the plane is a position of its own window, as max_pool2d_with_indices gives
    them; then the gradient is gathered (`_gather`) and the scatter's loops run zero trips."""
    a = rw.args
    go, x, indices = a["grad_output"], a["self"], a["indices"]
    if not float_inputs(rw, go, x) or tensor_type(indices).element_type != _i64():
        return None
    rank = tensor_type(x).rank
    if rank not in (3, 4) or tensor_type(go).rank != rank:
        return None
    lead = rank - 2
    planes = [[d] for d in range(lead)] + [[lead, lead + 1]]
    sizes = rw.sizes(x)
    w = _own_windows(rw, x, go, a)
    plane = product(rw, sizes[lead:])
    e = tensor_type(go).element_type
    flat_go, flat_index = collapse(rw, go, planes), collapse(rw, indices, planes)
    trips = rw.sizes(flat_index)
    if w is None:
        start = T.full(rw, [*sizes[:lead], plane], e, 0)
    else:
        # The gather, and the scatter's loops run only when some index strays (zero trips
        # otherwise): first back to zeros, then the scatter.
        strays = _strays(rw, w, indices)
        start = collapse(rw, _gather(rw, w, go, indices), planes)
        with rw.at():
            trips[0] = arith.select(strays, T.ival(trips[0]), T.icst(0))
        zero = rw.const(0, e)
        (start,) = loop_nest(
            rw,
            [trips[0], *rw.sizes(start)[1:]],
            [start],
            lambda ivs, acc: [tensor.insert(zero, acc[0], ivs)],
        )
    with rw.at():
        bound = arith.index_cast(_i64(), T.ival(plane)) if isinstance(plane, ir.Value) else None

    def body(ivs, carried):
        (acc,) = carried
        i = tensor.extract(flat_index, ivs)
        limit = bound if bound is not None else arith.constant(_i64(), plane)
        inside = arith.andi(
            arith.cmpi(CMPI.sge, i, arith.constant(_i64(), 0)), arith.cmpi(CMPI.slt, i, limit)
        )
        at = arith.index_cast(
            ir.IndexType.get(), arith.select(inside, i, arith.constant(_i64(), 0))
        )
        where = [*ivs[:lead], at]
        old = tensor.extract(acc, where)
        new = combine("sum", old, tensor.extract(flat_go, ivs))
        return [tensor.insert(arith.select(inside, new, old), acc, where)]

    (grad,) = loop_nest(rw, trips, [start], body)
    return expand(rw, grad, planes, rw.result_type(), sizes)


# A kxk/stride-k pool's backward (windows tile the plane) gathers: each gradient element reads
# the grad_output of its own window when that window's index points at it, a vector loop (the
# lane dim reads [w / k]) instead of the scalar scatter into a zero fill. Indices elsewhere (not
# from max_pool2d_with_indices) keep the scatter: a vector pass over the indices decides.
OWN_WINDOW_GATHER = True


def _own_windows(rw, x, go, a) -> Windows | None:
    """The window geometry when windows tile the plane: kernel == stride, no padding or
    dilation, a last-dim stride the vector loops spread (2 or 4)."""
    if not OWN_WINDOW_GATHER:
        return None
    w = Windows(
        rw, x, 2, a["kernel_size"], a["stride"], a["padding"], a["dilation"], a["ceil_mode"],
        out=rw.sizes(go),
    )  # fmt: skip
    if w.k != w.s or any(w.p) or any(d != 1 for d in w.d) or w.s[-1] not in (2, 4):
        return None
    if w.k[0] * w.k[1] > 16:
        return None  # the stray check compares each index with every window position
    return w


def _gather(rw, w: Windows, go, indices):
    """gi[.., h, w] = go[.., h / k, w / k] where indices[.., h / k, w / k] is h * W + w, else 0,
    over the rows and columns some window covers (the rest, when the windows stop short of the
    plane's end, zeros)."""
    lead = w.lead
    rank = lead + 2
    e = tensor_type(go).element_type
    covered = [T.smin(rw, i, T.mul(rw, o, s)) for i, o, s in zip(w.i, w.o, w.s)]
    exprs = [T.dim(d) for d in range(lead)] + [
        ir.AffineExpr.get_floor_div(T.dim(lead + j), s) for j, s in enumerate(w.s)
    ]
    window = T.amap(rank, exprs)

    def body(g, i, _):
        h, col = _i64_index(lead), _i64_index(lead + 1)
        flat = arith.addi(arith.muli(h, _as_i64(w.i[1])), col)
        zero = arith.constant(e, 0.0)
        return arith.select(arith.cmpi(CMPI.eq, i, flat), g, zero)

    sizes = [*w.sizes[:lead], *covered]
    init = T.empty(rw, sizes, e)
    out = rw.generic(
        [go, indices], [init], [window, window, T.identity(rank)], [PARALLEL] * rank, body
    )[0]
    if all(isinstance(c, int) and c == i for c, i in zip(covered, w.i)):
        return out
    return T.place(rw, out, T.full(rw, w.sizes, e, 0), [0] * rank)


def _strays(rw, w: Windows, indices) -> ir.Value:
    """i1: some index in the plane is not a position of its own window (clipped to the plane)."""
    lead = w.lead
    rank = lead + 2
    i64, i8 = _i64(), ir.IntegerType.get_signless(8)
    (kh, kw), (rows, cols) = w.s, w.i

    def body(i, acc):
        rows64, cols64 = _as_i64(rows), _as_i64(cols)
        oh, ow = _i64_index(lead), _i64_index(lead + 1)
        top = arith.muli(oh, arith.constant(i64, kh))
        left = arith.muli(ow, arith.constant(i64, kw))
        own = None
        for r in range(kh):
            row = arith.addi(top, arith.constant(i64, r))
            for c in range(kw):
                col = arith.addi(left, arith.constant(i64, c))
                hit = arith.cmpi(CMPI.eq, i, arith.addi(arith.muli(row, cols64), col))
                inside = arith.andi(
                    arith.cmpi(CMPI.slt, row, rows64), arith.cmpi(CMPI.slt, col, cols64)
                )
                hit = arith.andi(hit, inside)
                own = hit if own is None else arith.ori(own, hit)
        plane = arith.muli(rows64, cols64)
        in_plane = arith.andi(
            arith.cmpi(CMPI.sge, i, arith.constant(i64, 0)), arith.cmpi(CMPI.slt, i, plane)
        )
        true = arith.constant(ir.IntegerType.get_signless(1), 1)
        stray = arith.andi(in_plane, arith.xori(own, true))
        return arith.ori(acc, arith.extui(i8, stray))

    init = T.full(rw, [], i8, 0)
    maps = [T.identity(rank), T.amap(rank, [])]
    found = rw.generic([indices], [init], maps, [REDUCTION] * rank, body)[0]
    with rw.at():
        flag = tensor.extract(found, [])
        return arith.cmpi(CMPI.ne, flag, arith.constant(i8, 0))


def _i64():
    return ir.IntegerType.get_signless(64)


# The bodies count in i64, not index: a loop-invariant `index` vector (a `?` width broadcast)
# hoisted out of a parallel loop became a captured vector<Nxindex>, which LLVM cannot pass.
def _i64_index(d: int) -> ir.Value:
    return arith.index_cast(_i64(), T.index(d))


def _as_i64(size) -> ir.Value:
    return arith.constant(_i64(), size) if isinstance(size, int) else arith.index_cast(_i64(), size)


@register_lowering("aten.col2im")
def lower_col2im(op, rw):
    """aten.col2im -> linalg.generic(gather of the columns covering each pixel)"""
    a = rw.args
    cols = a["self"]
    e = tensor_type(cols).element_type
    if not (is_float(e) or isinstance(e, ir.IntegerType)) or e != rw.result_type().element_type:
        return None
    kernel, dil, pad, stride = (
        list(a[k]) for k in ("kernel_size", "dilation", "padding", "stride")
    )
    size = list(a["output_size"])
    if any(not isinstance(v, int) for v in size):
        return None
    lead = tensor_type(cols).rank - 2  # 1 when batched
    blocks = [
        (h + 2 * p - d * (k - 1) - 1) // s + 1
        for h, k, d, p, s in zip(size, kernel, dil, pad, stride)
    ]
    csizes = rw.sizes(cols)
    channels = T.floordiv(rw, csizes[lead], kernel[0] * kernel[1])
    out_sizes = T.result_sizes(rw, 0, lambda d: [*csizes[:lead], channels, *size][d])

    def body(idx, acc):
        c = idx[lead]
        blk, row, valid = [], c, None
        for j in range(2):
            k = idx[lead + 3 + j]
            t = arith.subi(
                arith.addi(idx[lead + 1 + j], T.icst(pad[j])), arith.muli(k, T.icst(dil[j]))
            )
            hit, b = _hit(t, stride[j], blocks[j])
            valid = hit if valid is None else arith.andi(valid, hit)
            blk.append(clamp_index(b, blocks[j]))
            row = arith.addi(arith.muli(row, T.icst(kernel[j])), k)
        col = arith.addi(arith.muli(blk[0], T.icst(blocks[1])), blk[1])
        return add_masked(acc, tensor.extract(cols, idx[:lead] + [row, col]), valid)

    zeros = T.full(rw, out_sizes, e, 0)
    return T.window_generic(rw, [], [], zeros, 2, kernel, body)
