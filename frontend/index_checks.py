"""Indices a call reads from tensor data, checked as eager checks them.

Compiled code keeps every data-dependent access inside its buffer (the lowerings clamp), so an
index out of range would be a silently wrong answer where eager raises. Two checks make it an
error instead:

- an index tensor that is a user input is checked before the call (`INDEXING`, read by
  `arguments.index_bounds`; `backends/guards.py` runs it): the message names the bad value;
- every other index (computed in the program, a buffer, a target of `nll_loss`, the offsets of
  an `embedding_bag`, ...) gets a flag computed in the program itself, next to the op: `true`
  when some index is out of range. The flags are returned stacked as one extra result of role
  `index_check`, whose name lists one message per flag; the runtime raises `IndexError` with
  the first set flag's message after the call, before anything is written back.
"""

from __future__ import annotations

import ctypes
import json

import torch
from mlir import ir
from mlir.dialects import arith
from torch.export.graph_signature import InputKind

from aten_mlir.dialects.ops import build_aten

from .index_ranges import i1, in_range, integral, meta_value, size_text, source_of
from .locations import describe_node
from .op_index_checks import EMBEDDING_BAGS, OWN_CHECKS
from .symbolic import as_index, import_sym_size

# op -> (index argument, indexed argument, dim: an int, or (name, position) of its argument,
# negative indices wrap)
INDEXING = {
    "aten.embedding.default": (1, 0, 0, False),
    "aten.index_select.default": (2, 0, ("dim", 1), False),
    "aten.gather.default": (2, 0, ("dim", 1), False),
    "aten.scatter.src": (2, 0, ("dim", 1), False),
    "aten.scatter.value": (2, 0, ("dim", 1), False),
    "aten.scatter.reduce": (2, 0, ("dim", 1), False),
    "aten.scatter.value_reduce": (2, 0, ("dim", 1), False),
    "aten.scatter_add.default": (2, 0, ("dim", 1), False),
    "aten.scatter_reduce.two": (2, 0, ("dim", 1), False),
    "aten.index_add.default": (2, 0, ("dim", 1), False),
    "aten.index_copy.default": (2, 0, ("dim", 1), False),
    "aten.index_fill.int_Scalar": (2, 0, ("dim", 1), True),
}
# checked in the program only (their index is never checked before the call)
_IN_PROGRAM = {
    "aten.index_reduce.default": (2, 0, ("dim", 1), False),
    **{t: (1, 0, 0, False) for t in EMBEDDING_BAGS},
}
_LISTS = ("aten.index.Tensor", "aten.index_put.default", "aten.index_put_.default")


def indexed(node: torch.fx.Node, table: dict = INDEXING) -> list:
    """(index node, indexed node, dim, wraps) for each index tensor `node` reads."""
    name = str(node.target)
    args = list(node.args) + [None] * 4
    if name in _LISTS:  # indices[k] indexes dim k
        return [(i, args[0], k, True) for k, i in enumerate(args[1] or []) if i is not None]
    if name not in table:
        return []
    index, source, dim, wraps = table[name]
    if isinstance(dim, tuple):
        dim = node.kwargs.get(dim[0], args[dim[1]])
    return [(args[index], args[source], dim, wraps)] if isinstance(dim, int) else []


def pre_call_bounds(ep: torch.export.ExportedProgram, user: list) -> list:
    """[index input, dim size as text, negative ones wrap, the op and where] per user input an
    `INDEXING` op reads as indices into a dim whose size the call guards know (a constant, or
    the size of a dim of some input): checked before the call, naming the bad value."""
    return [bound for _, _, bound in _pre_call(ep, user)]


def checked_before_call(ep: torch.export.ExportedProgram):
    """(op node, index node) -> True when `pre_call_bounds` checks that index of that op."""
    names = {s.arg.name for s in ep.graph_signature.input_specs if s.kind is InputKind.USER_INPUT}
    user = [n for n in ep.graph.nodes if n.op == "placeholder" and n.name in names]
    covered = {(node, index) for node, index, _ in _pre_call(ep, user)}
    return lambda node, index: (node, index) in covered


def _pre_call(ep, user: list):
    position = {node: k for k, node in enumerate(user)}
    known = {
        size_text(d)
        for n in user
        if isinstance(meta_value(n), torch.Tensor)
        for d in meta_value(n).shape
    }
    for node in ep.graph.nodes:
        if node.op != "call_function":
            continue
        for index, source, dim, wraps in indexed(node):
            val, root = meta_value(source), source_of(index, subsets=False)
            if root in position and isinstance(val, torch.Tensor) and val.dim():
                size = size_text(val.shape[dim % val.dim()])
                if size.lstrip("-").isdigit() or size in known:
                    where = f"'{node.target}' at {describe_node(node)}"
                    yield node, index, [position[root], size, wraps, where]


class InProgramChecks:
    """Builds the flags of the ops `checked_before_call` does not cover, as they import."""

    def __init__(self, values: dict, checked_before_call):
        self.values = values  # FX node -> its imported value(s)
        self.checked = checked_before_call  # (op node, index node) -> True when checked already
        self.flags: list[tuple[ir.Value, str]] = []

    def after(self, node: torch.fx.Node) -> None:
        """Flags for `node` (just imported, at its location)."""
        where = f"'{node.target}' at {describe_node(node)}"
        for index, source, dim, wraps in indexed(node) + indexed(node, _IN_PROGRAM):
            if not integral(index) or self.checked(node, index):
                continue
            sv = meta_value(source)
            if not isinstance(sv, torch.Tensor) or not sv.dim():
                continue
            dim %= sv.dim()
            size = sv.shape[dim]
            if in_range(index, size):
                continue
            n = self.size(source, dim, size)
            bad = self.out_of(index, n, wraps)
            self.add(
                self.any_of(bad),
                f"an index in '{index.name}' is out of range for dim {dim} (size "
                f"{size_text(size)}) of '{source.name}' in {where}",
            )
        check = OWN_CHECKS.get(str(node.target))
        if check is not None:
            check[0](self, node, where, *check[1:])

    def result(self):
        """(the stacked flags, the messages as text) or None without flags."""
        if not self.flags:
            return None
        flags = [f for f, _ in self.flags]
        stacked = build_aten(
            "aten.stack",
            flags,
            0,
            results=[ir.RankedTensorType.get([len(flags)], i1())],
        ).result
        return stacked, json.dumps([m for _, m in self.flags])

    # --- building blocks

    def size(self, source, dim, size):
        if isinstance(size, torch.SymInt):
            return import_sym_size(self.values[source], dim)
        return int(size)

    def out_of(self, index, n, wraps):
        """index >= n or index < (-n if wraps else 0), elementwise"""
        low = 0
        if wraps:
            low = -n if isinstance(n, int) else arith.SubIOp(as_index(0), n).result
        high = self.bool_op("aten.ge.Scalar", index, n, like=index)
        under = self.bool_op("aten.lt.Scalar", index, low, like=index)
        return self.bool_op("aten.logical_or", high, under, like=index)

    def slice_of(self, node, start, end) -> ir.Value:
        """`node[start:end]` along dim 0 of a 1-d tensor (`end` may be negative)."""
        t = ir.RankedTensorType(self.values[node].type)
        n = t.shape[0]
        if t.is_dynamic_dim(0):
            size = ir.ShapedType.get_dynamic_size()
        else:
            size = len(range(n)[start:end])
        result = ir.RankedTensorType.get([size], t.element_type)
        return build_aten(
            "aten.slice.Tensor", self.values[node], 0, start, end, 1, results=[result]
        ).result

    def bool_op(self, op, a, b, like):
        a = self.values[a] if isinstance(a, torch.fx.Node) else a
        b = self.values[b] if isinstance(b, torch.fx.Node) else b
        like = self.values[like] if isinstance(like, torch.fx.Node) else like
        shape = ir.RankedTensorType(like.type).shape
        return build_aten(op, a, b, results=[ir.RankedTensorType.get(shape, i1())]).result

    def any_of(self, bad):
        return build_aten("aten.any", bad, results=[ir.RankedTensorType.get([], i1())]).result

    def add(self, flag, message):
        self.flags.append((flag, message))

    def add_any(self, bad, message):
        """A flag set when any element of `bad` is."""
        self.add(self.any_of(bad), message)


def raise_if_flagged(flags, messages: str) -> None:
    """Raises `IndexError` with the first set flag's message. `flags` is their bytes (from a
    native call) or a bool tensor; its bytes are read directly (1 us a call, where
    `flags.numpy().any()` took 4.4)."""
    if isinstance(flags, bytes):
        raw = flags
    else:
        flags = flags.contiguous()
        raw = ctypes.string_at(flags.data_ptr(), flags.numel() * flags.element_size())
    if raw.count(0) != len(raw):
        k = next(k for k, b in enumerate(raw) if b)
        raise IndexError(json.loads(messages)[k])
