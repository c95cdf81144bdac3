"""What values an index tensor can hold, read from the FX graph: the op chain back to where
they come from (a user input checked before the call, an `arange` whose bounds prove them in
range). Used by `index_checks.py` to check each index once, where it is cheapest."""

from __future__ import annotations

import math

import torch
from mlir import ir


def meta_value(node):
    return node.meta.get("val") if isinstance(node, torch.fx.Node) else None


def integral(node) -> bool:
    """Holds an index: an integer tensor (not bool or uint8, which are masks)."""
    v = meta_value(node)
    return (
        isinstance(v, torch.Tensor)
        and not v.is_floating_point()
        and not v.is_complex()
        and v.dtype not in (torch.bool, torch.uint8)
    )


def i1():
    return ir.IntegerType.get_signless(1)


def size_text(d) -> str:
    return str(d.node.expr) if isinstance(d, torch.SymInt) else str(int(d))


# ops whose result holds the values of their first argument, every one of them (so checking
# the argument checks the result, and no more), and ops whose result holds some of them
_SAME_VALUES = {
    f"aten.{name}"
    for name in (
        "view.default _unsafe_view.default reshape.default unsqueeze.default squeeze.dim "
        "squeeze.dims squeeze.default expand.default permute.default t.default transpose.int "
        "clone.default alias.default contiguous.default lift_fresh_copy.default "
        "flatten.using_ints"
    ).split()
}
_SOME_VALUES = {"aten.slice.Tensor", "aten.select.int", "aten.narrow.default"}
_ADD = {"aten.add.Tensor", "aten.add.Scalar"}
_ARANGE = {"aten.arange.default", "aten.arange.start", "aten.arange.start_step"}


def source_of(index, subsets: bool):
    """Where `index`'s values come from, through ops that only move them (and, with `subsets`,
    ops that keep some of them); a widening integer copy keeps every value too."""
    while isinstance(index, torch.fx.Node) and index.op == "call_function":
        name = str(index.target)
        same = name in _SAME_VALUES or (subsets and name in _SOME_VALUES)
        if not (same or _widening_copy(index)):
            break
        index = index.args[0]
    return index


def _widening_copy(node) -> bool:
    if str(node.target) != "aten._to_copy.default" or not node.args:
        return False
    a, b = meta_value(node.args[0]), meta_value(node)
    integral = (torch.int8, torch.int16, torch.int32, torch.int64)
    return (
        isinstance(a, torch.Tensor)
        and isinstance(b, torch.Tensor)
        and a.dtype in integral
        and b.dtype in integral
        and b.itemsize >= a.itemsize
    )


def in_range(index, size) -> bool:
    """True when `index`'s values are provably in [0, size): some of an `arange(start, end)`
    plus a constant c, with 0 <= start + c and end + c <= size (or end equal to size's symbol
    and c = 0)."""
    shift = 0
    root = source_of(index, subsets=True)
    while isinstance(root, torch.fx.Node) and str(root.target) in _ADD:
        other = root.args[1] if len(root.args) > 1 else None
        if not isinstance(other, int) or root.kwargs.get("alpha", 1) != 1:
            return False
        shift, root = shift + other, source_of(root.args[0], subsets=True)
    if not isinstance(root, torch.fx.Node) or str(root.target) not in _ARANGE:
        return False
    args = list(root.args)
    start, end, step = (0, args[0], 1) if len(args) == 1 else (args + [1])[:3]
    start, end, step = (
        meta_value(v) if isinstance(v, torch.fx.Node) else v for v in (start, end, step)
    )
    if not (isinstance(step, int) and step > 0 and isinstance(start, int) and start + shift >= 0):
        return False
    if isinstance(end, int) and isinstance(size, int):
        return end + shift <= size
    if isinstance(end, torch.SymInt) and isinstance(size, int):  # a Dim's max bounds it
        upper = _upper(end)
        return upper is not None and upper + shift <= size
    same = isinstance(end, torch.SymInt) and isinstance(size, torch.SymInt) and shift == 0
    return same and size_text(end) == size_text(size)


def _upper(v: torch.SymInt) -> int | None:
    """The largest value the tracer allows `v` (a `Dim`'s max), or None when unbounded."""
    try:
        upper = v.node.shape_env.bound_sympy(v.node.expr).upper
        return None if math.isinf(float(upper)) else int(upper)
    except (AttributeError, TypeError, ValueError, OverflowError):
        return None
