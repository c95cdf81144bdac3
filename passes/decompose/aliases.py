"""Alias overloads -> the overload they name (`arccos -> acos`, `greater -> gt`, ...): same
schema arguments, same semantics, so each rule passes its arguments through by name."""

from __future__ import annotations

from .registry import register_decomposition

ALIASES = {
    "aten.absolute": "aten.abs",
    "aten.arccos": "aten.acos",
    "aten.arccosh": "aten.acosh",
    "aten.arcsin": "aten.asin",
    "aten.arcsinh": "aten.asinh",
    "aten.arctan": "aten.atan",
    "aten.arctan2": "aten.atan2",
    "aten.arctanh": "aten.atanh",
    "aten.clip": "aten.clamp",
    "aten.clip.Tensor": "aten.clamp.Tensor",
    "aten.concat": "aten.cat",
    "aten.concatenate": "aten.cat",
    "aten.divide.Scalar": "aten.div.Scalar",
    "aten.divide.Scalar_mode": "aten.div.Scalar_mode",
    "aten.divide.Tensor_mode": "aten.div.Tensor_mode",
    "aten.fix": "aten.trunc",
    "aten.ger": "aten.outer",
    "aten.greater.Scalar": "aten.gt.Scalar",
    "aten.greater.Tensor": "aten.gt.Tensor",
    "aten.greater_equal.Scalar": "aten.ge.Scalar",
    "aten.greater_equal.Tensor": "aten.ge.Tensor",
    "aten.less.Scalar": "aten.lt.Scalar",
    "aten.less.Tensor": "aten.lt.Tensor",
    "aten.less_equal.Scalar": "aten.le.Scalar",
    "aten.less_equal.Tensor": "aten.le.Tensor",
    "aten.linalg_matmul": "aten.matmul",
    "aten.multiply.Scalar": "aten.mul.Scalar",
    "aten.negative": "aten.neg",
    "aten.not_equal.Scalar": "aten.ne.Scalar",
    "aten.not_equal.Tensor": "aten.ne.Tensor",
    "aten.row_stack": "aten.vstack",
    "aten.subtract.Scalar": "aten.sub.Scalar",
}


def _register_alias(op_name: str, target: str) -> None:
    def rule(op, rewriter):
        return rewriter.aten(target, results=[op.results[0].type], **rewriter.args)

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = f"{op_name} -> {target} (an alias)"
    register_decomposition(op_name)(rule)


for _name, _target in ALIASES.items():
    _register_alias(_name, _target)
