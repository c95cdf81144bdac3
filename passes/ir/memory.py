"""Which ops touch memory: memref views (their result aliases an operand's buffer) and pure
ops (a value from the operands only). One base set each; a pass that may treat more ops as
pure extends `PURE_PREFIXES` in its own module and says why there."""

from __future__ import annotations

from mlir import ir

# memref ops whose result views (aliases) the memory of operand 0 (for extract_strided_metadata:
# result 0, the base buffer).
MEMREF_VIEWS = frozenset(
    {
        "memref.subview",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.view",
        "memref.transpose",
        "memref.extract_strided_metadata",
    }
)
# The views and `memref.assume_alignment`, whose result is its operand (same buffer, an alignment
# promise). The CPU passes count it among the pure ops, not the views; the Triton kernel writer
# follows it to the buffer like a cast.
MEMREF_ALIASES = MEMREF_VIEWS | {"memref.assume_alignment"}


def view_root(value: ir.Value, views: frozenset = MEMREF_VIEWS) -> ir.Value:
    """The buffer `value` is a view of (itself when it is no view): follows operand 0 of the
    ops named in `views`."""
    while not isinstance(value.owner, ir.Block) and value.owner.name in views:
        value = value.owner.operands[0]
    return value


# Name prefixes of ops that compute a value from their operands only: no memory, no side
# effects, nothing but the operands' values to respect when moving or cloning them.
PURE_PREFIXES = ("arith.", "math.", "index.", "affine.apply")


def is_pure(op: ir.Operation) -> bool:
    """`op` computes a value from its operands only: no memory, no side effects."""
    return op.name.startswith(PURE_PREFIXES)


def constant_int(v: ir.Value) -> int | None:
    """The integer an `arith.constant` defines `v` as; None for anything else."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    value = owner.attributes["value"]
    return ir.IntegerAttr(value).value if isinstance(value, ir.IntegerAttr) else None


def touches_no_memory(op: ir.Operation) -> bool:
    """An op that neither reads nor writes memory a buffer could alias: pure ops, views, `dim`s
    and fresh allocations. What may sit between a fill and the product that overwrites or
    stages its target without the fill's value being seen or changed."""
    name = op.name
    return (
        name.startswith(PURE_PREFIXES)
        or name in MEMREF_VIEWS
        or name in ("memref.alloc", "memref.alloca", "memref.dim")
    )
