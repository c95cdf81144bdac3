"""The windows copy of `aten-im2col-windows` as one strided slice copy per kernel tap.

`cols[n, g, c, kh, kw, oh, ow] = x[n, g, c, oh*s + kh*d, ow*s + kw*d]` as one generic reads `x`
through sums of dims, which the CPU loops stage cannot run along a vector (it ran one element at
a time: train_cnn's 32->64 weight gradient copied 1.2M elements so). With the taps fixed, the
same copy is a view of `x` (offset `kh*d`, stride `s`) written into a view of `cols`: a
`tensor.insert_slice` of a `tensor.extract_slice`, which bufferizes to a strided `memref.copy`
and runs as vector loops along `ow`. Only for a unit stride along the last dim: a stride-2 row's
slice copy still runs element by element, and took longer than the generic (2.23 -> 2.58 ms).
"""

from __future__ import annotations

import itertools

from mlir import ir
from mlir.dialects import tensor

from ..ir import reassociation, unit_groups

# Above this many taps the generic copy stays (one copy op per tap).
MAX_TAP_COPIES = 32
DYN = ir.ShapedType.get_dynamic_size()


def dim_term(e: ir.AffineExpr) -> tuple[int, int] | None:
    """(dim, coefficient) of `d` or `d * c` (c > 0)."""
    if isinstance(e, ir.AffineDimExpr):
        return ir.AffineDimExpr(e).position, 1
    if isinstance(e, ir.AffineMulExpr):
        m = ir.AffineMulExpr(e)
        for a, b in ((m.lhs, m.rhs), (m.rhs, m.lhs)):
            if isinstance(a, ir.AffineDimExpr) and isinstance(b, ir.AffineConstantExpr):
                c = ir.AffineConstantExpr(b).value
                return (ir.AffineDimExpr(a).position, c) if c > 0 else None
    return None


def _access(e: ir.AffineExpr, tap_dims: set[int]):
    """(read dim, its stride, tap dim or None, tap coefficient) of one result of `x`'s map:
    `d` or `r * s + p * c` with `r` read along and `p` one of `tap_dims`."""
    term = dim_term(e)
    if term is not None:
        return (term[0], 1, None, 0) if term[1] == 1 else None
    if not isinstance(e, ir.AffineAddExpr):
        return None
    add = ir.AffineAddExpr(e)
    a, b = dim_term(add.lhs), dim_term(add.rhs)
    if a is None or b is None or (a[0] in tap_dims) == (b[0] in tap_dims):
        return None
    tap, read = (a, b) if a[0] in tap_dims else (b, a)
    return read[0], read[1], tap[0], tap[1]


def _mixed(values):
    dynamic = [v for v in values if not isinstance(v, int)]
    static = [v if isinstance(v, int) else DYN for v in values]
    return dynamic, static


def tap_copies(
    x: ir.Value, x_map: ir.AffineMap, col_dims, tap_dims, sizes, init
) -> ir.Value | None:
    """`init` (the cols tensor, dims `col_dims` of extents `sizes`) filled with the windows of
    `x` read through `x_map`, one slice copy per value of the taps (of `tap_dims`); None when
    the form does not fit (more than MAX_TAP_COPIES taps, a `?` size, a strided last dim, or
    `x`'s read dims in another order than cols')."""
    accesses = [_access(e, set(tap_dims)) for e in x_map.results]
    if None in accesses:
        return None
    taps = [tap for _, _, tap, _ in accesses if tap is not None]
    reads = [read for read, *_ in accesses]
    if len(set(taps)) != len(taps) or [d for d in col_dims if d not in taps] != reads:
        return None
    if accesses[-1][1] != 1:
        return None  # a strided row: its slice copy runs one element at a time, slower still
    extent = dict(zip(col_dims, sizes))
    tap_sizes = [extent[t] for t in taps]
    if not all(isinstance(n, int) for n in tap_sizes):
        return None
    count = 1
    for n in tap_sizes:
        count *= n
    if count > MAX_TAP_COPIES:
        return None
    element = ir.RankedTensorType(x.type).element_type
    piece_shape = [extent[d] for d in reads]
    piece_type = ir.RankedTensorType.get(
        [n if isinstance(n, int) else DYN for n in piece_shape], element
    )
    read_dyn, read_static = _mixed(piece_shape)
    tap_positions = [i for i, d in enumerate(col_dims) if d in taps]
    cols = init
    for values in itertools.product(*[range(n) for n in tap_sizes]):
        at = dict(zip(taps, values))
        offsets = [0 if tap is None else at[tap] * c for _, _, tap, c in accesses]
        strides = [stride for _, stride, _, _ in accesses]
        piece = tensor.extract_slice(piece_type, x, [], read_dyn, [], offsets, read_static, strides)
        dest_sizes = [1 if d in at else extent[d] for d in col_dims]
        dest_dyn, dest_static = _mixed(dest_sizes)
        dest_offsets = [at.get(d, 0) for d in col_dims]
        # the piece given cols' rank (the taps' unit dims made explicit) before the insert: a
        # rank-reducing insert leaves which unit dims were dropped to inference, and with `?`
        # strides the bufferized subview dropped the wrong ones (read the wrong elements)
        full = tensor.expand_shape(
            ir.RankedTensorType.get(dest_static, element),
            piece,
            reassociation(unit_groups(len(col_dims), tap_positions)),
            dest_dyn,
            dest_static,
        )
        cols = tensor.insert_slice(
            full, cols, [], dest_dyn, [], dest_offsets, dest_static, [1] * len(col_dims)
        )
    return cols
