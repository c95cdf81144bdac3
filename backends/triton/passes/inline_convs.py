"""`triton-inline-small-convs`: a convolution with a short reduction whose only readers are
loop nests -> its sum computed at each read, and the conv's launch and output buffer gone.

A ResNet stem convolves 3 input channels (27 products per output) and a max pool reads the
result next: the conv's tensor-core kernel writes 4x the pool's output and the pool reads it
all back. Computing each element the pool reads where it reads it (a 27-term loop, padding
read as zeros) costs ~2x the conv's arithmetic on a tensor nobody keeps, and saves that
write and read; the readers must read each element a few times at most.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, memref, scf

from aten_mlir.passes.registry import ModulePass, function_blocks, register_pass

from ..codegen import epilogue
from ..loop_ir import (
    HOISTABLE,
    const_int,
    ops_after,
    refills,
    root_of,
    top_in,
    users_of,
    writes_between,
)
from ..products import CONV_ATTR, INIT_ATTR, is_conv_call, is_matmul_call
from .view_indices import indices_in, reaches

_MAX_K = 32  # products per output element
_MAX_READS = 3  # reads per output element, over all readers


@register_pass
@dataclass(frozen=True)
class InlineSmallConvs(ModulePass):
    """Replaces each read of a short-reduction conv's output by the sum it holds."""

    name: ClassVar[str] = "triton-inline-small-convs"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for block in function_blocks(module_op):
                for call in [o.operation for o in block.operations]:
                    if is_conv_call(call):
                        _inline(call)


def _inline(call: ir.Operation) -> None:
    x, w, out = call.operands
    if INIT_ATTR not in call.attributes or call.parent.name != "func.func":
        return  # accumulates into C's contents; or in a loop, which runs the readers again
    types = [ir.MemRefType(v.type) for v in (x, w, out)]
    if not all(t.has_static_shape for t in types):
        return
    c, kh, kw = types[1].shape[1:]
    if c * kh * kw > _MAX_K:
        return
    loads = _loads(call, out)
    if not loads:
        return
    ep = epilogue.find(call, ops_after(call))
    if ep is not None and any(top_in(ld, call.block) in ep.nests for ld in loads):
        if not _joins_previous(call, ep):
            return  # that reader runs on the conv's tile, reading the sum from registers
    for load in loads:
        at = list(load.operands[1:])
        n, f, oh, ow = indices_in(load.operands[0], at, out, ir.InsertionPoint(load))
        with ir.InsertionPoint(load), load.location:
            value = _conv_at(call, n, f, oh, ow)
        load.results[0].replace_all_uses_with(value)
        load.erase()
    call.erase()


def _joins_previous(call: ir.Operation, ep) -> bool:
    """Without `call`, its epilogue nest would run on the tile of the product before it (a
    shortcut conv after a block's second conv: both then stay in registers)."""
    ops = [o.operation for o in call.block.operations]
    skipped = HOISTABLE | {"memref.dealloc"}
    prev = next((o for o in reversed(ops[: ops.index(call)]) if o.name not in skipped), None)
    if prev is None or not is_matmul_call(prev):
        return False
    between = ops[ops.index(prev) + 1 : ops.index(ep.nest)]
    if any(o != call and o.name not in HOISTABLE for o in between):
        return False
    return epilogue.reads_tile(prev, ep.nest)


def _loads(call: ir.Operation, out: ir.Value) -> list:
    """The loads of `out` that can each compute their element: every reader of the buffer
    until its next refill or free is a load in a loop nest after the call, nothing in between
    writes the conv's operands, and the loads read each element `_MAX_READS` times at most."""
    root = root_of(out)
    if isinstance(root.owner, ir.Block) or root.owner.operation.name != "memref.alloc":
        return []
    later = ops_after(call)
    horizon = next((i for i, op in enumerate(later) if refills(op, out)), len(later))
    position = {op: i for i, op in enumerate(later)}
    operands = {root_of(v) for v in call.operands[:2]}
    loads, reads = [], 0
    for user in users_of(root):
        if user == call or user.name == "memref.dealloc":
            continue
        top = top_in(user, call.block)
        if top is None or top not in position:
            return []  # read before the call
        if position[top] >= horizon:
            continue  # reads the next tensor the bufferizer put there
        if user.name != "memref.load" or top.name != "scf.parallel":
            return []
        if not reaches(user.operands[0], out) or writes_between(call, top, operands, _reads_only):
            return []
        trips = _trips(user, top)
        if trips is None:
            return []
        loads.append(user)
        reads += trips
    return loads if reads <= _MAX_READS * math.prod(ir.MemRefType(out.type).shape) else []


def _reads_only(op: ir.Operation, index: int) -> bool:
    """A product's A and B operands are only read."""
    return is_matmul_call(op) and index < 2


def _trips(load: ir.Operation, top: ir.Operation) -> int | None:
    """How many times `load` runs: the product of its enclosing loops' static trip counts."""
    total, op = 1, load.parent
    while True:
        if op.name not in ("scf.for", "scf.parallel"):
            return None  # a branch: counted as always taken would be wrong either way
        n = (len(op.operands) - len(op.results)) // 3 if op.name == "scf.parallel" else 1
        ops = list(op.operands)
        for k in range(n):
            lb, ub, step = (const_int(ops[k + j * n]) for j in range(3))
            if None in (lb, ub, step) or step <= 0:
                return None
            total *= max(0, -(-(ub - lb) // step))
        if op == top:
            return total
        op = op.parent


def _conv_at(call: ir.Operation, n, f, oh, ow) -> ir.Value:
    """The conv's output element (n, f, oh, ow): init + the window's products, accumulated in
    f32 like the tensor-core kernel, padding read as zeros."""
    x, w, out = call.operands
    _, _, ih_size, iw_size = ir.MemRefType(x.type).shape
    _, c_size, kh_size, kw_size = ir.MemRefType(w.type).shape
    spec = ir.StringAttr(call.attributes[CONV_ATTR]).value
    sh, sw, dh, dw, ph, pw = (int(s) for s in spec.split(","))
    f32 = ir.F32Type.get()
    index = ir.IndexType.get()

    def const(v: int):
        return arith.constant(index, v)

    init = arith.constant(f32, ir.FloatAttr(call.attributes[INIT_ATTR]).value)
    zero = arith.constant(f32, 0.0)
    over_c = scf.ForOp(const(0), const(c_size), const(1), [init])
    with ir.InsertionPoint(over_c.body):
        over_kh = scf.ForOp(const(0), const(kh_size), const(1), [over_c.inner_iter_args[0]])
        with ir.InsertionPoint(over_kh.body):
            over_kw = scf.ForOp(const(0), const(kw_size), const(1), [over_kh.inner_iter_args[0]])
            with ir.InsertionPoint(over_kw.body):
                c, kh, kw = (loop.induction_variable for loop in (over_c, over_kh, over_kw))
                ih = _window(oh, kh, sh, dh, ph, const)
                iw = _window(ow, kw, sw, dw, pw, const)
                inside = arith.andi(_within(ih, ih_size, const), _within(iw, iw_size, const))
                at = [n, c, _clamp(ih, ih_size, const), _clamp(iw, iw_size, const)]
                xv, wv = _f32(memref.load(x, at)), _f32(memref.load(w, [f, c, kh, kw]))
                term = arith.select(inside, arith.mulf(xv, wv), zero)
                scf.yield_([arith.addf(over_kw.inner_iter_args[0], term)])
            scf.yield_(list(over_kw.results))
        scf.yield_(list(over_kh.results))
    result = over_c.results[0]
    elem = ir.MemRefType(out.type).element_type
    return result if elem == f32 else arith.truncf(elem, result)


def _window(o, k, stride: int, dilation: int, pad: int, const):
    at = arith.addi(arith.muli(o, const(stride)), arith.muli(k, const(dilation)))
    return arith.subi(at, const(pad))


def _within(i, size: int, const):
    lo = arith.cmpi(arith.CmpIPredicate.sge, i, const(0))
    return arith.andi(lo, arith.cmpi(arith.CmpIPredicate.slt, i, const(size)))


def _clamp(i, size: int, const):
    return arith.minsi(arith.maxsi(i, const(0)), const(size - 1))


def _f32(v):
    f32 = ir.F32Type.get()
    return v if v.type == f32 else arith.extf(f32, v)
