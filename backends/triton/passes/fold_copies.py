"""`triton-fold-copies-into-products`: a permuting copy whose only readers are `tl.dot`
products -> the products read the copy's source through their operand layout.

GPT-2 splits its fused QKV projection into heads with a transpose per operand; at loop level
the key and value transposes are a nest copying a strided view of the projection into a new
buffer that only the attention products read. A product's operands may have any strides (the
layout attribute names which operand dim plays each role), so the copy can go: the product
takes the source view and the permutation moves into its layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import func

from aten_mlir.passes.registry import ModulePass, function_blocks, register_pass

from ..loop_ir import ops_after, overwrites, refills, root_of, top_in, users_of, writes_between
from ..products import LAYOUT_ATTR, is_matmul_call


@register_pass
@dataclass(frozen=True)
class FoldCopiesIntoProducts(ModulePass):
    """Replaces a product operand that a permuting copy filled by the copy's source."""

    name: ClassVar[str] = "triton-fold-copies-into-products"

    def run(self, module_op: ir.Operation) -> None:
        module_block = module_op.regions[0].blocks[0]
        with module_op.context, ir.Location.unknown():
            for block in function_blocks(module_op):
                # a fold erases product calls: rescan the block until nothing folds
                while any(
                    _fold(module_block, op, op.operands[i])
                    for op in [o.operation for o in block.operations]
                    if is_matmul_call(op) and LAYOUT_ATTR in op.attributes
                    for i in (0, 1)
                ):
                    pass


def _fold(module_block: ir.Block, call: ir.Operation, buffer: ir.Value) -> bool:
    if isinstance(buffer.owner, ir.Block) or buffer.owner.operation.name != "memref.alloc":
        return False
    found = _copy_into(buffer, call)
    if found is None:
        return False
    store, load, perm, products = found
    source = load.operands[0]
    for product in products:
        if writes_between(store.parent, product, {root_of(source)}, _operand_read):
            return False
    for product in products:
        _retarget(module_block, product, buffer, source, perm)
    store.parent.erase()
    return True


def _copy_into(buffer: ir.Value, call: ir.Operation):
    """(store, load, perm, product calls) when the nest that last filled `buffer` before `call`
    stores `load(source)[perm(ivs)]` at every element and only products read it as A or B."""
    nest = _last_writer(buffer, call)
    if nest is None or not overwrites(nest, buffer):
        return None
    products = _products_reading(nest, buffer)
    store = next(u for u in users_of(buffer) if u.name == "memref.store" and _within(u, nest))
    if not products or store.operands[1] != buffer:
        return None
    ivs = list(nest.regions[0].blocks[0].arguments)
    if list(store.operands[2:]) != ivs or store.parent != nest:
        return None
    value = store.operands[0]
    if isinstance(value.owner, ir.Block) or value.owner.operation.name != "memref.load":
        return None
    load = value.owner.operation
    indices = list(load.operands[1:])
    if load.parent != nest or len(indices) != len(ivs) or set(indices) != set(ivs):
        return None  # not a permutation of the nest's ivs
    if _inside(load.operands[0], nest) or len(list(nest.regions[0].blocks[0].operations)) != 3:
        return None  # the nest does more than the copy (load, store, scf.reduce)
    return store, load, [indices.index(iv) for iv in ivs], products


def _last_writer(buffer: ir.Value, call: ir.Operation) -> ir.Operation | None:
    """The top-level op before `call` that last touched `buffer`'s allocation."""
    tops = {top_in(u, call.block) for u in users_of(buffer)}
    before = [o.operation for o in call.block.operations]
    before = before[: before.index(call)]
    return next((op for op in reversed(before) if op in tops), None)


def _products_reading(nest: ir.Operation, buffer: ir.Value) -> list | None:
    """The products reading what `nest` stored in `buffer` (as A or B, the buffer itself), up to
    its next full overwrite (the bufferizer reuses buffers); None when anything else reads it."""
    later = ops_after(nest)
    horizon = next(
        (i for i, op in enumerate(later) if refills(op, buffer)),
        len(later),
    )
    window = set(later[:horizon])
    products = []
    for user in users_of(buffer):
        top = top_in(user, nest.block)
        if top not in window or user.name == "memref.dealloc":
            continue
        if not (is_matmul_call(user) and LAYOUT_ATTR in user.attributes) or top != user:
            return None
        if user.operands[2] == buffer or all(v != buffer for v in list(user.operands)[:2]):
            return None
        products.append(user)
    return products


def _within(op: ir.Operation, nest: ir.Operation) -> bool:
    return top_in(op, nest.block) == nest


def _inside(v: ir.Value, nest: ir.Operation) -> bool:
    owner = v.owner
    op = owner.owner.operation if isinstance(owner, ir.Block) else owner.operation
    while op is not None and op.name != "func.func":
        if op == nest:
            return True
        op = op.parent
    return False


def _operand_read(op: ir.Operation, i: int) -> bool:
    return is_matmul_call(op) and i in (0, 1)  # a product's A or B: read, not written


def _retarget(module_block, call: ir.Operation, buffer, source, perm: list) -> None:
    """`call` with `source` for `buffer` (whose dim j is the source's dim perm[j])."""
    operands = list(call.operands)
    parts = dict(p.split(":") for p in ir.StringAttr(call.attributes[LAYOUT_ATTR]).value.split(";"))
    for i, role in ((0, "A"), (1, "B")):
        if operands[i] == buffer:
            operands[i] = source
            parts[role] = ",".join(
                e if e == "x" else str(perm[int(e)]) for e in parts[role].split(",")
            )
    callee = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
    name = _declare(module_block, callee, [v.type for v in operands])
    with call.location, ir.InsertionPoint(call):
        new = func.CallOp([], name, operands).operation
    for attr in [call.attributes[i] for i in range(len(call.attributes))]:
        if attr.name != "callee":
            new.attributes[attr.name] = attr.attr
    new.attributes[LAYOUT_ATTR] = ir.StringAttr.get(";".join(f"{k}:{v}" for k, v in parts.items()))
    call.erase()


def _declare(module_block: ir.Block, callee: str, types: list) -> str:
    """A private declaration of `callee`'s kind taking `types` (found or added)."""
    fn_type = ir.FunctionType.get(types, [])
    names = set()
    for op in module_block.operations:
        op = op.operation
        if op.name != "func.func":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        names.add(name)
        if name.startswith(callee) and str(op.attributes["function_type"]) == f"{fn_type}":
            return name
    k = 0
    while f"{callee}_f{k}" in names:
        k += 1
    with ir.InsertionPoint.at_block_begin(module_block):
        decl = func.FuncOp(f"{callee}_f{k}", fn_type)
        decl.attributes["sym_visibility"] = ir.StringAttr.get("private")
    return f"{callee}_f{k}"
