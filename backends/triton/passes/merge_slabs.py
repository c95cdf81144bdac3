"""`triton-merge-slabs`: the writers of adjacent slabs of one buffer (a `cat` filled piece by
piece) -> one nest over the whole buffer choosing the piece by index.

LLaMA's rotary embedding rotates half of each head: `cat(-x[..., 8:], x[..., :8])` is, at
loop level, a nest negating into the first half of a buffer and a `memref.copy` into the
second, which a third nest then reads whole. No nest covers the buffer, so none can be inlined
into that reader, and each piece costs a launch. One nest storing
`d < 8 ? -x[..., d + 8] : x[..., d - 8]` at every element covers it (each piece's computation
at clamped indices, so neither reads out of bounds), and `triton-inline-producers` can then
move it into the reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, memref, scf

from aten_mlir.passes.registry import ModulePass, function_blocks, nested_ops, register_pass

from ..loop_ir import covers, root_of, top_in, users_of, writes_between
from .rematerialize import element_slice

_MAX_PIECES = 4


@dataclass
class _Piece:
    writer: ir.Operation  # the nest or memref.copy
    view: ir.Value  # the subview it fills
    offset: int  # where the slab starts along the cat dim
    size: int


@register_pass
@dataclass(frozen=True)
class MergeSlabs(ModulePass):
    """Merges the nests and copies filling adjacent slabs of a buffer into one nest."""

    name: ClassVar[str] = "triton-merge-slabs"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for block in function_blocks(module_op):
                roots = {}
                for op in [o.operation for o in block.operations]:
                    piece = _piece(op)
                    if piece is not None:
                        roots.setdefault(root_of(piece.view), []).append(piece)
                for root, pieces in roots.items():
                    # a reused buffer is a cat's in each layer: every group merges
                    while (group := _slabs(root, pieces)) is not None:
                        _merge(root, *group)
                        pieces = [p for p in pieces if all(p is not q for q in group[1])]


def _piece(op: ir.Operation) -> _Piece | None:
    """`op` as the writer of a static unit-stride subview of an allocation."""
    if op.name == "memref.copy":
        view = op.operands[1]
    elif op.name == "scf.parallel" and not op.results:
        stores = [o for o in nested_ops(op) if o.name == "memref.store"]
        if len(stores) != 1 or any(o.regions for o in nested_ops(op)):
            return None
        view = stores[0].operands[1]
    else:
        return None
    owner = view.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "memref.subview":
        return None
    root = owner.operation.operands[0]
    if isinstance(root.owner, ir.Block) or root.owner.operation.name != "memref.alloc":
        return None
    sub = owner.operation
    offsets = list(ir.DenseI64ArrayAttr(sub.attributes["static_offsets"]))
    sizes = list(ir.DenseI64ArrayAttr(sub.attributes["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(sub.attributes["static_strides"]))
    shape = ir.MemRefType(root.type).shape
    if len(sub.operands) != 1 or any(s != 1 for s in strides) or len(sizes) != len(shape):
        return None  # dynamic, strided or rank-reducing
    cut = [d for d in range(len(shape)) if sizes[d] != shape[d]]
    if len(cut) != 1:
        return None
    if op.name == "scf.parallel" and not _fills(op, view):
        return None
    return _Piece(op, view, offsets[cut[0]], sizes[cut[0]])


def _fills(nest: ir.Operation, view: ir.Value) -> bool:
    """`nest` stores one pure function of its loads at every element of `view`."""
    store = next(o for o in nested_ops(nest) if o.name == "memref.store")
    ivs = list(nest.regions[0].blocks[0].arguments)
    if list(store.operands[2:]) != ivs or not covers(store, view, ivs, nest):
        return False
    inside = {nest, *nested_ops(nest)}
    return element_slice(store.operands[0], set(ivs), inside, {root_of(view)}) is not None


def _slabs(root: ir.Value, pieces: list):
    """(cat dim, the pieces in order of offset) when consecutive writers fill all of `root`
    along one dim, nothing else touching it in between, and none of their sources changes
    before the last of them."""
    if len(pieces) < 2:
        return None
    shape = ir.MemRefType(root.type).shape
    block = pieces[0].writer.block
    order = [o.operation for o in block.operations]
    for first in range(len(pieces)):
        for last in range(first + 1, min(first + _MAX_PIECES, len(pieces))):
            group = pieces[first : last + 1]
            dims = {_cut_dim(p, shape) for p in group}
            if len(dims) != 1:
                continue
            dim = dims.pop()
            slabs = sorted(group, key=lambda p: p.offset)
            ends = [p.offset + p.size for p in slabs]
            if slabs[0].offset != 0 or ends[-1] != shape[dim]:
                continue
            if any(p.offset != e for p, e in zip(slabs[1:], ends)):
                continue
            start, end = order.index(group[0].writer), order.index(group[-1].writer)
            span = order[start : end + 1]
            writers = {p.writer for p in group}
            touching = {top_in(u, block) for u in users_of(root)}
            if any(op in touching and op not in writers for op in span):
                continue
            if any(_sources_change(p, group[-1].writer) for p in group):
                continue
            return dim, slabs
    return None


def _cut_dim(piece: _Piece, shape) -> int:
    sizes = ir.MemRefType(piece.view.type).shape
    return next(d for d in range(len(shape)) if sizes[d] != shape[d])


def _sources_change(piece: _Piece, last: ir.Operation) -> bool:
    if piece.writer == last:
        return False
    ops = [piece.writer] if piece.writer.name == "memref.copy" else list(nested_ops(piece.writer))
    sources = {root_of(o.operands[0]) for o in ops if o.name in ("memref.load", "memref.copy")}
    return writes_between(piece.writer, last, sources, _copy_source)


def _copy_source(op: ir.Operation, i: int) -> bool:
    return op.name == "memref.copy" and i == 0  # read, not written


def _merge(root: ir.Value, dim: int, slabs: list) -> None:
    """One nest over `root` storing, at each element, the piece's value that covers it."""
    last = max((p.writer for p in slabs), key=lambda w: _position(w))
    shape = ir.MemRefType(root.type).shape
    with last.location, ir.InsertionPoint(last):
        index = ir.IndexType.get()
        zero = arith.ConstantOp(index, 0).result
        one = arith.ConstantOp(index, 1).result
        ubs = [arith.ConstantOp(index, s).result for s in shape]
        nest = scf.ParallelOp([], [zero] * len(shape), ubs, [one] * len(shape), [])
        body = nest.regions[0].blocks.append(*[index] * len(shape))
        with ir.InsertionPoint(body):
            ivs = list(body.arguments)
            value = None
            for piece in reversed(slabs):  # the first slab's value is the outermost select
                local = _local(ivs, dim, piece)
                v = _value_at(piece, local)
                if value is None:
                    value = v
                else:
                    end = arith.ConstantOp(index, piece.offset + piece.size).result
                    inside = arith.CmpIOp(arith.CmpIPredicate.ult, ivs[dim], end).result
                    value = arith.SelectOp(inside, v, value).result
            memref.StoreOp(value, root, ivs)
            scf.ReduceOp([], 0)
    for piece in slabs:
        piece.writer.erase()


def _local(ivs: list, dim: int, piece: _Piece) -> list:
    """`ivs` in the piece's subview, the cat dim clamped into it (the other pieces' elements
    read somewhere valid; the select drops them)."""
    index = ir.IndexType.get()
    d = ivs[dim]
    if piece.offset:
        d = arith.MaxSIOp(d, arith.ConstantOp(index, piece.offset).result).result
        d = arith.SubIOp(d, arith.ConstantOp(index, piece.offset).result).result
    d = arith.MinSIOp(d, arith.ConstantOp(index, piece.size - 1).result).result
    return [d if k == dim else iv for k, iv in enumerate(ivs)]


def _value_at(piece: _Piece, local: list) -> ir.Value:
    """The piece's element at `local` (its subview's indices), computed here."""
    if piece.writer.name == "memref.copy":
        return memref.LoadOp(piece.writer.operands[0], local).result
    nest = piece.writer
    store = next(o for o in nested_ops(nest) if o.name == "memref.store")
    ivs = list(nest.regions[0].blocks[0].arguments)
    inside = {nest, *nested_ops(nest)}
    program = element_slice(store.operands[0], set(ivs), inside, {root_of(piece.view)})
    mapping = dict(zip(ivs, local))
    for op in program:
        clone = op.clone(ip=ir.InsertionPoint.current)
        for i, operand in enumerate(op.operands):
            if operand in mapping:
                clone.operands[i] = mapping[operand]
        mapping[op.results[0]] = clone.results[0]
    return mapping.get(store.operands[0], store.operands[0])


def _position(op: ir.Operation) -> int:
    return [o.operation for o in op.block.operations].index(op)
