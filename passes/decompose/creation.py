"""Tensor factories and aliases -> core aten (`full`, `full_like`, `clamp`, `div`/`sub`/`mul`).

The dtype a factory leaves open (`dtype=None`: the default dtype, or `self`'s for `new_*`) is
already resolved in the op's result type; the rewrite states it explicitly.
"""

from __future__ import annotations

from .common import dtype
from .registry import register_decomposition


def _factory_kwargs(rewriter) -> dict:
    return {k: rewriter.args.get(k) for k in ("layout", "device", "pin_memory")}


def _register_full(op_name: str, fill) -> None:
    """`ones`/`zeros`/`new_ones`/`new_zeros`/`new_full` -> `aten.full` of the op's result type."""

    def rule(op, rewriter):
        value = rewriter.args["fill_value"] if fill is None else fill
        return rewriter.aten(
            "aten.full",
            rewriter.args["size"],
            value,
            dtype=dtype(op.results[0]),
            results=[op.results[0].type],
            **_factory_kwargs(rewriter),
        )

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.")
    rule.__doc__ = f"{op_name} -> aten.full"
    register_decomposition(op_name)(rule)


def _register_full_like(op_name: str, fill) -> None:
    """`ones_like`/`zeros_like` -> `aten.full_like` with the op's result dtype."""

    def rule(op, rewriter):
        return rewriter.aten(
            "aten.full_like",
            rewriter.args["self"],
            fill,
            dtype=dtype(op.results[0]),
            memory_format=rewriter.args.get("memory_format"),
            **_factory_kwargs(rewriter),
        )

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.")
    rule.__doc__ = f"{op_name} -> aten.full_like"
    register_decomposition(op_name)(rule)


for _name, _fill in {
    "aten.ones": 1,
    "aten.zeros": 0,
    "aten.new_ones": 1,
    "aten.new_zeros": 0,
    "aten.new_full": None,
}.items():
    _register_full(_name, _fill)
for _name, _fill in {"aten.ones_like": 1, "aten.zeros_like": 0}.items():
    _register_full_like(_name, _fill)


@register_decomposition("aten.clamp_min")
def decompose_clamp_min(op, rewriter):
    """aten.clamp_min -> aten.clamp (no upper bound)"""
    return rewriter.aten("aten.clamp", rewriter.args["self"], rewriter.args["min"], None)


@register_decomposition("aten.clamp_max")
def decompose_clamp_max(op, rewriter):
    """aten.clamp_max -> aten.clamp (no lower bound)"""
    return rewriter.aten("aten.clamp", rewriter.args["self"], None, rewriter.args["max"])


@register_decomposition("aten.divide.Tensor")
def decompose_divide(op, rewriter):
    """aten.divide.Tensor -> aten.div.Tensor (an alias)"""
    return rewriter.aten("aten.div.Tensor", rewriter.args["self"], rewriter.args["other"])


@register_decomposition("aten.subtract.Tensor")
def decompose_subtract(op, rewriter):
    """aten.subtract.Tensor -> aten.sub.Tensor (an alias)"""
    a = rewriter.args
    return rewriter.aten("aten.sub.Tensor", a["self"], a["other"], alpha=a["alpha"])


@register_decomposition("aten.multiply.Tensor")
def decompose_multiply(op, rewriter):
    """aten.multiply.Tensor -> aten.mul.Tensor (an alias)"""
    return rewriter.aten("aten.mul.Tensor", rewriter.args["self"], rewriter.args["other"])
