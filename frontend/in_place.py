"""In-place ops on fresh temporaries, imported as their functional twins: `t = a + b; t.add_(c)`
(T5's relative position buckets) is `add(t, c)`, since nothing else can see `t` change. Any
other in-place op is left to torch's functionalization (`run_decompositions`)."""

from __future__ import annotations

import torch


def out_of_place(node: torch.fx.Node) -> torch._ops.OpOverload | None:
    """The functional twin of an in-place op on a fresh temporary nothing else reads, else None:
    `t = a + b; t.add_(c)` (T5's relative position buckets) is `add(t, c)`, since no one can see
    `t` change. Same dtypes only: the in-place op casts back to `self`'s, the twin would not."""
    twin = _twin(node.target)
    if twin is None or not _writes_a_fresh_temporary(node):
        return None
    tensors = [node.args[0], node, *node.args[1:], *node.kwargs.values()]
    vals = [a.meta.get("val") for a in tensors if isinstance(a, torch.fx.Node)]
    if not all(isinstance(v, torch.Tensor) and v.dtype == vals[0].dtype for v in vals):
        return None
    return twin if _same_result_dtype(twin, node) else None


def _same_result_dtype(twin, node: torch.fx.Node) -> bool:
    """Whether the twin's result has `self`'s dtype, as the in-place op's has: a comparison's
    twin (`x.greater_(y)` on floats -> `greater`) gives bools. Asked of the twin itself on the
    node's fake values, so every op's own promotion rule answers."""
    val = node.meta.get("val")
    mode = getattr(val, "fake_mode", None)
    if mode is None:
        return False
    args, kwargs = torch.fx.node.map_arg((node.args, node.kwargs), lambda a: a.meta.get("val"))
    try:
        with mode:
            out = twin(*args, **kwargs)
    except Exception:  # the twin refuses these values: leave the op to torch's functionalization
        return False
    return isinstance(out, torch.Tensor) and out.dtype == val.dtype


def _twin(overload) -> torch._ops.OpOverload | None:
    """`aten.add.Tensor` for `aten.add_.Tensor`: the op that only writes `self`, made pure."""
    schema = overload._schema
    written = [a.name for a in schema.arguments if a.alias_info and a.alias_info.is_write]
    namespace, name = schema.name.split("::", 1)
    if namespace != "aten" or written != ["self"] or not name.endswith("_") or name.endswith("__"):
        return None
    twin = getattr(getattr(torch.ops.aten, name[:-1], None), overload._overloadname, None)
    if twin is None or twin._schema.is_mutable:
        return None
    same_args = [a.name for a in twin._schema.arguments] == [a.name for a in schema.arguments]
    return twin if same_args else None


def _writes_a_fresh_temporary(node: torch.fx.Node) -> bool:
    """Whether `self` of the in-place `node` is only read by it and is no view or input: made
    by a pure op that returns new memory (maybe through a chain of such in-place ops)."""
    fresh = node.args[0] if node.args else None
    while True:  # a loop, not recursion: a long chain of in-place ops must not overflow
        if not isinstance(fresh, torch.fx.Node) or fresh.op != "call_function":
            return False
        schema = getattr(fresh.target, "_schema", None)
        if len(fresh.users) != 1 or schema is None:
            return False
        if not schema.is_mutable:
            return not any(r.alias_info for r in schema.returns)  # a view writes what it views
        if _twin(fresh.target) is None:
            return False
        fresh = fresh.args[0]
