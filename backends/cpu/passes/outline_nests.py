"""`cpu-outline-loop-nests`: every top-level loop nest of a function becomes a private function.

With upstream `duplicate-function-elimination` after it, the LLVM lowering and the native build
see each distinct nest once: a 12-layer model runs the same nests 12 times (on GPT-2 small, 491
nests are 38 distinct ones), and lowering to the LLVM dialect, translating, `opt` and `llc` all
cost in proportion to the code. `opt` extracts and merges loops too (`loop-extract`,
`mergefunc`), but only after the copies went through every earlier step.

A nest's function takes the values the nest reads from outside (memrefs, sizes), in order of
first use, so that identical nests get identical signatures; constants are cloned in instead, so
that they stay constants for LLVM and do not tell nests apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import func

from aten_mlir.passes.ir import outside_uses, walked_ops
from aten_mlir.passes.registry import ModulePass, register_pass

_LOOPS = ("scf.for", "scf.parallel", "scf.forall", "scf.while", "affine.for", "affine.parallel")


def outline_nest(loop: ir.Operation, name: str, module_body: ir.Block, constants: set) -> None:
    """Moves `loop` into a new private `func.func @name` and calls that in its place; the
    values in `constants` (arith.constant results) are cloned in rather than passed."""
    # Every use is found before any operand changes: setting one makes the bindings hand out
    # new objects for the op, so a set of ops would no longer find it.
    uses = outside_uses(walked_ops(loop))
    outside = dict.fromkeys(v for _, _, v in uses)
    captured = [v for v in outside if v not in constants]
    with loop.context, loop.location:
        with ir.InsertionPoint(module_body):
            nest = func.FuncOp(name, ([v.type for v in captured], []))
            nest.sym_visibility = ir.StringAttr.get("private")
            entry = nest.add_entry_block()
        with ir.InsertionPoint(entry):
            ret = func.ReturnOp([])
        with ir.InsertionPoint(loop):
            func.CallOp([], ir.FlatSymbolRefAttr.get(name), captured)
        at_return = ir.InsertionPoint(ret)  # (clone's default place is next to the original)
        replacement = dict(zip(captured, entry.arguments))
        for value in outside:
            if value in constants:
                replacement[value] = value.owner.clone(ip=at_return).results[0]
    for op, index, value in uses:
        op.operands[index] = replacement[value]
    loop.move_before(ret)


@register_pass
@dataclass(frozen=True)
class AtenOutlineLoopNests(ModulePass):
    """Moves each top-level loop nest without results into a private function of its own."""

    name: ClassVar[str] = "cpu-outline-loop-nests"

    def run(self, module_op: ir.Operation) -> None:
        body = module_op.regions[0].blocks[0]
        functions = [op.operation for op in body.operations if op.operation.name == "func.func"]
        for function in functions:
            if not function.regions[0].blocks:
                continue  # a declaration
            prefix = ir.StringAttr(function.attributes["sym_name"]).value
            ops = [op.operation for b in function.regions[0].blocks for op in b.operations]
            constants = {op.results[0] for op in ops if op.name == "arith.constant"}
            loops = [op for op in ops if op.name in _LOOPS and not op.results]
            for k, loop in enumerate(loops):
                outline_nest(loop, f"{prefix}_nest{k}", body, constants)
