"""The shapes of results a backward op leaves out. `convolution_backward`'s `output_mask`, and
norm backwards without an affine weight, make torch return `None` for a gradient nothing needs;
the aten ops have a fixed result list, so the importer gives such a result the type it would
have. The lowerings leave a masked result unwritten or compute a small unused reduction."""

from __future__ import annotations

import torch


def _val(arg):
    return arg.meta.get("val") if isinstance(arg, torch.fx.Node) else None


def _channels(args, kwargs, name, position, dim):
    """sizes [C] of the argument `name`'s dim `dim`, in its dtype"""
    value = _val(kwargs.get(name, args[position] if len(args) > position else None))
    return [value.shape[dim]], value.dtype


def _like(args, kwargs, name, position):
    value = _val(kwargs.get(name, args[position] if len(args) > position else None))
    return list(value.shape), value.dtype


def _normalized(args, kwargs):
    value = _val(args[1])
    return list(args[2]), value.dtype


# op -> result index -> (sizes, dtype) of that result from the node's args and kwargs
_MASKED_RESULTS = {
    "aten.convolution_backward": {
        0: lambda a, k: _like(a, k, "input", 1),
        1: lambda a, k: _like(a, k, "weight", 2),
        2: lambda a, k: _channels(a, k, "weight", 2, 0),
    },
    "aten.native_layer_norm_backward": {1: _normalized, 2: _normalized},
    # output_mask: no grad_input when the sampled image needs none (a spatial transformer
    # sampling its raw input), no grad_grid when the grid is fixed
    "aten.grid_sampler_2d_backward": {
        0: lambda a, k: _like(a, k, "input", 1),
        1: lambda a, k: _like(a, k, "grid", 2),
    },
    "aten.grid_sampler_3d_backward": {
        0: lambda a, k: _like(a, k, "input", 1),
        1: lambda a, k: _like(a, k, "grid", 2),
    },
    "aten.native_group_norm_backward": {
        0: lambda a, k: _like(a, k, "input", 1),
        1: lambda a, k: _channels(a, k, "input", 1, 1),
        2: lambda a, k: _channels(a, k, "input", 1, 1),
    },
}


def masked_result_vals(op_name: str, node: torch.fx.Node, vals: list) -> list:
    """`vals` (the node's example results) with each `None` replaced by an example tensor of the
    result's shape, or None when a `None` result is not one this table knows."""
    table = _MASKED_RESULTS.get(op_name, {})
    if any(v is None and k not in table for k, v in enumerate(vals)):
        return None
    mode = next(
        (v.fake_mode for v in vals if getattr(v, "fake_mode", None) is not None), None
    ) or next((_val(a).fake_mode for a in node.args if getattr(_val(a), "fake_mode", None)), None)
    filled = []
    for k, v in enumerate(vals):
        if v is None:
            sizes, dtype = table[k](node.args, node.kwargs)
            with mode if mode is not None else torch.device("meta"):
                v = torch.empty(sizes, dtype=dtype)
        filled.append(v)
    return filled
