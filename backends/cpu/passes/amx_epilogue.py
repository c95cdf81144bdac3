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
from mlir.dialects import arith, memref, vector

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
        # lowered on vectors as in vectorized generics (cpu-accurate-math, math-to-llvm)
        "math.erf",
        "math.exp",
        "math.tanh",
    )
)
_VIEWS = ("memref.expand_shape", "memref.collapse_shape")
_SHORT = 12
_WRITES_NOTHING = ("memref.alloc", "memref.dim", "arith.", *_VIEWS)


class Epilogue:
    """The generic `g` (C and inputs read along C's dims -> D, identity maps for C and D) and
    D; `apply` builds its body on a row."""

    def __init__(self, g: ir.Operation, d: ir.Value, c_at: int):
        self.generic, self.d, self.c_at = g, d, c_at
        ops = [o.operation.name for o in g.regions[0].blocks[0].operations]
        # more than a rounding, a scale, a bias: a loop over the rows, not 16 copies
        self.long = len(ops) > _SHORT or any(n.startswith("math.") for n in ops)

    def apply(self, row: ir.Value, indices: list, mask: ir.Value | None) -> ir.Value:
        """The body on `row` (vector<N x f32> of C at `indices`, lanes along C's last dim;
        `mask`: the lanes inside C) -> vector<N x D's element type>. The other inputs are
        loaded at the same place: N lanes when they run along C's last dim, else one value
        broadcast."""
        g = self.generic
        block = g.regions[0].blocks[0]
        lanes = ir.VectorType(row.type).shape
        values = {block.arguments[self.c_at]: row}
        maps = _maps(g)
        for i, operand in enumerate(list(g.operands)[: len(maps) - 1]):
            if i != self.c_at:
                values[block.arguments[i]] = _load(operand, maps[i], indices, lanes, mask)
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


def _maps(g: ir.Operation) -> list:
    return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(g.attributes["indexing_maps"])]


def _dims(m) -> list[int]:
    return [ir.AffineDimExpr(r).position for r in m.results]


def _load(memref_value, m, indices, lanes, mask) -> ir.Value:
    at = [indices[d] for d in _dims(m)]
    element = ir.MemRefType(memref_value.type).element_type
    if _dims(m) and _dims(m)[-1] == m.n_dims - 1:  # along C's last dim: lanes
        t = ir.VectorType.get(lanes, element)
        if mask is None:
            return vector.load(t, memref_value, at)
        zero = arith.constant(element, 0.0)
        return vector.maskedload(t, memref_value, at, mask, _splat(zero, lanes))
    return _splat(memref.load(memref_value, at), lanes)


def _splat(v: ir.Value, lanes) -> ir.Value:
    return vector.broadcast(ir.VectorType.get(lanes, v.type), v)


def epilogue(c, kernel_block) -> Epilogue | None:
    """The `linalg.generic` that maps C (an f32 buffer, or the one view of one, read by
    nothing else before it is filled again or freed) elementwise into D, an allocation of the
    same shape, with nothing touching D between the product and it. None when the kernel is
    not emitted in the product's block (another kernel's branch also writes C)."""
    op = c.op.operation
    if kernel_block != op.block or not _fresh(c.c):
        return None
    g = _only_reader(op, c.c)
    if g is None or not _maps_rows(g, c.c):
        return None
    d = g.operands[len(g.operands) - 1]
    inputs = list(g.operands)[:-1]
    c_at = inputs.index(c.c)
    if not all(_defined_before(v, op) for v in inputs if v != c.c):
        return None
    d_alloc = d.owner
    if isinstance(d_alloc, ir.Block) or d_alloc.name != "memref.alloc":
        return None
    if not all(_defined_before(v, op) for v in d_alloc.operands):
        return None  # D's `?` sizes: the alloc moves above the product
    if ir.MemRefType(d.type).shape != ir.MemRefType(c.c.type).shape:
        return None
    return Epilogue(g, d, c_at) if _nothing_between(op, g, d, len(inputs) > 1) else None


def _nothing_between(op: ir.Operation, g: ir.Operation, d: ir.Value, inputs: bool) -> bool:
    """Nothing between the product and the generic uses D (it is fresh, filled by the
    generic); with other inputs, which the kernel reads at the product, nothing writes."""
    between = False
    for o in op.block.operations:
        o = o.operation
        if o == op:
            between = True
        elif o == g:
            return True
        elif between and any(v == d for v in o.operands):
            return False
        elif between and inputs and not o.name.startswith(_WRITES_NOTHING):
            return False
    return False


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


def _only_reader(op: ir.Operation, c: ir.Value) -> ir.Operation | None:
    """The generic that touches C (or its allocation) first after the product `op`, when
    the next op touching it after that overwrites it whole (a `linalg.fill`: a later
    product reusing the buffer) or frees it: C's value from `op` is read there only."""
    buffers = {c, _root(c)}
    touching = [
        o.operation for o in op.block.operations if any(v in buffers for v in o.operation.operands)
    ]
    after = touching[touching.index(op) + 1 :]
    if not after or after[0].name != "linalg.generic" or list(after[0].operands)[-1] in buffers:
        return None
    if len(after) > 1 and after[1].name not in ("linalg.fill", "memref.dealloc"):
        return None
    return after[0]


def _root(v: ir.Value) -> ir.Value:
    owner = v.owner
    return v if isinstance(owner, ir.Block) or owner.name not in _VIEWS else owner.operands[0]


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


def _maps_rows(g: ir.Operation, c: ir.Value) -> bool:
    """`g` is out = f(C, inputs) with identity maps for C and out, all dims parallel, C read
    once, each other input a memref read along a subsequence of the dims (a bias: the last),
    unit stride when that includes the last; f made of lane-wise float ops on them and on
    scalars defined outside the generic; `out` unread."""
    maps = _maps(g)
    operands = list(g.operands)
    if len(operands) != len(maps) or operands.count(c) != 1 or operands[-1] == c:
        return False
    identity = ir.AffineMap.get_identity(maps[0].n_dims)
    c_at = operands.index(c)
    if maps[c_at] != identity or maps[-1] != identity:
        return False
    for v, m in zip(operands[:-1], maps[:-1]):
        if v != c and not _along_dims(v, m):
            return False
    block = g.regions[0].blocks[0]
    out_read = any(True for _ in block.arguments[len(operands) - 1].uses)
    if not isinstance(block.arguments[c_at].type, ir.F32Type) or out_read:
        return False
    inside = set(list(block.arguments)[: len(operands) - 1])
    ops = [o.operation for o in block.operations]
    for o in ops[:-1]:
        if o.name not in _ELEMENTWISE or len(o.results) != 1:
            return False
        # the body has no regions: a value not made in it (nor `out`) comes from above
        if not all(v in inside or _float_scalar(v) for v in o.operands):
            return False
        inside.add(o.results[0])
    return ops[-1].name == "linalg.yield" and ops[-1].operands[0] in inside


def _along_dims(v: ir.Value, m) -> bool:
    """A memref input whose map picks dims in increasing order, unit stride along the last
    dim when it picks it."""
    if not isinstance(v.type, ir.MemRefType) or m.n_symbols:
        return False
    try:
        dims = _dims(m)
    except ValueError:
        return False
    if dims != sorted(set(dims)):
        return False
    if dims and dims[-1] == m.n_dims - 1:
        strides, _ = ir.MemRefType(v.type).get_strides_and_offset()
        return strides[-1] == 1
    return True


def _float_scalar(v: ir.Value) -> bool:
    return isinstance(v.type, (ir.F32Type, ir.BF16Type, ir.F16Type))
