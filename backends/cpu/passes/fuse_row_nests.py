"""`cpu-fuse-row-nests`: adjacent `scf.parallel` nests over the same rows -> one nest.

`cpu-vectorize-generics` gives each generic of a softmax or a layer norm its own nest over the
rows (the max, the exponentials, the fill of the sum, the sum, the normalisation), so each pass
streams the whole tensor through the caches again: a 1024 x 1024 softmax reads and writes 4 MB
four times from L3. ATen's kernels run all the passes on one row while it is in L1; fused, so
do we. Two nests fuse when every buffer one of them writes and the other touches is accessed
only at the nest's own iteration (its leading indices are the induction variables), through
the same memref value: then iteration i of the second nest reads nothing iteration j != i of
the first writes, and the reverse. Upstream `scf-parallel-loop-fusion` checks `memref.load` and
`memref.store` only, not the vector loads and stores these nests are made of.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from aten_mlir.passes.ir import (
    MEMREF_VIEWS,
    PURE_PREFIXES,
    constant_int,
    defined_functions,
    view_root,
)
from aten_mlir.passes.registry import ModulePass, register_pass

# Accesses: op name -> (position of the memref, position of the first index, is a write).
_ACCESSES = {
    "memref.load": (0, 1, False),
    "vector.load": (0, 1, False),
    "vector.maskedload": (0, 1, False),
    "memref.store": (1, 2, True),
    "vector.store": (1, 2, True),
    "vector.maskedstore": (0, 1, True),
}
# and ub.* (poison values), which touch no memory either
_PURE_PREFIXES = (*PURE_PREFIXES, "ub.")
_CONTROL = frozenset(("scf.for", "scf.if", "scf.yield", "scf.reduce", "memref.dim"))
_VECTOR_MEMORY = ("load", "store", "transfer", "gather", "scatter", "print", "expand", "compress")
# Ops between two nests that can move above the first: they read no memory (a memref.dim
# reads a size, which no nest changes; a create_mask is a dynamic row's tail mask, which
# cpu-vectorize-generics builds outside its row loops: lane_tail.py).
_HOISTABLE = frozenset(
    ("memref.alloc", "memref.expand_shape", "memref.collapse_shape", "memref.dim")
    + ("vector.create_mask",)
)


def _pure(op: ir.Operation) -> bool:
    name = op.name
    if name.startswith("vector."):
        return not any(k in name for k in _VECTOR_MEMORY)
    return name.startswith(_PURE_PREFIXES) or name in _CONTROL or name in MEMREF_VIEWS


def _accesses(nest: ir.Operation) -> list[tuple] | None:
    """(memref, indices, is_write) of every load and store in `nest`; None when it has an op
    that touches memory otherwise (a call, a copy, an allocation)."""
    out = []

    def visit(op: ir.Operation) -> bool:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    access = _ACCESSES.get(inner.name)
                    if access is not None:
                        at, first, write = access
                        base = inner.operands[at]
                        rank = ir.MemRefType(base.type).rank
                        indices = list(inner.operands)[first : first + rank]
                        out.append((base, indices, write))
                    elif not _pure(inner):
                        return False
                    if not visit(inner):
                        return False
        return True

    return out if visit(nest) else None


def _dim_of(v: ir.Value):
    """(memref, dim) when `v` is `memref.dim` of a memref at a constant dim; else None."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "memref.dim":
        return None
    index = constant_int(owner.operands[1])
    return None if index is None else (owner.operands[0], index)


# ops whose leading operands are the sizes of their result's dynamic dims, in order
_SIZED = frozenset(("memref.alloc", "memref.alloca", "memref.expand_shape"))


def _size_source(v: ir.Value) -> ir.Value:
    """The value a dynamic size `v` was made from: `memref.dim` of an alloc or an expand_shape
    is the size operand it was given. A softmax's sum buffer alloc(%b, %s) and the scores'
    expand_shape(.., output_shape [%b, 8, %s, ..]) then give their nests the same bounds,
    where their own `memref.dim`s differ and kept the dynamic softmax in three nests."""
    for _ in range(8):  # a short chain of views; bounded so a cycle cannot hang
        dim = _dim_of(v)
        if dim is None:
            return v
        memref, index = dim
        owner = memref.owner
        if isinstance(owner, ir.Block) or owner.name not in _SIZED:
            return v
        shape = ir.MemRefType(memref.type).shape
        if index >= len(shape) or not ir.ShapedType.is_dynamic_size(shape[index]):
            return v
        position = sum(ir.ShapedType.is_dynamic_size(d) for d in shape[:index])
        first = 1 if owner.name == "memref.expand_shape" else 0  # the source comes first
        v = owner.operands[first + position]
    return v


def _same_value(x: ir.Value, y: ir.Value) -> bool:
    """`x` and `y` are equal: one value, equal constants, or the same dim of one memref (each
    vectorized generic reads its own `memref.dim` of a dynamic size; no cse ran yet), or sizes
    made from one value (`_size_source`)."""
    if x == y:
        return True
    if constant_int(x) is not None:
        return constant_int(x) == constant_int(y)
    dim = _dim_of(x)
    if dim is not None and dim == _dim_of(y):
        return True
    sx, sy = _size_source(x), _size_source(y)
    if sx == sy:
        return True
    dim = _dim_of(sx)
    return dim is not None and dim == _dim_of(sy)


def _same_space(a: ir.Operation, b: ir.Operation) -> bool:
    """Both nests have the same bounds and steps, and no reductions (results)."""
    if len(a.results) or len(b.results) or len(a.operands) != len(b.operands):
        return False
    return all(_same_value(x, y) for x, y in zip(a.operands, b.operands))


def _row_local(accesses: list[tuple], ivs) -> bool:
    ivs = list(ivs)
    return all(len(idx) >= len(ivs) and list(idx[: len(ivs)]) == ivs for _, idx, _ in accesses)


def _independent(a: ir.Operation, b: ir.Operation) -> bool:
    """No iteration of `b` touches what another iteration of `a` writes, or the reverse."""
    found_a, found_b = _accesses(a), _accesses(b)
    if found_a is None or found_b is None:
        return False
    ivs_a = a.regions[0].blocks[0].arguments
    ivs_b = b.regions[0].blocks[0].arguments
    roots = {view_root(m) for m, _, _ in found_a} | {view_root(m) for m, _, _ in found_b}
    for root in roots:
        in_a = [x for x in found_a if view_root(x[0]) == root]
        in_b = [x for x in found_b if view_root(x[0]) == root]
        if not in_a or not in_b or not any(w for _, _, w in in_a + in_b):
            continue
        if isinstance(root.owner, ir.Block):
            return False  # a caller's buffer: it may alias another argument
        if len({m for m, _, _ in in_a + in_b}) != 1:
            return False  # two views of one buffer: indices are not comparable
        if not (_row_local(in_a, ivs_a) and _row_local(in_b, ivs_b)):
            return False
    return True


def _hoistable(ops: list[ir.Operation]) -> bool:
    """The ops between two nests can all move above the first (size arithmetic included: a
    `?`-row product's `affine.apply` of its collapsed rows, between a layer norm's statistics
    and its normalisation, kept them apart and their row buffers on the heap)."""
    return all(
        op.name in _HOISTABLE
        or (op.name.startswith(("arith.", "affine.apply", "index.")) and not op.regions)
        for op in ops
    )


def _fuse(a: ir.Operation, b: ir.Operation, between: list[ir.Operation]) -> None:
    for op in between:
        op.move_before(a)
    body_a = a.regions[0].blocks[0]
    body_b = b.regions[0].blocks[0]
    for iv_b, iv_a in zip(body_b.arguments, body_a.arguments):
        iv_b.replace_all_uses_with(iv_a)
    terminator = [o.operation for o in body_a.operations][-1]
    for op in [o.operation for o in body_b.operations][:-1]:
        op.move_before(terminator)
    b.erase()


def fuse_block(block: ir.Block) -> None:
    """Fuses each `scf.parallel` in `block` with the next ones it can, in one walk: the ops
    between a nest and the next are listed once (a block of a 12-layer model holds hundreds of
    nests; re-listing it per pair took seconds)."""
    ops = [o.operation for o in block.operations]
    nests = [i for i, op in enumerate(ops) if op.name == "scf.parallel"]
    if not nests:
        return
    head, last = nests[0], nests[0]  # the nest being grown, and where its last part stood
    for i in nests[1:]:
        between = ops[last + 1 : i]
        a, b = ops[head], ops[i]
        if _hoistable(between) and _same_space(a, b) and _independent(a, b):
            _fuse(a, b, between)  # `between` moves above `a`, `b` is erased
        else:
            head = i
        last = i


@register_pass
@dataclass(frozen=True)
class FuseRowNests(ModulePass):
    """scf.parallel, scf.parallel (same bounds, buffers shared only at the own iteration) ->
    one scf.parallel running both bodies in order."""

    name: ClassVar[str] = "cpu-fuse-row-nests"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for func in defined_functions(module_op):
                fuse_block(func.regions[0].blocks[0])
