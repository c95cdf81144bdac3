"""`cpu-pair-rows`: a row nest runs two rows per iteration, each lane loop of the row once for
both rows (unroll and jam of the innermost `scf.parallel` dim by 2).

A softmax row is a chain of short loops joined by horizontal reductions: the max loop, its
shuffle tree and broadcast, the exponentials, the sum's tree and a division, the normalisation.
Each join waits for the whole latency of its tree (tens of cycles) while the row's loops hold
too few instructions for the out-of-order window to start the next row. With two rows
interleaved, one row's tree latency overlaps the other row's work.

Legal because the iterations of an `scf.parallel` are independent (the nest has no reduction
results): the copies of the two rows' ops may interleave in any order that keeps each row's
own order. Jammed: top-level `scf.for`s with the same bounds for both rows and without regions
inside (their bodies run back to back per step, iter_args side by side); every other op is
cloned for each row in turn. One `llvm.intr.stacksave`/`stackrestore` pair serves both rows'
row buffers. Only for a static even row count from 0 with step 1 (no remainder row), and rows
of at most `MAX_ROW` elements (longer rows keep the window busy by themselves).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, scf

from aten_mlir.passes.ir import constant_int, defined_functions, nested_ops
from aten_mlir.passes.registry import ModulePass, register_pass

_STACK = ("llvm.intr.stacksave", "llvm.intr.stackrestore")
# Row bodies with more top-level ops than this are not paired (the body doubles in size).
MAX_BODY_OPS = 200
# Longest lane loop (elements) of a row that is paired.
MAX_ROW = 256


def _clone(op: ir.Operation, mapping: dict) -> ir.Operation:
    """`op` again at the insertion point, operands (nested ones too) looked up in `mapping`,
    which learns the clone's results."""
    new = op.clone()
    for inner in [new, *nested_ops(new)]:
        for i, v in enumerate(inner.operands):
            if v in mapping:
                inner.operands[i] = mapping[v]
    mapping.update(zip(op.results, new.results))
    return new


def _plain_loop(op: ir.Operation) -> bool:
    """An `scf.for` whose body has no regions (a lane loop)."""
    if op.name != "scf.for":
        return False
    return not any(len(o.operation.regions) for o in op.regions[0].blocks[0].operations)


def _jam(loop: ir.Operation, maps: list[dict]) -> bool:
    """One `scf.for` running `loop`'s body for each mapping in turn; False (nothing built)
    when the rows' bounds differ."""
    bounds = [[m.get(v, v) for v in list(loop.operands)[:3]] for m in maps]
    if any(b != bounds[0] for b in bounds[1:]):
        return False
    inits = [m.get(v, v) for m in maps for v in list(loop.operands)[3:]]
    fused = scf.ForOp(*bounds[0], inits)
    body = loop.regions[0].blocks[0]
    ops = [o.operation for o in body.operations]
    n = len(loop.results)
    carried = list(fused.inner_iter_args)
    yielded = []
    with ir.InsertionPoint(fused.body):
        for k, m in enumerate(maps):
            m[body.arguments[0]] = fused.induction_variable
            m.update(zip(list(body.arguments)[1:], carried[k * n : (k + 1) * n]))
            for op in ops[:-1]:
                _clone(op, m)
            yielded += [m.get(v, v) for v in ops[-1].operands]
        scf.YieldOp(yielded)
    for k, m in enumerate(maps):
        m.update(zip(loop.results, list(fused.results)[k * n : (k + 1) * n]))
    return True


def _pairable(nest: ir.Operation, rows: int) -> bool:
    if len(nest.results):
        return False
    d = len(nest.regions[0].blocks[0].arguments)
    lb, ub, step = (constant_int(nest.operands[k * d + d - 1]) for k in range(3))
    if lb != 0 or step != 1 or ub is None or ub < rows or ub % rows:
        return False
    ops = [o.operation for o in nest.regions[0].blocks[0].operations]
    if len(ops) > MAX_BODY_OPS or ops[-1].name != "scf.reduce" or len(ops[-1].operands):
        return False
    if sum(op.name == "llvm.intr.stacksave" for op in ops) > 1:
        return False
    # worth it only for rows of lane loops joined by horizontal steps, and short ones: a long
    # row's loops fill the out-of-order window by themselves (softmax of 1024-wide f32 rows
    # and LayerNorm+GELU of 768: 7-15% slower paired; 128/256 wide: 5-13% faster)
    loops = [op for op in ops if _plain_loop(op)]
    bounds = [constant_int(op.operands[1]) for op in loops]
    return len(loops) >= 2 and all(b is not None and b <= MAX_ROW for b in bounds)


def pair_rows(nest: ir.Operation, rows: int) -> None:
    body = nest.regions[0].blocks[0]
    d = len(body.arguments)
    ops = [o.operation for o in body.operations]
    with nest.location, ir.InsertionPoint(nest):
        step = arith.constant(ir.IndexType.get(), rows)
    nest.operands[2 * d + d - 1] = step
    iv = body.arguments[d - 1]
    with nest.location, ir.InsertionPoint(ops[0]):
        maps = [{}] + [
            {iv: arith.addi(iv, arith.constant(ir.IndexType.get(), k))} for k in range(1, rows)
        ]
    with nest.location, ir.InsertionPoint(ops[-1]):
        for op in ops[:-1]:
            if op.name in _STACK:
                new = _clone(op, maps[0])
                for m in maps[1:]:
                    m.update(zip(op.results, new.results))
            elif not (_plain_loop(op) and _jam(op, maps)):
                for m in maps:
                    _clone(op, m)
    for op in reversed(ops[:-1]):
        op.erase()


@register_pass
@dataclass(frozen=True)
class PairRows(ModulePass):
    """scf.parallel (..., row) step 1 {lane loops} -> step 2 {each lane loop for row and
    row + 1 in one scf.for}."""

    name: ClassVar[str] = "cpu-pair-rows"

    def run(self, module_op: ir.Operation) -> None:
        rows = int(os.environ.get("ATEN_MLIR_PAIR_ROWS", "2"))  # A/B knob: 0 = off
        if rows < 2:
            return
        with module_op.context:
            for func in defined_functions(module_op):
                block = func.regions[0].blocks[0]
                for op in [o.operation for o in block.operations]:
                    if op.name == "scf.parallel" and _pairable(op, rows):
                        pair_rows(op, rows)
