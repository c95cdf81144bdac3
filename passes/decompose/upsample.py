"""Resampling -> core aten: `F.interpolate`'s upsample ops, grid sampling, pixel/channel shuffles.

Two bus stops per upsample op, as ATen itself dispatches them:

- `aten.upsample_*.vec` -> the default overload, with the output size (the op's result type, else
  `output_size`, else `floor(input * scale)` for an integral scale) and the per-dim scales
  (ATen's CompositeImplicitAutograd `.vec` kernels: `compute_output_size`, `get_scale_value`).
- the default overload -> `aten.index_select`, `aten.mul.Tensor`, `aten.add.Tensor` per spatial
  dim, with indices and weights computed as ATen's CPU kernels compute them
  (`upsample_index.py`). A given scale factor is what the kernel uses (`1 / scale`), not
  input / output size: they differ whenever `input * scale` is not an integer.

`upsample_nearest2d.vec` and `upsample_bilinear2d.vec` are core ops and stay; their default
overloads decompose here.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .common import dtype, to_dtype
from .registry import register_decomposition
from .upsample_aa import aa_taps
from .upsample_index import apply_taps, cubic_taps, linear_taps, nearest_index, opmath

SCALE_ARGS = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}

# op -> (spatial dims, method, its .vec overload to decompose, or None when core keeps it)
UPSAMPLE = {
    "aten.upsample_nearest1d": (1, "nearest", "aten.upsample_nearest1d.vec"),
    "aten.upsample_nearest2d": (2, "nearest", None),
    "aten.upsample_nearest3d": (3, "nearest", "aten.upsample_nearest3d.vec"),
    "aten._upsample_nearest_exact1d": (1, "nearest_exact", "aten._upsample_nearest_exact1d.vec"),
    "aten._upsample_nearest_exact2d": (2, "nearest_exact", "aten._upsample_nearest_exact2d.vec"),
    "aten._upsample_nearest_exact3d": (3, "nearest_exact", "aten._upsample_nearest_exact3d.vec"),
    "aten.upsample_linear1d": (1, "linear", "aten.upsample_linear1d.vec"),
    "aten.upsample_bilinear2d": (2, "linear", None),
    "aten.upsample_trilinear3d": (3, "linear", "aten.upsample_trilinear3d.vec"),
    "aten.upsample_bicubic2d": (2, "cubic", "aten.upsample_bicubic2d.vec"),
    "aten._upsample_bilinear2d_aa": (2, "linear_aa", "aten._upsample_bilinear2d_aa.vec"),
    "aten._upsample_bicubic2d_aa": (2, "cubic_aa", "aten._upsample_bicubic2d_aa.vec"),
}
HAS_ALIGN_CORNERS = ("linear", "cubic", "linear_aa", "cubic_aa")


def _output_sizes(op, rewriter, x: ir.Value, k: int, output_size, scale_factors):
    """The k output sizes of a `.vec` op: static ones from its result type; a `?` one from
    `output_size`, or the input size times an integral scale factor (None otherwise: a
    fractional scale of a runtime size needs float index arithmetic)."""
    result = ir.RankedTensorType(op.results[0].type)
    sizes = []
    for d in range(k):
        rd = result.rank - k + d
        if not result.is_dynamic_dim(rd):
            sizes.append(result.get_dim_size(rd))
        elif output_size is not None:
            sizes.append(output_size[d])
        elif float(scale_factors[d]).is_integer():
            in_size = rewriter.size(x, rd)
            sizes.append(rewriter.index_arith(arith.MulIOp, in_size, int(scale_factors[d])))
        else:
            return None
    return sizes


def _decompose_vec(target: str, op, rewriter):
    k, method, _ = UPSAMPLE[target]
    x, output_size, factors = (rewriter.args[n] for n in ("input", "output_size", "scale_factors"))
    sizes = _output_sizes(op, rewriter, x, k, output_size, factors)
    if sizes is None:
        return None
    kwargs = {name: (factors[d] if factors else None) for d, name in enumerate(SCALE_ARGS[k])}
    if method in HAS_ALIGN_CORNERS:
        kwargs["align_corners"] = rewriter.args["align_corners"]
    return rewriter.aten(target, x, sizes, results=[op.results[0].type], **kwargs)


def _dim_taps(rewriter, method: str, isz, osz, scale, align_corners: bool, opm):
    if method in ("nearest", "nearest_exact"):
        exact = method == "nearest_exact"
        return [(nearest_index(rewriter, isz, osz, scale, exact, opm), None)]
    if method == "linear":
        return linear_taps(rewriter, isz, osz, scale, align_corners, opm)
    if method == "cubic":
        return cubic_taps(rewriter, isz, osz, scale, align_corners, opm)
    if isz == osz:
        return None  # the separable antialiased kernel skips an unresized dim
    return aa_taps(rewriter, isz, osz, scale, align_corners, opm, method == "cubic_aa")


def _decompose_default(target: str, op, rewriter):
    k, method, _ = UPSAMPLE[target]
    x, sizes = rewriter.args["self"], rewriter.args["output_size"]
    scales = [rewriter.args[name] for name in SCALE_ARGS[k]]
    align_corners = bool(rewriter.args.get("align_corners", False))
    elem = dtype(x)
    opm = opmath(elem)
    if method.endswith("_aa") and not all(isinstance(s, int) for s in rewriter.sizes(x)[-k:]):
        return None  # the antialiasing window width depends on the sizes
    value = x if method.startswith("nearest") else to_dtype(rewriter, x, opm)
    rank = ir.RankedTensorType(x.type).rank
    for d in reversed(range(k)):
        dim = rank - k + d
        isz = rewriter.size(x, dim)
        taps = _dim_taps(rewriter, method, isz, sizes[d], scales[d], align_corners, opm)
        if taps is not None:
            value = apply_taps(rewriter, value, dim, taps)
    return to_dtype(rewriter, value, elem)


_TARGETS = {
    "nearest": "aten.index_select",
    "nearest_exact": "aten.index_select",
    "linear": "aten.index_select, aten.mul.Tensor, aten.add.Tensor",
    "cubic": "aten.index_select, aten.mul.Tensor, aten.add.Tensor",
    "linear_aa": "aten.index_select, aten.mul.Tensor, aten.where.self, aten.add.Tensor",
    "cubic_aa": "aten.index_select, aten.mul.Tensor, aten.where.self, aten.add.Tensor",
}


def _register(target: str) -> None:
    k, method, vec = UPSAMPLE[target]
    short = target.removeprefix("aten.").lstrip("_")
    if vec is not None:

        def decompose_vec(op, rewriter):
            return _decompose_vec(target, op, rewriter)

        decompose_vec.__name__ = f"decompose_{short}_vec"
        decompose_vec.__doc__ = (
            f"{vec} -> {target} (output size from the result type, scales per dim)"
        )
        register_decomposition(vec)(decompose_vec)

    def decompose_default(op, rewriter):
        return _decompose_default(target, op, rewriter)

    decompose_default.__name__ = f"decompose_{short}"
    decompose_default.__doc__ = (
        f"{target} -> aten.arange.start_step, aten.floor, aten.clamp, {_TARGETS[method]} "
        f"(ATen's CPU source indices and weights, {k} spatial dim(s), last dim first)"
    )
    register_decomposition(target)(decompose_default)


for _target in UPSAMPLE:
    _register(_target)
