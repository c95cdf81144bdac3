"""`aten-reuse-dead-inputs`: an elementwise generic writes over an input that dies there, not
into a new `tensor.empty`.

Each lowering gives its result a fresh `tensor.empty`, so bufferization allocates a buffer per
op even when an input of the same shape is never read again (attention's scores after the
scale, a softmax's exponentials after the normalisation). Every such buffer is a new `malloc`
of megabytes whose pages the kernel faults in on first touch, call after call. Writing over the
dead input is what eager's in-place ops and Inductor's buffer reuse do; one-shot bufferization
still checks the write (it copies if anything else could read the buffer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from ..ir import nested_ops
from ..registry import ModulePass, register_pass

# Ops whose result is a view of their first operand (the buffer is the source's).
_VIEWS = ("tensor.expand_shape", "tensor.collapse_shape")


def _fresh(value: ir.Value) -> bool:
    """`value` lives in a buffer this function allocated (a `tensor.empty` at the root of its
    linalg inits and reshapes), never in an argument's: the caller's memory is not ours."""
    while True:
        owner = value.owner
        if isinstance(owner, ir.Block):
            return False
        op = owner.operation
        if op.name == "tensor.empty":
            return True
        if op.name in _VIEWS:
            value = op.operands[0]
        elif op.name.startswith("linalg.") and len(op.results):
            index = next(i for i, r in enumerate(op.results) if r == value)
            value = op.operands[len(op.operands) - len(op.results) + index]
        else:
            return False


def _dies_here(value: ir.Value, op: ir.Operation) -> bool:
    """`value` is read by nothing after `op`: every other use is in an op before `op` in its
    block (a loop body around `op` would clobber it on the first iteration, so `value` must be
    defined in that block too)."""
    if isinstance(value.owner, ir.Block) or value.owner.operation.block != op.block:
        return False
    for use in value.uses:
        user = getattr(use.owner, "operation", use.owner)
        while user is not None and user.block != op.block:
            user = user.parent  # a use nested in an op of `op`'s block: that op
            user = getattr(user, "operation", user)
        if user is None:
            return False
        if user != op and not user.is_before_in_block(op):
            return False
    return True


def _is_empty(value: ir.Value) -> bool:
    return not isinstance(value.owner, ir.Block) and value.owner.name == "tensor.empty"


def reuse_dead_inputs(op: ir.Operation) -> None:
    """Each output of the all-parallel generic `op` whose init is a `tensor.empty` its body
    does not read takes instead an input with the same type and map that dies at `op`."""
    iterators = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    if not all("parallel" in t for t in iterators):
        return
    maps = list(ir.ArrayAttr(op.attributes["indexing_maps"]))
    num_outputs = len(op.results)
    num_inputs = len(op.operands) - num_outputs
    args = op.regions[0].blocks[0].arguments
    taken: set[ir.Value] = set()
    for k in range(num_inputs, num_inputs + num_outputs):
        init = op.operands[k]
        if not _is_empty(init) or list(args[k].uses):
            continue
        for i in range(num_inputs):
            x = op.operands[i]
            if x in taken or x.type != init.type or maps[i] != maps[k]:
                continue
            if _dies_here(x, op) and _fresh(x):
                op.operands[k] = x
                taken.add(x)
                if not list(init.uses):
                    init.owner.operation.erase()
                break


@register_pass
@dataclass(frozen=True)
class ReuseDeadInputs(ModulePass):
    """Elementwise linalg.generic with a tensor.empty init -> the same generic writing over a
    dead input of its type and map (bufferized in place)."""

    name: ClassVar[str] = "aten-reuse-dead-inputs"

    def run(self, module_op: ir.Operation) -> None:
        generics = [
            op
            for op in nested_ops(module_op)
            if op.name == "linalg.generic"
            and op.results
            and all(isinstance(r.type, ir.RankedTensorType) for r in op.results)
        ]
        with module_op.context:
            for op in generics:
                reuse_dead_inputs(op)
