"""Queries over loop-level IR (memrefs, `scf.parallel` nests, loads and stores) that the Triton
loop passes and the kernel codegen share: the buffer a view is of, who uses a buffer, which ops
may write it, whether a nest fills all of a buffer, what runs after an op.

Below both `passes/` and `codegen/`; imports only MLIR, `aten_mlir.passes.registry` (the
walks) and the product calls' vocabulary (`products.py`).
"""

from __future__ import annotations

from mlir import ir

from aten_mlir.passes.registry import nested_ops

from .products import INIT_ATTR

# -- buffers and their views ------------------------------------------------------------------


VIEW_OPS = (
    "memref.subview",
    "memref.expand_shape",
    "memref.collapse_shape",
    "memref.cast",
    "memref.reinterpret_cast",
    "memref.assume_alignment",
)

# ops with no effect on data that may move above a loop nest (a nest fused or hoisted past them)
HOISTABLE = frozenset(
    {
        "arith.constant",
        "memref.alloc",
        "memref.expand_shape",
        "memref.collapse_shape",
        "memref.subview",
        "memref.cast",
        "memref.reinterpret_cast",
    }
)


def root_of(memref: ir.Value) -> ir.Value:
    """The allocation or argument a memref view is a view of."""
    while not isinstance(memref.owner, ir.Block) and memref.owner.operation.name in VIEW_OPS:
        memref = memref.owner.operation.operands[0]
    return memref


_RESHAPES = ("memref.expand_shape", "memref.collapse_shape", "memref.cast")


def whole(view: ir.Value) -> bool:
    """`view` is all of its buffer, reshaped."""
    while not isinstance(view.owner, ir.Block) and view.owner.operation.name in _RESHAPES:
        view = view.owner.operation.operands[0]
    return isinstance(view.owner, ir.Block) or view.owner.operation.name == "memref.alloc"


def is_argument(root: ir.Value) -> bool:
    """`root` is a block argument (a function argument may alias another; an allocation not)."""
    return isinstance(root.owner, ir.Block)


def users_of(root: ir.Value) -> list:
    """The ops that use `root` or a view of it (the views themselves left out)."""
    out, stack = [], [root]
    while stack:
        for use in stack.pop().uses:
            user = getattr(use.owner, "operation", use.owner)
            if user.name in VIEW_OPS:
                stack.extend(user.results)
            else:
                out.append(user)
    return out


def const_int(v: ir.Value) -> int | None:
    """The value of an integer or index `arith.constant`, else None."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return None
    return ir.IntegerAttr(owner.operation.attributes["value"]).value


# -- ops and where they sit -------------------------------------------------------------------


def all_ops(root: ir.Operation):
    """`root` and every op nested in it, in order."""
    yield root
    yield from nested_ops(root)


def defined_inside(root: ir.Operation) -> set:
    """The values `root` and the ops nested in it define (results and block arguments)."""
    inside = set()
    for op in all_ops(root):
        inside.update(op.results)
        for region in op.regions:
            for block in region.blocks:
                inside.update(block.arguments)
    return inside


def top_in(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The op of `block` that is or holds `op` (None when `op` is not inside `block`)."""
    while op is not None and op.name != "func.func":
        if op.block == block:
            return op
        op = op.parent
    return None


def ops_after(op: ir.Operation) -> list:
    """The ops after `op` in its block."""
    ops = [o.operation for o in op.block.operations]
    return ops[ops.index(op) + 1 :]


# -- writes -----------------------------------------------------------------------------------


_NO_WRITE = (*VIEW_OPS, "memref.load", "memref.dim")


def written_roots(op: ir.Operation) -> list[ir.Value]:
    """The buffers `op` (or an op nested in it) may write: stored to, or passed to an op that
    is not a view, a load or a dim."""
    roots = []
    for inner in all_ops(op):
        if inner.name == "memref.store":
            roots.append(root_of(inner.operands[1]))
        elif inner.name not in _NO_WRITE:
            roots.extend(root_of(o) for o in inner.operands if isinstance(o.type, ir.MemRefType))
    return roots


def writes_between(first: ir.Operation, last: ir.Operation, roots: set, allowed) -> bool:
    """Some op after `first` up to `last` (inclusive, in one block) may write or free one of
    `roots`: any use of one that is not a view, a load or the value a store writes, unless
    `allowed(op, operand_index)` says that use only reads."""
    ops = [o.operation for o in first.block.operations]
    for op in ops[ops.index(first) + 1 : ops.index(last) + 1]:
        for inner in (op, *nested_ops(op)):
            for i, v in enumerate(inner.operands):
                if root_of(v) not in roots or inner.name in _NO_WRITE:
                    continue
                if (inner.name == "memref.store" and i == 0) or allowed(inner, i):
                    continue
                return True
    return False


def dead_after(root: ir.Value, written: ir.Value, later: list, overwrites) -> bool:
    """What a kernel stored at view `written` of the allocation `root` is never read: among
    `later` (the ops after the kernel in a function body, which no loop runs again) the first to
    touch `root` deallocates it or overwrites all of `written` before reading it
    (`overwrites(op, written)`; the bufferizer reuses a buffer for products of one shape)."""
    if is_argument(root) or root.owner.operation.name != "memref.alloc":
        return False
    index = {op: i for i, op in enumerate(later)}
    first = len(later)
    for user in users_of(root):
        top = user
        while top is not None and top not in index and top.name != "func.func":
            top = top.parent
        if top is not None and top in index:  # else before or inside the kernel
            first = min(first, index[top])
    if first == len(later):
        return True
    op = later[first]
    return op.name == "memref.dealloc" or overwrites(op, written)


# -- accesses that cover a buffer -------------------------------------------------------------


def through_unit_dims(memref: ir.Value, indices: list) -> tuple:
    """An access through `expand_shape`s that only add unit dims (indexed at constant 0), as
    the same access to the expanded memref: one element, whichever view names it."""
    while not isinstance(memref.owner, ir.Block) and memref.owner.operation.name == (
        "memref.expand_shape"
    ):
        op = memref.owner.operation
        shape = ir.MemRefType(memref.type).shape
        groups = [[ir.IntegerAttr(d).value for d in g] for g in op.attributes["reassociation"]]
        new = []
        for group in groups:
            big = [d for d in group if shape[d] != 1]
            if len(big) > 1 or any(const_int(indices[d]) != 0 for d in group if d not in big):
                return memref, indices
            new.append(indices[big[0]] if big else indices[group[0]])
        memref, indices = op.operands[0], new
    return memref, indices


def covers(store: ir.Operation, memref: ir.Value, indices: list, nest: ir.Operation) -> bool:
    """`store` runs unconditionally for every element of `memref`: each index is the iv of an
    enclosing loop from 0 to that dim's size by 1 (or 0 in a unit dim), and only loops enclose
    it in the nest."""
    shape = ir.MemRefType(memref.type).shape
    ivs = [i for i in indices if isinstance(i.owner, ir.Block)]
    if len(set(ivs)) != len(ivs) or len(indices) != len(shape):
        return False
    op = store.parent
    while op != nest:
        if op.name not in ("scf.for", "scf.parallel"):
            return False
        op = op.parent
    for iv, size in zip(indices, shape):
        if not isinstance(iv.owner, ir.Block):
            if size == 1 and const_int(iv) == 0:
                continue  # the one element of a unit dim
            return False
        loop = iv.owner.owner.operation
        if loop.name not in ("scf.for", "scf.parallel") or not _is_ancestor(loop, store, nest):
            return False
        n = 1 if loop.name == "scf.for" else len(loop.operands) // 3
        k = list(iv.owner.arguments).index(iv)
        lb, ub, step = (loop.operands[j * n + k] for j in range(3))
        if (const_int(lb), const_int(ub), const_int(step)) != (0, size, 1):
            return False
    return True


def _is_ancestor(loop: ir.Operation, op: ir.Operation, nest: ir.Operation) -> bool:
    while op != nest:
        op = op.parent
        if op == loop:
            return True
    return False


def iv_map(indices: list, values: list) -> dict:
    """The store's loop ivs -> the reader's index values (a unit dim's constant 0 stays)."""
    return {i: v for i, v in zip(indices, values) if isinstance(i.owner, ir.Block)}


def overwrites(op: ir.Operation, view: ir.Value) -> bool:
    """`op` is a nest that fills all of `view`'s buffer and reads none of it (the next nest to
    use a reused buffer), or reads only elements its lanes stored first (a reduction's
    accumulator initialised in the nest)."""
    if op.name != "scf.parallel":
        return False
    root = root_of(view)
    order = {o: i for i, o in enumerate(nested_ops(op))}
    touching = sorted((u for u in users_of(root) if u in order), key=order.get)
    if not touching or touching[0].name != "memref.store":
        return False
    store = touching[0]
    memref, indices = through_unit_dims(store.operands[1], list(store.operands[2:]))
    if not (whole(memref) and covers(store, memref, indices, op)):
        return False
    return len(touching) == 1 or (
        store.parent == op and all(_same_place(u, memref, indices) for u in touching)
    )


def _same_place(access: ir.Operation, memref: ir.Value, indices: list) -> bool:
    if access.name not in ("memref.load", "memref.store"):
        return False
    first = 1 if access.name == "memref.load" else 2
    m, idx = through_unit_dims(access.operands[first - 1], list(access.operands[first:]))
    return m == memref and idx == indices


def initializes(op: ir.Operation, view: ir.Value) -> bool:
    """`op` is a product that fills all of `view` (or all of its buffer) as its C, reading
    neither A nor B from it."""
    if op.name != "func.call" or INIT_ATTR not in op.attributes:
        return False
    if root_of(op.operands[2]) != root_of(view):
        return False
    if op.operands[2] != view and not whole(op.operands[2]):
        return False
    return root_of(view) not in (root_of(op.operands[0]), root_of(op.operands[1]))


def refills(op: ir.Operation, view: ir.Value) -> bool:
    """`op` fills all of `view`'s buffer before reading any of it: a nest, or a product's C
    (where the bufferizer reused the buffer, the tensor it held before is dead from there on)."""
    return overwrites(op, view) or initializes(op, view)
