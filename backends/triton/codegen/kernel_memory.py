"""What a kernel knows about its memory while it is written: the value last stored at each
address (store-to-load forwarding, also into loops that do not write that buffer), and which
stores are dead because the buffer is private to the kernel and nothing loads it any more."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..loop_ir import VIEW_OPS, is_argument, root_of, written_roots


@dataclass
class Stored:
    expr: str  # the stored value
    block: bool  # whether it is a block (per lane) value
    line: int  # the index of the store's line
    root: ir.Value  # the buffer (allocation or argument) the address is in
    pinned: bool = False  # memory was read from that buffer since: the store must stay


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
        args = any(is_argument(r) for r in roots)
        self.stored = {
            a: s
            for a, s in self.stored.items()
            if s.root not in roots and not (args and is_argument(s.root))
        }

    def region(self, op: ir.Operation) -> None:
        """Before and after a loop or branch: forget the buffers it may write."""
        self.forget(written_roots(op))


def private(root: ir.Value, inside_ops: set) -> bool:
    """`root` is allocated in the function and used only by ops in `inside_ops` (the kernel)
    and its deallocation: no one else reads what the kernel stores there."""
    if is_argument(root) or root.owner.operation.name != "memref.alloc":
        return False
    stack = [root]
    while stack:
        v = stack.pop()
        for use in v.uses:
            user = getattr(use.owner, "operation", use.owner)
            if user in inside_ops or user.name == "memref.dealloc":
                continue
            if user.name in VIEW_OPS:
                stack.extend(user.results)
                continue
            return False
    return True
