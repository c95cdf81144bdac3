"""The elementwise op that reads a bf16 product's f32 accumulator, applied by the AMX kernel
(`amx`) to each block's rows on their way out of the tiles.

A bf16 product bufferizes to a zero-filled f32 C and a `linalg.generic` reading only C and
writing a fresh D: a rounding to bf16 (`torch.mm`), or a rounding, a scale and a rounding
again (attention's `q @ k^T * scale`). When C is used by nothing else, the kernel computes the
generic's body on 16 lanes of each result row and stores the rows into D: C (attention at
[2, 8, 256, 256]: 4 MiB of f32 a call, fresh pages from malloc each time) and the pass over it
never exist. C may be a view (`memref.expand_shape`) of its allocation: batched products
(`bmm` over batch x heads) bufferize that way.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import vector

# body ops applied lane by lane: each takes and gives values of one shape
_ELEMENTWISE = frozenset(
    (
        "arith.truncf",
        "arith.extf",
        "arith.addf",
        "arith.subf",
        "arith.mulf",
        "arith.divf",
        "arith.maximumf",
        "arith.minimumf",
        "arith.negf",
    )
)
_VIEWS = ("memref.expand_shape", "memref.collapse_shape")


class Epilogue:
    """The generic `g` (C -> D, identity maps) and D; `apply` builds its body on a row."""

    def __init__(self, g: ir.Operation, d: ir.Value):
        self.generic, self.d = g, d

    def apply(self, row: ir.Value) -> ir.Value:
        """The body on `row` (vector<N x f32> of C) -> vector<N x D's element type>."""
        block = self.generic.regions[0].blocks[0]
        lanes = ir.VectorType(row.type).shape
        values = {block.arguments[0]: row}
        for o in block.operations:
            o = o.operation
            if o.name == "linalg.yield":
                return values[o.operands[0]]
            operands = [values[v] if v in values else _splat(v, lanes) for v in o.operands]
            t = ir.VectorType.get(lanes, o.results[0].type)
            attributes = {name: o.attributes[name] for name in o.attributes}
            new = ir.Operation.create(o.name, results=[t], operands=operands, attributes=attributes)
            values[o.results[0]] = new.result
        raise AssertionError("a linalg.generic body ends with linalg.yield")


def _splat(v: ir.Value, lanes) -> ir.Value:
    return vector.broadcast(ir.VectorType.get(lanes, v.type), v)


def epilogue(c, kernel_block) -> Epilogue | None:
    """The `linalg.generic` that only maps C (a fresh f32 buffer, or a view of one, used by
    nothing else but its fill and dealloc) elementwise into a fresh D of the same shape, with
    nothing touching D between the product and it. None when the kernel is not emitted in the
    product's block (another kernel's branch also writes C)."""
    op = c.op.operation
    if kernel_block != op.block or not _fresh(c.c):
        return None
    users = [u.owner.operation for u in c.c.uses if u.owner.operation != op]
    generics = [u for u in users if u.name == "linalg.generic"]
    others = [u for u in users if u.name not in ("linalg.fill", "memref.dealloc", "linalg.generic")]
    if len(generics) != 1 or others:
        return None
    g = generics[0]
    if g.block != op.block or len(g.operands) != 2 or g.operands[0] != c.c or not _maps_rows(g):
        return None
    d = g.operands[1]
    d_alloc = d.owner
    if isinstance(d_alloc, ir.Block) or d_alloc.name != "memref.alloc":
        return None
    if not all(_defined_before(v, op) for v in d_alloc.operands):
        return None  # D's `?` sizes: the alloc moves above the product
    if ir.MemRefType(d.type).shape != ir.MemRefType(c.c.type).shape:
        return None
    # nothing between the product and the generic uses D (it is fresh, filled by the generic)
    between = False
    for o in op.block.operations:
        o = o.operation
        if o == op:
            between = True
        elif o == g:
            return Epilogue(g, d)
        elif between and any(v == d for v in o.operands):
            return None
    return None


def _defined_before(v: ir.Value, op: ir.Operation) -> bool:
    """`v` is available at `op`: a block argument, or made above it."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return True
    for o in op.block.operations:
        if o.operation == op:
            return False
        if o.operation == owner:
            return True
    return True  # made in an enclosing block


def _fresh(v: ir.Value) -> bool:
    """`v` is a `memref.alloc`, or the one view of one (its only other user a dealloc)."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return False
    if owner.name in _VIEWS:
        source = owner.operands[0]
        others = [u.owner.operation for u in source.uses if u.owner.operation != owner]
        if any(o.name != "memref.dealloc" for o in others):
            return False
        owner = source.owner
        if isinstance(owner, ir.Block):
            return False
    return owner.name == "memref.alloc"


def _maps_rows(g: ir.Operation) -> bool:
    """`g` is out = f(in) with identity maps, all dims parallel, f made of lane-wise float ops
    on `in` and on scalars defined outside the generic; `out` unread."""
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(g.attributes["indexing_maps"])]
    if not all(m == ir.AffineMap.get_identity(m.n_dims) for m in maps):
        return False
    block = g.regions[0].blocks[0]
    if not isinstance(block.arguments[0].type, ir.F32Type) or any(
        True for _ in block.arguments[1].uses
    ):
        return False
    inside = {block.arguments[0]}
    ops = [o.operation for o in block.operations]
    for o in ops[:-1]:
        if o.name not in _ELEMENTWISE or len(o.results) != 1:
            return False
        # the body has no regions: a value not made in it (nor `out`) comes from above
        if not all(v in inside or _float_scalar(v) for v in o.operands):
            return False
        inside.add(o.results[0])
    return ops[-1].name == "linalg.yield" and ops[-1].operands[0] in inside


def _float_scalar(v: ir.Value) -> bool:
    return isinstance(v.type, (ir.F32Type, ir.BF16Type, ir.F16Type))
