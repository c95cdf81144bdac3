"""Matmuls for the Triton target: `linalg.matmul`/`batch_matmul` on memrefs -> a tiled `tl.dot`
kernel.

`triton-outline-matmul` (before the loops stage) replaces each float matmul with a call to
`@aten_triton_matmul`, which the loop conversion leaves alone; the launcher turns the call into
one launch of the tiled kernel below: (BM x BN) output tiles, K stepped by BK, accumulated in
float32 by `tl.dot` (tensor cores: `wgmma` on sm_90, MFMA on gfx942). The output buffer holds
the fill the matmul accumulates into. float32 inputs follow
`torch.get_float32_matmul_precision()`: "highest" (torch's default) is IEEE fp32, else TF32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import func

from aten_mlir.passes.registry import ModulePass, nested_ops, register_pass

from .kernel_types import Kernel, Param, param_signature

CALLEE = "aten_triton_matmul"
LAYOUT_ATTR = "aten.dot_layout"
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
                if not _dot_types(op):
                    continue
                layout = _layout(op)
                if layout is not None:
                    found.append((op, layout))
        if not found:
            return
        with module_op.context, ir.Location.unknown():
            declared = {}
            for op, layout in found:
                types = [o.type for o in op.operands]
                key = tuple(str(t) for t in types)
                name = declared.get(key)
                if name is None:
                    name = f"{CALLEE}_{len(declared)}"
                    declared[key] = name
                    with ir.InsertionPoint.at_block_begin(module_op.regions[0].blocks[0]):
                        decl = func.FuncOp(name, ir.FunctionType.get(types, []))
                        decl.attributes["sym_visibility"] = ir.StringAttr.get("private")
                with op.location, ir.InsertionPoint(op):
                    call = func.CallOp([], name, list(op.operands))
                call.attributes[LAYOUT_ATTR] = ir.StringAttr.get(layout)
                op.erase()


def _dot_types(op: ir.Operation) -> bool:
    if op.name not in ("linalg.matmul", "linalg.batch_matmul", "linalg.generic"):
        return False
    types = [o.type for o in op.operands]
    if not all(isinstance(t, ir.MemRefType) for t in types) or len(types) != 3:
        return False
    return all(str(ir.MemRefType(t).element_type) in _DOT_TYPES for t in types)


def _layout(op: ir.Operation) -> str | None:
    """How the operands map onto [batch0, batch1, rows, cols] of a (B0, B1, M, K) x (B0, B1,
    K, N) product: "A:p;B:p;C:p", each p listing, in that order, the operand dim or `x` for a
    unit dim broadcast to C's batch size; None when `op` is not such a product. Extra row (col)
    dims become batch dims that B (A) does not have: a linear layer on [batch, seq, features]."""
    if op.name == "linalg.matmul" and "indexing_maps" not in op.attributes:
        return "A:x,x,0,1;B:x,x,0,1;C:x,x,0,1"
    if op.name == "linalg.batch_matmul" and "indexing_maps" not in op.attributes:
        return "A:x,0,1,2;B:x,0,1,2;C:x,0,1,2"
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
    if len(reduction) != 1 or not rows or not cols:
        return None
    k = reduction[0]
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
    return f"A:{spell(a, [row, k])};B:{spell(b, [k, col])};C:{spell(c, [row, col])}"


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


def is_matmul_call(op: ir.Operation) -> bool:
    return op.name == "func.call" and ir.FlatSymbolRefAttr(
        op.attributes["callee"]
    ).value.startswith(CALLEE)


_TEMPLATE = """
@triton.jit
def {name}(a, b, c, M, N, K, B1, sa0, sa1, sam, sak, sb0, sb1, sbk, sbn, sc0, sc1, scm, scn,
        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PRECISION: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    b0 = tl.program_id(2) // B1
    b1 = tl.program_id(2) % B1
    rk = tl.arange(0, BK)
    a_rows = a + b0 * sa0 + b1 * sa1 + rm[:, None] * sam
    b_cols = b + b0 * sb0 + b1 * sb1 + rn[None, :] * sbn
    acc = tl.full((BM, BN), 0.0, tl.float32)  # not tl.zeros: see launch.stdlib
    for k in range(0, K, BK):
        kk = k + rk
        a_mask = (rm[:, None] < M) & (kk[None, :] < K)
        b_mask = (kk[:, None] < K) & (rn[None, :] < N)
        x = tl.load(a_rows + kk[None, :] * sak, mask=a_mask, other=0.0)
        y = tl.load(b_cols + kk[:, None] * sbk, mask=b_mask, other=0.0)
        acc = tl.dot(x, y, acc, input_precision=PRECISION)
    cp = c + b0 * sc0 + b1 * sc1 + rm[:, None] * scm + rn[None, :] * scn
    cmask = (rm[:, None] < M) & (rn[None, :] < N)
    acc += tl.load(cp, mask=cmask, other=0.0).to(tl.float32)
    tl.store(cp, acc.to(c.dtype.element_ty), mask=cmask)
"""


def kernel(name: str, call: ir.Operation, locations: list[str]) -> Kernel:
    params = [
        Param(n, "memref", v, sig=param_signature("memref", v))
        for n, v in zip("abc", call.operands)
    ]
    ops = [f"# {loc}" for loc in locations]
    source = "\n".join(ops) + _TEMPLATE.format(name=name)
    return Kernel(name, "matmul", source, params, [], locations, {"a", "b", "c"}, {"c"})


def launch_args(w, call: ir.Operation) -> tuple[str, str]:
    """(grid, arguments) of the launch: operands viewed as (B0, B1, M, K) x (B0, B1, K, N) into
    (B0, B1, M, N) by the layout the outlining recorded (permutes, unit dims, stride-0
    broadcasts: views only, no copy)."""
    layout = ir.StringAttr(call.attributes[LAYOUT_ATTR]).value
    views = []
    for operand, spec in zip(call.operands, layout.split(";")):
        tokens = spec.split(":")[1].split(",")
        order = [t for t in tokens if t != "x"]
        view = f"{w.v(operand)}.permute({', '.join(order)},)"
        for pos, t in enumerate(tokens):
            if t == "x":
                view += f".unsqueeze({pos})"
        views.append(view)
    w.emit(f"mm_a, mm_b, mm_c = {', '.join(views)}")
    w.emit("mm_a = mm_a.expand(mm_c.shape[0], mm_c.shape[1], -1, -1)")
    w.emit("mm_b = mm_b.expand(mm_c.shape[0], mm_c.shape[1], -1, -1)")
    w.emit("B0, B1, M, K = mm_a.shape")
    w.emit("N = mm_b.shape[3]")
    w.emit("BM, BN, BK = matmul_blocks(M, N, K)")
    grid = "(cdiv(M, BM), cdiv(N, BN), B0 * B1)"
    args = (
        "mm_a, mm_b, mm_c, M, N, K, B1, *mm_a.stride(), *mm_b.stride(), *mm_c.stride(), "
        "BM=BM, BN=BN, BK=BK, PRECISION=matmul_precision(mm_a)"
    )
    return grid, args
