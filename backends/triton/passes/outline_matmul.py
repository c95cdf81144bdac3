"""`triton-outline-matmul`: float products on memrefs -> calls the codegen turns into tiled
`tl.dot` kernels.

Runs before the loops stage. Each `linalg.matmul`/`batch_matmul`, and each `linalg.generic`
that is a product summed over one or two reduction dims (`out + a * b`, operands any
permutation of batch, row, col and reduction dims), becomes a call of a private
`@aten_triton_matmul_<n>` declaration with its layout recorded (`products.LAYOUT_ATTR`); the
loop conversion leaves the call alone. A 2-D NCHW x FCHW convolution generic (plain, or the
form `triton-fold-padding` left) becomes a call of `@aten_triton_conv_<n>` instead
(`products.CONV_ATTR`). The fill of C right before a product is folded into the call
(`products.INIT_ATTR`) when it fills C with a float constant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import func

from aten_mlir.passes.registry import ModulePass, nested_ops, register_pass

from ..loop_ir import all_ops, root_of
from ..products import (
    CONV_ATTR,
    CONV_CALLEE,
    INIT_ATTR,
    LAYOUT_ATTR,
    LOW_ATTR,
    MATMUL_CALLEE,
    WINDOW_ATTR,
)
from .fold_padding import fill_scalar

_DOT_TYPES = ("f16", "bf16", "f32")


@register_pass
@dataclass(frozen=True)
class OutlineMatmul(ModulePass):
    """Replaces float linalg.matmul/batch_matmul on memrefs with calls to @aten_triton_matmul."""

    name: ClassVar[str] = "triton-outline-matmul"

    def run(self, module_op: ir.Operation) -> None:
        found = []
        for fn in module_op.regions[0].blocks[0].operations:
            for op in nested_ops(fn.operation):
                conv_found = conv_params(op)
                if conv_found is not None:
                    x, w, out, spec = conv_found
                    found.append((op, CONV_CALLEE, [x, w, out], CONV_ATTR, spec))
                    continue
                if not _dot_types(op):
                    continue
                layout = _layout(op)
                if layout is not None:
                    found.append((op, MATMUL_CALLEE, list(op.operands), LAYOUT_ATTR, layout))
        if not found:
            return
        with module_op.context, ir.Location.unknown():
            declared = {}
            for op, callee, operands, attr, spec in found:
                types = [o.type for o in operands]
                key = (callee, *(str(t) for t in types))
                name = declared.get(key)
                if name is None:
                    name = f"{callee}_{len(declared)}"
                    declared[key] = name
                    with ir.InsertionPoint.at_block_begin(module_op.regions[0].blocks[0]):
                        decl = func.FuncOp(name, ir.FunctionType.get(types, []))
                        decl.attributes["sym_visibility"] = ir.StringAttr.get("private")
                init = _fold_fill(op)
                with op.location, ir.InsertionPoint(op):
                    call = func.CallOp([], name, operands)
                call.attributes[attr] = ir.StringAttr.get(spec)
                if init is not None:
                    call.attributes[INIT_ATTR] = init
                op.erase()


def _fold_fill(op: ir.Operation) -> ir.FloatAttr | None:
    """Erases the fill of C that the product accumulates into, when it is the last op before
    the product to touch C's buffer and fills exactly C with a float constant; returns that
    constant (the kernel starts its accumulator there instead of loading C)."""
    c = op.operands[len(op.operands) - 1]
    root = root_of(c)
    ops = [o.operation for o in op.block.operations]
    for prev in reversed(ops[: ops.index(op)]):
        touched = [
            o
            for inner in all_ops(prev)
            for o in inner.operands
            if isinstance(o.type, ir.MemRefType) and root_of(o) == root
        ]
        if not touched:
            continue
        value = fill_scalar(prev)
        if value is None or prev.operands[1] != c or isinstance(value.owner, ir.Block):
            return None
        const = value.owner.operation
        if const.name != "arith.constant" or not isinstance(value.type, ir.FloatType):
            return None
        attr = ir.FloatAttr(const.attributes["value"])
        prev.erase()
        return attr
    return None


def _dot_types(op: ir.Operation) -> bool:
    if op.name not in ("linalg.matmul", "linalg.batch_matmul", "linalg.generic"):
        return False
    types = [o.type for o in op.operands]
    if not all(isinstance(t, ir.MemRefType) for t in types) or len(types) != 3:
        return False
    return all(str(ir.MemRefType(t).element_type) in _DOT_TYPES for t in types)


def _layout(op: ir.Operation) -> str | None:
    """How the operands map onto [batch0, batch1, rows, cols] of a (B0, B1, M, K, K2) x (B0,
    B1, K, N, K2) product summed over K and K2 (K2 a second reduction dim, a unit one for most
    products): "A:p;B:p;C:p", each p listing, in that order, the operand dim or `x` for a
    unit dim broadcast to C's batch size; None when `op` is not such a product. Extra row (col)
    dims become batch dims that B (A) does not have: a linear layer on [batch, seq, features]."""
    if op.name == "linalg.matmul" and "indexing_maps" not in op.attributes:
        return "A:x,x,0,1,x;B:x,x,0,1,x;C:x,x,0,1"
    if op.name == "linalg.batch_matmul" and "indexing_maps" not in op.attributes:
        return "A:x,0,1,2,x;B:x,0,1,2,x;C:x,0,1,2"
    if op.name != "linalg.generic" or not _is_mul_add(op):
        return None
    dims = _operand_dims(op)
    if dims is None:
        return None
    a, b, c = dims
    iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    reduction = [i for i, t in enumerate(iters) if "reduction" in t]
    batch = [d for d in c if d in a and d in b]
    rows = [d for d in c if d in a and d not in b]
    cols = [d for d in c if d in b and d not in a]
    if len(reduction) not in (1, 2) or not rows or not cols:
        return None
    k = reduction[-1]
    k2 = reduction[0] if len(reduction) == 2 else None
    lead = batch + rows[:-1] + cols[:-1]
    if (
        len(lead) > 2
        or sorted(a) != sorted(batch + rows + reduction)
        or sorted(b) != sorted(batch + reduction + cols)
        or sorted(c) != sorted(batch + rows + cols)
    ):
        return None
    lead = [None] * (2 - len(lead)) + lead

    def spell(operand, tail):
        return ",".join(
            "x" if d is None or d not in operand else str(operand.index(d)) for d in lead + tail
        )

    row, col = rows[-1], cols[-1]
    return f"A:{spell(a, [row, k, k2])};B:{spell(b, [k, col, k2])};C:{spell(c, [row, col])}"


def _operand_dims(op: ir.Operation):
    """The iteration dim of each operand dim, per operand (None unless all are plain dims)."""
    out = []
    for m in ir.ArrayAttr(op.attributes["indexing_maps"]):
        d = []
        for e in ir.AffineMapAttr(m).value.results:
            if not isinstance(e, ir.AffineDimExpr):
                return None
            d.append(ir.AffineDimExpr(e).position)
        if len(set(d)) != len(d):
            return None
        out.append(d)
    return out


def _is_mul_add(op: ir.Operation) -> bool:
    """The body is `out + a * b` (in either operand order), nothing else."""
    block = op.regions[0].blocks[0]
    body = [o.operation for o in block.operations]
    if len(body) != 3 or [o.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    a, b, out = block.arguments
    mul, add, yld = body
    return (
        {mul.operands[0], mul.operands[1]} == {a, b}
        and {add.operands[0], add.operands[1]} == {out, mul.results[0]}
        and yld.operands[0] == add.results[0]
    )


# -- convolutions ------------------------------------------------------------------------------


def conv_params(op: ir.Operation):
    """(x, w, out, "sh,sw,dh,dw,ph,pw") when `op` is a 2-D NCHW x FCHW convolution generic
    (plain, or with its padded input folded); else None."""
    if op.name != "linalg.generic" or len(op.results):
        return None
    parts = _operands(op)
    if parts is None:
        return None
    x, w, out, window, w_map, out_map, low, body, block = parts
    iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    if [o.name for o in body[-3:]] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return None
    if body[-2].operands[0] != block.arguments[-1] and body[-2].operands[1] != block.arguments[-1]:
        return None
    if len(window.results) != 4 or len(iters) != 7 or any(lo != 0 for lo in low[:2]):
        return None
    n, c = _dim(window.results[0]), _dim(window.results[1])
    hw = [_window(window.results[2]), _window(window.results[3])]
    if n is None or c is None or None in hw:
        return None
    (oh, sh, kh, dh), (ow, sw, kw, dw) = hw
    f = _dim(out_map.results[1]) if len(out_map.results) == 4 else None
    if [_dim(e) for e in out_map.results] != [n, f, oh, ow]:
        return None
    if [_dim(e) for e in w_map.results] != [f, c, kh, kw]:
        return None
    if any("reduction" not in iters[d] for d in (c, kh, kw)):
        return None
    if not all(
        str(ir.MemRefType(v.type).element_type) in ("f16", "bf16", "f32") for v in (x, w, out)
    ):
        return None
    return x, w, out, f"{sh},{sw},{dh},{dw},{low[2]},{low[3]}"


def _operands(op: ir.Operation):
    """(x, w, out, window map, w map, out map, low pads, body ops, block) of a conv-shaped
    generic, plain or with its padded input folded (a `memref.load` in the body)."""
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    block = op.regions[0].blocks[0]
    body = [o.operation for o in block.operations]
    if WINDOW_ATTR in op.attributes:
        if len(op.operands) != 2:
            return None
        window = ir.AffineMapAttr(op.attributes[WINDOW_ATTR]).value
        low = list(ir.DenseI64ArrayAttr(op.attributes[LOW_ATTR]))
        loads = [o for o in body if o.name == "memref.load"]
        if len(loads) != 1 or len(body) < 3 or body[-3].name != "arith.mulf":
            return None
        if block.arguments[0] not in list(body[-3].operands):
            return None
        w_map, out_map = maps
        return (
            loads[0].operands[0],
            op.operands[0],
            op.operands[1],
            window,
            w_map,
            out_map,
            low,
            body,
            block,
        )
    if len(op.operands) != 3 or len(body) != 3:
        return None
    window, w_map, out_map = maps
    return *op.operands, window, w_map, out_map, [0, 0, 0, 0], body, block


def _dim(e) -> int | None:
    return ir.AffineDimExpr(e).position if isinstance(e, ir.AffineDimExpr) else None


def _term(e) -> tuple[int, int] | None:
    """(dim, coefficient) of `d` or `d * k`."""
    if isinstance(e, ir.AffineDimExpr):
        return _dim(e), 1
    if isinstance(e, ir.AffineMulExpr):
        m = ir.AffineMulExpr(e)
        if isinstance(m.lhs, ir.AffineDimExpr) and isinstance(m.rhs, ir.AffineConstantExpr):
            return _dim(m.lhs), ir.AffineConstantExpr(m.rhs).value
    return None


def _window(e) -> tuple | None:
    """(out dim, stride, kernel dim, dilation) of `oh * s + kh * d`."""
    if not isinstance(e, ir.AffineAddExpr):
        return None
    add = ir.AffineAddExpr(e)
    lhs, rhs = _term(add.lhs), _term(add.rhs)
    if lhs is None or rhs is None:
        return None
    return (*lhs, *rhs)
