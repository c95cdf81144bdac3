"""Pooling -> core pools (`max_pool{2,3}d_with_indices`, `_adaptive_avg_pool{2,3}d`,
`avg_pool*`): the bus stops of ATen's `MaxPooling.cpp`/`AdaptiveAveragePooling.cpp` composites,
adaptive max pooling with uneven windows as a max pool over gathered windows, and max unpooling
as a scatter.
"""

from __future__ import annotations

import functools

import torch
from mlir import ir
from mlir.dialects import arith

from aten_mlir.dialects import element_type

from .common import dtype, int_list
from .registry import register_decomposition
from .views import reshape, view


def _squeezed(rewriter, values, dim: int, types) -> list[ir.Value]:
    return [
        rewriter.aten("aten.squeeze.dims", v, [dim], results=[t]) for v, t in zip(values, types)
    ]


@register_decomposition("aten.max_pool1d_with_indices")
def decompose_max_pool1d_with_indices(op, rewriter):
    """aten.max_pool1d_with_indices -> aten.unsqueeze, aten.max_pool2d_with_indices,
    aten.squeeze.dims: a pool over a height-1 plane, whose flat indices are the 1-d ones (ATen)"""
    a = rewriter.args
    (kernel,) = int_list(a["kernel_size"], 1)
    (stride,) = int_list(a["stride"], 1) if a["stride"] else (kernel,)
    (padding,) = int_list(a["padding"], 1)
    (dilation,) = int_list(a["dilation"], 1)
    x = rewriter.aten("aten.unsqueeze", a["self"], -2)
    pooled = rewriter.build(
        "aten.max_pool2d_with_indices",
        x,
        [1, kernel],
        [1, stride],
        [0, padding],
        [1, dilation],
        a["ceil_mode"],
    )
    return _squeezed(rewriter, pooled.results, -2, [r.type for r in op.results])


def _max_pool_values(target: str, op, rewriter):
    a = rewriter.args
    pooled = rewriter.build(
        target,
        a["self"],
        a["kernel_size"],
        a["stride"],
        a["padding"],
        a["dilation"],
        a["ceil_mode"],
        results=[op.results[0].type, _with_dtype(op, op.results[0].type, torch.int64)],
    )
    return pooled.results[0]


def _with_dtype(op, t: ir.Type, elem: torch.dtype) -> ir.Type:
    with op.location:
        return ir.RankedTensorType.get(list(ir.RankedTensorType(t).shape), element_type(elem))


for _name, _target in (
    ("aten.max_pool1d", "aten.max_pool1d_with_indices"),
    ("aten.max_pool2d", "aten.max_pool2d_with_indices"),
    ("aten.max_pool3d", "aten.max_pool3d_with_indices"),
):
    _rule = functools.partial(_max_pool_values, _target)
    _rule.__name__ = "decompose_" + _name.removeprefix("aten.")
    _rule.__doc__ = f"{_name} -> {_target} (its values)"
    register_decomposition(_name)(_rule)


def _adaptive_avg_pool(n: int, op, rewriter):
    a = rewriter.args
    x, output_size = a["self"], int_list(a["output_size"], n)
    if all(isinstance(s, int) and s == 1 for s in output_size):
        # ATen's own shortcut: a mean over the plane (pairwise summation, unlike the pool kernel)
        dims = list(range(-n, 0))
        return rewriter.aten("aten.mean.dim", x, dims, True, results=[op.results[0].type])
    return rewriter.aten(
        f"aten._adaptive_avg_pool{n}d", x, output_size, results=[op.results[0].type]
    )


for _n, _name in ((2, "aten.adaptive_avg_pool2d"), (3, "aten.adaptive_avg_pool3d")):
    _rule = functools.partial(_adaptive_avg_pool, _n)
    _rule.__name__ = f"decompose_adaptive_avg_pool{_n}d"
    _rule.__doc__ = (
        f"aten.adaptive_avg_pool{_n}d -> aten._adaptive_avg_pool{_n}d, aten.mean.dim (output 1)"
    )
    register_decomposition(_name)(_rule)


@register_decomposition("aten.adaptive_max_pool1d")
def decompose_adaptive_max_pool1d(op, rewriter):
    """aten.adaptive_max_pool1d -> aten.unsqueeze, aten.adaptive_max_pool2d, aten.squeeze.dims
    (ATen's own route)"""
    a = rewriter.args
    x = rewriter.aten("aten.unsqueeze", a["self"], -2)
    (size,) = int_list(a["output_size"], 1)
    pooled = rewriter.build("aten.adaptive_max_pool2d", x, [1, size])
    return _squeezed(rewriter, pooled.results, -2, [r.type for r in op.results])


def _max_unpool(n: int, op, rewriter):
    """Each value lands at its flat index in its (batch, channel) plane: `aten.scatter.src` along
    the flattened plane, into zeros. Later duplicates win, as in ATen's serial CPU loop."""
    a = rewriter.args
    x, indices = a["self"], a["indices"]
    output_size = int_list(a["output_size"], n)
    sizes = rewriter.sizes(x)
    lead = sizes[:-n]
    plane = 1
    for s in output_size:
        plane = rewriter.index_arith(arith.MulIOp, plane, s)
    count = 1
    for s in sizes[-n:]:
        count = rewriter.index_arith(arith.MulIOp, count, s)
    result = ir.RankedTensorType(op.results[0].type)
    with op.location:
        flat = ir.RankedTensorType.get(
            list(result.shape[:-n]) + [_static_product(result.shape[-n:])], result.element_type
        )
    zeros = rewriter.aten("aten.full", lead + [plane], 0, dtype=dtype(x), results=[flat])
    src = reshape(rewriter, x, lead + [count])
    index = reshape(rewriter, indices, lead + [count])
    out = rewriter.aten("aten.scatter.src", zeros, -1, index, src, results=[flat])
    # scatter's result takes the layout of `zeros`, a fresh contiguous tensor: a view suffices
    return view(rewriter, out, lead + output_size, results=[op.results[0].type])


def _static_product(dims) -> int:
    dyn = ir.ShapedType.get_dynamic_size()
    if any(d == dyn for d in dims):
        return dyn
    return functools.reduce(int.__mul__, dims, 1)


for _n, _name in ((2, "aten.max_unpool2d"), (3, "aten.max_unpool3d")):
    _rule = functools.partial(_max_unpool, _n)
    _rule.__name__ = f"decompose_max_unpool{_n}d"
    _rule.__doc__ = (
        f"aten.max_unpool{_n}d -> aten.full, aten.clone (inputs a view cannot reshape), aten.view, "
        "aten.scatter.src"
    )
    register_decomposition(_name)(_rule)


# -- adaptive max pooling ---------------------------------------------------------------------


def _window_index(rewriter, size: int, out: int, length: int) -> ir.Value:
    """`[o * length + k] -> min(floor(o * size / out) + k, ceil((o + 1) * size / out) - 1)`: the
    input positions window o reads, padded to `length` by repeating its last position."""
    o = rewriter.aten("aten.arange.start_step", 0, out, 1, dtype=torch.int64)
    scaled = rewriter.aten("aten.mul.Scalar", o, size)
    start = rewriter.aten("aten.div.Scalar_mode", scaled, out, rounding_mode="floor")
    end = rewriter.aten("aten.add.Scalar", scaled, size + out - 1)
    last = rewriter.aten(
        "aten.sub.Scalar", rewriter.aten("aten.div.Scalar_mode", end, out, rounding_mode="floor"), 1
    )
    k = rewriter.aten("aten.arange.start_step", 0, length, 1, dtype=torch.int64)
    index = rewriter.aten(
        "aten.add.Tensor",
        rewriter.aten("aten.unsqueeze", start, 1),
        rewriter.aten("aten.unsqueeze", k, 0),
    )
    index = rewriter.aten("aten.minimum", index, rewriter.aten("aten.unsqueeze", last, 1))
    return rewriter.aten("aten.view", index, [out * length])


def _window_length(size: int, out: int) -> int:
    return max(-(-(o + 1) * size // out) - o * size // out for o in range(out))


def _source_index(rewriter, local: ir.Value, gathered: list, maps: list, sizes: list[int]):
    """The flat index into the input plane of `local`, a flat index into the gathered plane:
    each coordinate through its window index (`maps[d]`, None where nothing was gathered)."""
    flat = None
    for d, (g, index) in enumerate(zip(gathered, maps)):
        inner = functools.reduce(int.__mul__, gathered[d + 1 :], 1)
        coord = local
        if inner > 1:
            coord = rewriter.aten("aten.div.Scalar_mode", coord, inner, rounding_mode="floor")
        if d > 0:
            coord = rewriter.aten("aten.remainder.Scalar", coord, g)
        if index is not None:
            coord = rewriter.aten("aten.index.Tensor", index, [coord])
        stride = functools.reduce(int.__mul__, sizes[d + 1 :], 1)
        if stride > 1:
            coord = rewriter.aten("aten.mul.Scalar", coord, stride)
        flat = coord if flat is None else rewriter.aten("aten.add.Tensor", flat, coord)
    return flat


_ADAPTIVE_MAX_DOC = """aten.adaptive_max_pool{n}d -> aten.max_pool{n}d_with_indices, and for uneven
    windows aten.arange.start_step, aten.mul.Scalar, aten.div.Scalar_mode, aten.add.Scalar,
    aten.sub.Scalar, aten.unsqueeze, aten.add.Tensor, aten.minimum, aten.view, aten.index_select,
    aten.remainder.Scalar, aten.index.Tensor

    Window o spans [floor(o * in / out), ceil((o + 1) * in / out)) as in ATen. Where in % out == 0
    the windows are a max pool with kernel = stride = in / out. Otherwise they are gathered
    (`index_select`), each padded to the longest by repeating its last element, which changes
    neither the max nor the index under ATen's rule (first maximum, last NaN); the pool's indices
    into the gathered plane are mapped back through the gather. The spatial sizes must be static
    (they fix the kernel); torch's own table gives up on uneven windows."""


def _adaptive_max_pool(n: int, op, rewriter):
    x = rewriter.args["self"]
    out = int_list(rewriter.args["output_size"], n)
    t = ir.RankedTensorType(x.type)
    spatial = range(t.rank - n, t.rank)
    if any(t.is_dynamic_dim(d) for d in spatial) or 0 in out:
        return None  # window sizes must be static (the max pool's kernel)
    sizes = [t.get_dim_size(d) for d in spatial]
    kernel, maps, gathered_sizes = [], [], []
    for d, (size, o) in enumerate(zip(sizes, out)):
        if size % o == 0:
            kernel.append(size // o)
            maps.append(None)
            gathered_sizes.append(size)
            continue
        length = _window_length(size, o)
        index = _window_index(rewriter, size, o, length)
        x = rewriter.aten("aten.index_select", x, t.rank - n + d, index)
        kernel.append(length)
        maps.append(index)
        gathered_sizes.append(o * length)
    values, local = rewriter.build(
        f"aten.max_pool{n}d_with_indices",
        x,
        kernel,
        kernel,
        [0] * n,
        [1] * n,
        False,
        results=[r.type for r in op.results],
    ).results
    if all(m is None for m in maps):
        return [values, local]
    return [values, _source_index(rewriter, local, gathered_sizes, maps, sizes)]


for _n, _name in ((2, "aten.adaptive_max_pool2d"), (3, "aten.adaptive_max_pool3d")):
    _rule = functools.partial(_adaptive_max_pool, _n)
    _rule.__name__ = f"decompose_adaptive_max_pool{_n}d"
    _rule.__doc__ = _ADAPTIVE_MAX_DOC.format(n=_n)
    register_decomposition(_name)(_rule)


# -- fractional max pooling --------------------------------------------------------------------

# Which entry of random_samples[n, c] drives each spatial dim (ATen's FractionalMaxPool{2,3}d.cpp).
_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}


def _fractional_starts(rewriter, sample, size: int, out: int, pool: int) -> ir.Value:
    """[N, C, out] window starts along one dim, ATen's `generate_intervals` op for op in the
    samples' dtype: trunc((i + u) * alpha) - trunc(u * alpha), the last window at size - pool.
    alpha is rounded to that dtype as the kernel's `scalar_t` division rounds it."""
    last = size - pool
    if out == 1:
        return rewriter.aten("aten.full", [1, 1, 1], last, dtype=torch.int64)
    elem = dtype(sample)
    alpha = (torch.tensor(size - pool, dtype=elem) / torch.tensor(out - 1, dtype=elem)).item()
    u = rewriter.aten("aten.unsqueeze", sample, -1)  # N, C, 1
    steps = rewriter.aten("aten.arange.start_step", 0, out, 1, dtype=elem)
    scaled = rewriter.aten("aten.mul.Scalar", rewriter.aten("aten.add.Tensor", steps, u), alpha)
    offset = rewriter.aten("aten.mul.Scalar", u, alpha)
    starts = rewriter.aten(
        "aten.sub.Tensor",
        rewriter.aten("aten._to_copy", scaled, dtype=torch.int64),
        rewriter.aten("aten._to_copy", offset, dtype=torch.int64),
    )
    index = rewriter.aten("aten.arange.start_step", 0, out, 1, dtype=torch.int64)
    is_last = rewriter.aten("aten.eq.Scalar", index, out - 1)
    last = rewriter.aten("aten.scalar_tensor", last, dtype=torch.int64)
    return rewriter.aten("aten.where.self", is_last, last, starts)


def _fractional_plane_index(rewriter, samples, sizes, kernel, out) -> ir.Value:
    """[N, C, o0, k0, o1, k1, ...]: the flat input-plane index each window element reads."""
    n = len(sizes)
    flat = None
    for d in range(n):
        sample = rewriter.aten("aten.select.int", samples, -1, _SAMPLE_OF_DIM[n][d])
        starts = _fractional_starts(rewriter, sample, sizes[d], out[d], kernel[d])
        offsets = rewriter.aten("aten.arange.start_step", 0, kernel[d], 1, dtype=torch.int64)
        coord = rewriter.aten(
            "aten.add.Tensor", rewriter.aten("aten.unsqueeze", starts, -1), offsets
        )
        stride = functools.reduce(int.__mul__, sizes[d + 1 :], 1)
        if stride > 1:
            coord = rewriter.aten("aten.mul.Scalar", coord, stride)
        for other in range(n):  # [.., o_d, k_d] -> one (o, k) pair of dims per spatial dim
            if other != d:
                at = 2 + 2 * other if other < d else -1
                coord = rewriter.aten("aten.unsqueeze", coord, at)
                coord = rewriter.aten("aten.unsqueeze", coord, at)
        flat = coord if flat is None else rewriter.aten("aten.add.Tensor", flat, coord)
    return flat


def _fractional_max_pool(n: int, op, rewriter):
    a = rewriter.args
    x, samples = a["self"], a["random_samples"]
    kernel, out = int_list(a["kernel_size"], n), int_list(a["output_size"], n)
    t = ir.RankedTensorType(x.type)
    if any(t.is_dynamic_dim(d) for d in range(t.rank - n, t.rank)):
        return None  # the flat plane index needs static plane sizes
    sizes = [t.get_dim_size(d) for d in range(t.rank - n, t.rank)]
    unbatched = t.rank == n + 1
    if unbatched:
        x = rewriter.aten("aten.unsqueeze", x, 0)
    lead = rewriter.sizes(x)[:2]
    index = _fractional_plane_index(rewriter, samples, sizes, kernel, out)
    gathered_count = functools.reduce(int.__mul__, [o * k for o, k in zip(out, kernel)], 1)
    index = view(rewriter, index, lead + [gathered_count])
    plane = reshape(rewriter, x, lead + [functools.reduce(int.__mul__, sizes, 1)])
    windows = rewriter.aten("aten.gather", plane, 2, index)
    windows = view(rewriter, windows, lead + [o * k for o, k in zip(out, kernel)])
    pool = f"aten.max_pool{n}d_with_indices"
    types = None if unbatched else [r.type for r in op.results]
    values, local = rewriter.build(
        pool, windows, kernel, kernel, [0] * n, [1] * n, False, results=types
    ).results
    count = functools.reduce(int.__mul__, out, 1)
    local = view(rewriter, local, lead + [count])
    source = rewriter.aten("aten.gather", index, 2, local)
    source = view(rewriter, source, lead + out, results=None if unbatched else [op.results[1].type])
    if unbatched:
        return [
            rewriter.aten("aten.squeeze.dims", r, [0], results=[o.type])
            for r, o in zip((values, source), op.results)
        ]
    return [values, source]


_FRACTIONAL_DOC = """aten.fractional_max_pool{n}d -> aten.select.int, aten.unsqueeze,
    aten.arange.start_step, aten.add.Tensor, aten.mul.Scalar, aten._to_copy, aten.sub.Tensor,
    aten.eq.Scalar, aten.scalar_tensor, aten.where.self, aten.full, aten.view, aten.clone,
    aten.gather, aten.max_pool{n}d_with_indices, aten.squeeze.dims

    The window starts come from random_samples exactly as ATen's kernel computes them (in the
    input's dtype, truncated to int); every window is gathered from the flattened plane, max
    pooled with kernel = stride (same first-maximum/last-NaN rule), and the pool's indices into
    the gathered windows are mapped back through the gather index. Torch has no decomposition.
    The spatial sizes must be static."""

for _n, _name in ((2, "aten.fractional_max_pool2d"), (3, "aten.fractional_max_pool3d")):
    _rule = functools.partial(_fractional_max_pool, _n)
    _rule.__name__ = f"decompose_fractional_max_pool{_n}d"
    _rule.__doc__ = _FRACTIONAL_DOC.format(n=_n)
    register_decomposition(_name)(_rule)
