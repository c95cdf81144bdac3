"""What an outlined parallel loop (`cpu-parallelize-loops`) reads from its function, and how each
value crosses: stored in the context struct on the caller's stack and loaded inside (index values
as i64, memrefs as their LLVM descriptors), cloned (constants), or rebuilt from a broadcast's
source (one i64 crosses instead of a `vector<32xindex>`).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, builtin, llvm

# Defined by an op with no operands that costs nothing to repeat: cloned, not passed.
_CLONED = frozenset(
    {"arith.constant", "vector.constant_mask", "ub.poison", "llvm.mlir.constant", "llvm.mlir.zero"}
)


def captures(loop: ir.Operation) -> tuple[list[ir.Value], list[ir.Operation]]:
    """Values the loop uses and does not define (its bounds included), each once, in the order
    of first use, and the loop with every op nested in it. One walk collects the ops; the
    values defined inside are their results and their blocks' arguments (not walking each
    operand's owner up to the loop: ops x depth, 58% of train_transformer's
    `cpu-parallelize-loops`)."""
    ops: list[ir.Operation] = []

    def visit(op):
        ops.append(op)
        return ir.WalkResult.ADVANCE

    loop.walk(visit, ir.WalkOrder.PRE_ORDER)
    defined: set = set()
    for op in ops:
        if op is not loop:
            defined.update(op.results)
        for region in op.regions:
            for block in region.blocks:
                defined.update(block.arguments)
    found, seen = [], set()
    for op in ops:
        for v in op.operands:
            if v not in defined and v not in seen:
                seen.add(v)
                found.append(v)
    return found, ops


def field_type(t: ir.Type) -> ir.Type | None:
    """How a captured value is stored in the context struct; None: cannot be."""
    if isinstance(t, ir.IndexType):
        return ir.IntegerType.get_signless(64)
    if isinstance(t, (ir.IntegerType, ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)):
        return t
    if isinstance(t, ir.VectorType) and t.rank != 1:
        return None  # an n-D vector is an LLVM array of vectors: llvm.store takes no such value
    if isinstance(t, ir.VectorType) and isinstance(t.element_type, ir.IndexType):
        i64 = ir.IntegerType.get_signless(64)
        return ir.VectorType.get(
            t.shape, i64, scalable=list(t.scalable_dims), loc=ir.Location.unknown()
        )
    if isinstance(t, ir.VectorType) and field_type(t.element_type) is not None:
        return t
    if isinstance(t, ir.MemRefType) and t.memory_space is None:
        rank = t.rank
        arrays = f", array<{rank} x i64>, array<{rank} x i64>" if rank else ""
        return ir.Type.parse(f"!llvm.struct<(ptr, ptr, i64{arrays})>")
    return None


def is_cloned(v: ir.Value) -> bool:
    owner = v.owner
    return not isinstance(owner, ir.Block) and owner.name in _CLONED and not len(owner.operands)


def rebuilt(v: ir.Value) -> ir.Value | None:
    """The scalar or 1-D vector `v` broadcasts, when `v` is rebuilt inside the outlined loop
    from it (one field of the source's size; an n-D result could not cross at all)."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "vector.broadcast":
        return None
    source = owner.operands[0]
    return source if field_type(source.type) is not None else None


def field(ctx, struct_t, k: int) -> ir.Value:
    ptr = ir.Type.parse("!llvm.ptr")
    indices = ir.DenseI32ArrayAttr.get([0, k])
    return llvm.getelementptr(ptr, ctx, [], indices, struct_t, ir.Attribute.parse("0 : i32"))


def _is_index(t: ir.Type) -> bool:
    """An index or a vector of index: crosses as i64 through `arith.index_cast`."""
    if isinstance(t, ir.VectorType):
        t = t.element_type
    return isinstance(t, ir.IndexType)


def store(value: ir.Value, field_t: ir.Type, address: ir.Value) -> None:
    if _is_index(value.type):
        value = arith.index_cast(field_t, value)
    elif field_t != value.type:
        value = builtin.unrealized_conversion_cast([field_t], [value])
    llvm.store(value, address)


def load(t: ir.Type, field_t: ir.Type, address: ir.Value) -> ir.Value:
    value = llvm.load(field_t, address)
    if _is_index(t):
        return arith.index_cast(t, value)
    return value if field_t == t else builtin.unrealized_conversion_cast([t], [value])
