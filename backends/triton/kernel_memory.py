"""What a kernel knows about its memory while it is written: the value last stored at each
address (store-to-load forwarding, also into loops that do not write that buffer), and which
stores are dead because the buffer is private to the kernel and nothing loads it any more."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from aten_mlir.passes.registry import nested_ops


@dataclass
class Stored:
    expr: str  # the stored value
    block: bool  # whether it is a block (per lane) value
    line: int  # the index of the store's line
    root: ir.Value  # the buffer (allocation or argument) the address is in
    pinned: bool = False  # memory was read from that buffer since: the store must stay


_VIEW_OPS = (
    "memref.subview",
    "memref.expand_shape",
    "memref.collapse_shape",
    "memref.cast",
    "memref.reinterpret_cast",
    "memref.assume_alignment",
)


def root_of(memref: ir.Value) -> ir.Value:
    """The allocation or argument a memref view is a view of."""
    while not isinstance(memref.owner, ir.Block) and memref.owner.operation.name in _VIEW_OPS:
        memref = memref.owner.operation.operands[0]
    return memref


_RESHAPES = ("memref.expand_shape", "memref.collapse_shape", "memref.cast")


def _is_arg(root: ir.Value) -> bool:
    return isinstance(root.owner, ir.Block)


class Memory:
    def __init__(self):
        self.stored: dict[str, Stored] = {}

    def store(self, addr: str, memref: ir.Value, expr: str, block: bool, line: int) -> None:
        root = root_of(memref)
        self.forget([root])
        self.stored[addr] = Stored(expr, block, line, root)

    def load(self, addr: str, memref: ir.Value) -> Stored | None:
        """The value stored at `addr`, if known; else the load reads memory (which pins the
        stores to that buffer: they can no longer be dropped)."""
        known = self.stored.get(addr)
        if known is None:
            root = root_of(memref)
            for s in self.stored.values():
                if s.root == root:
                    s.pinned = True
        return known

    def forget(self, roots) -> None:
        """Drops what is known about buffers `roots` (written, or possibly written). Arguments
        may alias each other, allocations alias nothing."""
        roots = list(roots)
        args = any(_is_arg(r) for r in roots)
        self.stored = {
            a: s
            for a, s in self.stored.items()
            if s.root not in roots and not (args and _is_arg(s.root))
        }

    def region(self, op: ir.Operation) -> None:
        """Before and after a loop or branch: forget the buffers it may write."""
        self.forget(written_roots(op))


def written_roots(op: ir.Operation) -> list[ir.Value]:
    from .kernel import all_ops

    roots = []
    for inner in all_ops(op):
        if inner.name == "memref.store":
            roots.append(root_of(inner.operands[1]))
        elif inner.name not in _NO_WRITE:
            roots.extend(root_of(o) for o in inner.operands if isinstance(o.type, ir.MemRefType))
    return roots


_NO_WRITE = (*_VIEW_OPS, "memref.load", "memref.dim")


def private(root: ir.Value, inside_ops: set) -> bool:
    """`root` is allocated in the function and used only by ops in `inside_ops` (the kernel)
    and its deallocation: no one else reads what the kernel stores there."""
    if _is_arg(root) or root.owner.operation.name != "memref.alloc":
        return False
    stack = [root]
    while stack:
        v = stack.pop()
        for use in v.uses:
            user = getattr(use.owner, "operation", use.owner)
            if user in inside_ops or user.name == "memref.dealloc":
                continue
            if user.name in _VIEW_OPS:
                stack.extend(user.results)
                continue
            return False
    return True


def const_int(v: ir.Value) -> int | None:
    """The value of an integer or index `arith.constant`, else None."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return None
    return ir.IntegerAttr(owner.operation.attributes["value"]).value


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


def whole(view: ir.Value) -> bool:
    """`view` is all of its buffer, reshaped."""
    while not isinstance(view.owner, ir.Block) and view.owner.operation.name in _RESHAPES:
        view = view.owner.operation.operands[0]
    return isinstance(view.owner, ir.Block) or view.owner.operation.name == "memref.alloc"


def top_in(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The op of `block` that is or holds `op` (None when `op` is not inside `block`)."""
    while op is not None and op.name != "func.func":
        if op.block == block:
            return op
        op = op.parent
    return None


def _users(root: ir.Value) -> list:
    """The ops that use `root` or a view of it (the views themselves left out)."""
    out, stack = [], [root]
    while stack:
        for use in stack.pop().uses:
            user = getattr(use.owner, "operation", use.owner)
            if user.name in _VIEW_OPS:
                stack.extend(user.results)
            else:
                out.append(user)
    return out


def dead_after(root: ir.Value, written: ir.Value, later: list, overwrites) -> bool:
    """What a kernel stored at view `written` of the allocation `root` is never read: among
    `later` (the ops after the kernel in a function body, which no loop runs again) the first to
    touch `root` deallocates it or overwrites all of `written` before reading it
    (`overwrites(op, written)`; the bufferizer reuses a buffer for products of one shape)."""
    if _is_arg(root) or root.owner.operation.name != "memref.alloc":
        return False
    index = {op: i for i, op in enumerate(later)}
    first = len(later)
    for user in _users(root):
        top = user
        while top is not None and top not in index and top.name != "func.func":
            top = top.parent
        if top is not None and top in index:  # else before or inside the kernel
            first = min(first, index[top])
    if first == len(later):
        return True
    op = later[first]
    return op.name == "memref.dealloc" or overwrites(op, written)
