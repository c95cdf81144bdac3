"""`passes.ir.walk`: `nested_ops` lists what iterating regions, blocks and ops from Python lists
(pre-order, `root` excluded), and the ops it hands out can be rewritten after it."""

from __future__ import annotations

from mlir import ir

from aten_mlir.dialects import make_context
from aten_mlir.passes.ir import nested_ops, walked_ops

MODULE = """
func.func @f(%a: i32, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a) -> (i32) {
    %t = arith.constant true
    %b = scf.if %t -> (i32) {
      %y = arith.addi %x, %x : i32
      scf.yield %y : i32
    } else {
      %z = arith.muli %x, %x : i32
      scf.yield %z : i32
    }
    scf.yield %b : i32
  }
  return %r : i32
}
func.func private @g() -> ()
"""


def _iterated(root):
    """The order `nested_ops` keeps: an op, then the ops in its regions, in block order."""
    for region in root.regions:
        for block in region.blocks:
            for op in block.operations:
                yield op.operation
                yield from _iterated(op.operation)


def test_nested_ops_is_pre_order_without_the_root():
    context = make_context()
    module = ir.Module.parse(MODULE, context)
    root = module.operation
    ops = nested_ops(root)
    assert isinstance(ops, list)
    assert [o.name for o in ops] == [o.name for o in _iterated(root)]
    assert ops == list(_iterated(root))
    assert root not in ops
    names = [o.name for o in ops]
    # an op before the ops in its regions; then-branch before else-branch
    assert names.index("scf.for") < names.index("scf.if") < names.index("arith.addi")
    assert names.index("arith.addi") < names.index("arith.muli") < names.index("func.return")
    assert names[-1] == "func.func"  # @g, a declaration: nothing nested
    # nested in one op: only that op's regions
    loop = next(o for o in ops if o.name == "scf.for")
    assert [o.name for o in nested_ops(loop)] == [o.name for o in _iterated(loop)]
    assert sorted(o.name for o in walked_ops(root)) == sorted(names + ["builtin.module"])


def test_listed_ops_can_be_rewritten_after_the_walk():
    context = make_context()
    module = ir.Module.parse(MODULE, context)
    muls = [o for o in nested_ops(module.operation) if o.name == "arith.muli"]
    with context, muls[0].location, ir.InsertionPoint(muls[0]):
        add = ir.Operation.create(
            "arith.addi",
            results=[muls[0].results[0].type],
            operands=list(muls[0].operands),
        )
    muls[0].results[0].replace_all_uses_with(add.results[0])
    muls[0].erase()
    module.operation.verify()
    names = [o.name for o in nested_ops(module.operation)]
    assert "arith.muli" not in names and names.count("arith.addi") == 2
