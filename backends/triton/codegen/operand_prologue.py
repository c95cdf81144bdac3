"""The pointwise nest that fills a product's operand -> that operand's tiles computed inside the
`tl.dot` kernel's K loop (a prologue); the nest, and the write and read of its buffer, gone.

A rotary embedding applied to the queries, or a training-mode batch norm + ReLU before the next
convolution, is a nest that reads a tensor and writes the product's A (or B) whole, then the
product reads it back. Computing each operand element where the product loads it moves the
nest's inputs instead: one kernel and one write and read fewer. Legal when the nest is
straight-line code with one store, of every element of the operand buffer at a permutation of
its ivs; nothing between the nest and the product writes what it reads or touches the buffer;
the product does not write what the nest reads; and nothing reads the buffer after the product.
Padding a convolution reads stays zero: the mask selects it after the computation.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..loop_ir import HOISTABLE, all_ops, covers, dead_after, refills, root_of
from ..products import LAYOUT_ATTR, is_conv_call, is_matmul_call
from .epilogue import nest_accesses
from .kernel import KernelWriter
from .kernel_types import KernelError
from .matmul import OPERAND_TILES

# the template's index expression of each operand dim, and the mask of its tile
_MATMUL = {
    0: (["b0", "b1", "rm[:, None]", "kk[None, :]", "k2"], "a_mask"),
    1: (["b0", "b1", "kk[:, None]", "rn[None, :]", "k2"], "b_mask"),
}
_CONV = {
    0: (["cn[:, None]", "kc[None, :]", "ih", "iw"], "a_mask"),
    1: (["rn[None, :]", "kc[:, None]", "kh[:, None]", "kw[:, None]"], "b_mask"),
}
_UNIFORM = ("b0", "b1", "k2")  # the same over a tile


@dataclass
class Prologue:
    nest: ir.Operation
    store: ir.Operation  # the nest's one store, of the operand
    operand: int  # 0: A, 1: B


def find(nest: ir.Operation, rest: list) -> tuple[ir.Operation, Prologue] | None:
    """(the product, the prologue) when `nest` can run in the kernel of a product among `rest`
    (the ops after it) as that product's operand prologue."""
    if nest.name != "scf.parallel" or nest.parent.name != "func.func":
        return None
    found = _the_store(nest)
    if found is None:
        return None
    store, accesses = found
    memref = store.operands[1]
    root = root_of(memref)
    if isinstance(root.owner, ir.Block) or root.owner.operation.name != "memref.alloc":
        return None
    reads = set(accesses) - {root}
    if len(accesses[root]) != 1:
        return None  # the nest reads its own buffer
    for j, op in enumerate(rest):
        if op.name in HOISTABLE:
            continue
        if is_matmul_call(op) and memref in list(op.operands)[:2]:
            k = list(op.operands).index(memref)
            if root_of(op.operands[1 - k]) == root or root_of(op.operands[2]) in reads | {root}:
                return None
            if not dead_after(root, memref, rest[j + 1 :], refills):
                return None
            return op, Prologue(nest, store, k)
        touched = {root_of(v) for o in all_ops(op) for v in o.operands if _is_memref(v)}
        if touched & (reads | {root}):
            return None  # conservative: it may write what the nest reads, or free it
    return None


def _is_memref(v: ir.Value) -> bool:
    return isinstance(v.type, ir.MemRefType)


def _the_store(nest: ir.Operation):
    """(the nest's only store, its accesses by root) when that store writes every element of a
    static memref at the nest's own ivs, one element per lane."""
    found = nest_accesses(nest)
    stores = [op for op in all_ops(nest) if op.name == "memref.store"]
    if found is None or len(stores) != 1:
        return None
    store = stores[0]
    memref, indices = store.operands[1], list(store.operands[2:])
    ivs = set(nest.regions[0].blocks[0].arguments)
    if set(indices) != ivs or not ir.MemRefType(memref.type).has_static_shape:
        return None
    return (store, found[1]) if covers(store, memref, indices, nest) else None


class PrologueWriter(KernelWriter):
    """The nest's body at the elements of one operand tile; its stored value becomes the tile."""

    def __init__(self, name: str, nest: ir.Operation, mask: str):
        super().__init__(name, nest, "tile")
        self.tile_mask = mask
        self.lanes = "[BM, BK]" if mask == "a_mask" else "[BK, BN]"
        self.value = None

    def fresh(self, prefix: str = "v") -> str:
        return "g" + super().fresh(prefix)  # apart from the epilogue's names in one kernel

    def mask(self, *values) -> str:
        return f", mask={self.tile_mask}" if self.is_block(*values) else ""

    def emit_store(self, op: ir.Operation) -> None:
        self.value = self.v(op.operands[0])


def write(name: str, call: ir.Operation, prologue: Prologue) -> tuple:
    """(the writer, the code computing the operand tile) of `prologue` in the kernel of
    `call`."""
    k = prologue.operand
    exprs, mask = (_CONV if is_conv_call(call) else _MATMUL)[k]
    indices = list(prologue.store.operands[2:])
    if is_conv_call(call):
        dim_expr = dict(enumerate(exprs))
    else:
        layout = ir.StringAttr(call.attributes[LAYOUT_ATTR]).value
        tokens = layout.split(";")[k].split(":")[1].split(",")
        dim_expr = {int(t): e for t, e in zip(tokens, exprs) if t != "x"}
    w = PrologueWriter(name, prologue.nest, mask)
    w.depth = 2 if is_conv_call(call) else 3  # the K loop's body in each template
    for d, iv in enumerate(indices):
        if d not in dim_expr:
            raise KernelError("an operand dim the product's layout leaves out")
        w.names[iv] = dim_expr[d]
        if dim_expr[d] == "k2":
            w.loop_ivs.add("k2")
        if dim_expr[d] not in _UNIFORM:
            w.block.add(iv)
    w.emit_block(prologue.nest.regions[0].blocks[0])
    if any(p.kind == "count" for p in w.params) or w.value is None:
        raise KernelError("a prologue needs the nest's trip counts")
    tile = f"tl.where({mask}, {w.value}, 0.0)"  # zero outside the operand (a conv's padding)
    w.emit(f"{OPERAND_TILES[k]} = H.cast_to({tile}, {'ab'[k]}.dtype.element_ty)")
    return w, "\n".join(line for line in w.lines if line) + "\n"
