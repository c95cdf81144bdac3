"""Dims that export names with one symbol read as one size.

`torch.export` gives every dynamic input dim a size expression (`s0`, `s1`, ...); dims with the
same bare symbol are equal at every call, because the call guards check it before running
(`backends/guards.py`, as `ep.module()` does). The import records the names on `@main`'s
arguments (`aten.sizes = ["s0", "3", "s1", "4"]`), but the lowering reads each size as a
`tensor.dim` of its own argument: `q @ k.T` with a dynamic batch on q and k unfolds its batch
with `tensor.dim %q, 0` and folds k's with `tensor.dim %k, 0`, and nothing can prove them equal,
so `aten-split-dynamic-expands` had to gather one operand (a copy read at computed indices,
which no product kernel takes).

`unify_symbolic_dims` gives each symbol one SSA size (a `tensor.dim` of the first argument dim
named by it, at the top of `@main`) and folds the `arith.maxsi` / `arith.minsi` of two equal
sizes that broadcasting left (`aten.einsum`'s batch). Only bare symbols are unified: a derived
size (`2*s0`) is checked only when its symbols are bound elsewhere, so its text proves nothing.
"""

from __future__ import annotations

import re

from mlir import ir
from mlir.dialects import arith, tensor

from ..ir import walked_ops

_SYMBOL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def named_sizes(fn: ir.Operation) -> dict[tuple[int, int], str]:
    """(argument, dim) -> the export symbol naming that dim, for `fn`'s bare-symbol dims."""
    if "arg_attrs" not in fn.attributes:
        return {}
    names = {}
    for k, attrs in enumerate(ir.ArrayAttr(fn.attributes["arg_attrs"])):
        attrs = ir.DictAttr(attrs)
        if "aten.sizes" not in attrs:
            continue
        for d, text in enumerate(ir.ArrayAttr(attrs["aten.sizes"])):
            text = ir.StringAttr(text).value
            if _SYMBOL.match(text):
                names[(k, d)] = text
    return names


def first_named(arg: ir.Value, d: int) -> tuple[ir.Value, int]:
    """The first argument dim of `arg`'s function named by the same symbol as dim `d` of `arg`
    (an argument of a function's entry block), else `(arg, d)`: one key per size."""
    block = arg.owner
    fn = block.owner.operation
    if fn.name != "func.func" or block != fn.regions[0].blocks[0]:
        return arg, d
    names = named_sizes(fn)
    symbol = names.get((ir.BlockArgument(arg).arg_number, d))
    if symbol is None:
        return arg, d
    k, d = next(key for key, s in names.items() if s == symbol)
    return block.arguments[k], d


def unify_symbolic_dims(module_op: ir.Operation) -> None:
    for fn in module_op.regions[0].blocks[0].operations:
        if fn.operation.name == "func.func" and len(fn.operation.regions[0].blocks):
            _unify(fn.operation)


def _unify(fn: ir.Operation) -> None:
    names = named_sizes(fn)
    if len(set(names.values())) == len(names):
        return  # no symbol names two dims
    entry = fn.regions[0].blocks[0]
    by_symbol: dict[str, list] = {}
    for op in walked_ops(fn):
        key = _arg_dim(op, entry)
        if key in names:
            by_symbol.setdefault(names[key], []).append(op)
    first = {}
    for key, symbol in names.items():
        first.setdefault(symbol, key)
    for symbol, dims in by_symbol.items():
        if len({_arg_dim(op, entry) for op in dims}) < 2:
            continue  # one argument dim: already one value after cse
        k, d = first[symbol]
        with ir.InsertionPoint.at_block_begin(entry), fn.location:
            at = arith.ConstantOp(ir.IndexType.get(), d).result
            size = tensor.DimOp(entry.arguments[k], at).result
        for op in dims:
            op.results[0].replace_all_uses_with(size)
            op.erase()
    _fold_equal_extrema(fn)


def _arg_dim(op: ir.Operation, entry: ir.Block) -> tuple[int, int] | None:
    """(argument, dim) a `tensor.dim` of an argument of `entry` reads at a constant dim."""
    if op.name != "tensor.dim":
        return None
    source, at = op.operands
    if not isinstance(source.owner, ir.Block) or source.owner != entry:
        return None
    owner = at.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    return ir.BlockArgument(source).arg_number, ir.IntegerAttr(owner.attributes["value"]).value


def _fold_equal_extrema(fn: ir.Operation) -> None:
    """`max(s, s)` and `min(s, s)` -> `s` (the broadcast of two dims now one size)."""
    for op in walked_ops(fn):
        if op.name in ("arith.maxsi", "arith.minsi") and op.operands[0] == op.operands[1]:
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()
