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

from . import conv
from .kernel_types import Kernel, Param, param_signature
from .source_text import comment, integer

CALLEE = "aten_triton_matmul"
LAYOUT_ATTR = "aten.dot_layout"
INIT_ATTR = "aten.dot_init"  # the constant C was filled with, when the outlining folded the fill
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
                conv_found = conv.conv_params(op)
                if conv_found is not None:
                    x, w, out, spec = conv_found
                    found.append((op, conv.CALLEE, [x, w, out], conv.CONV_ATTR, spec))
                    continue
                if not _dot_types(op):
                    continue
                layout = _layout(op)
                if layout is not None:
                    found.append((op, CALLEE, list(op.operands), LAYOUT_ATTR, layout))
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
    from .kernel import all_ops
    from .kernel_memory import root_of
    from .padding import fill_scalar

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


def is_matmul_call(op: ir.Operation) -> bool:
    """A call of the tl.dot kernel (a matmul or a conv)."""
    if op.name != "func.call":
        return False
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    return callee.startswith(CALLEE) or callee.startswith(conv.CALLEE)


def tile_exprs(call: ir.Operation) -> list[str]:
    """The tile expression (in the kernel) of each dim of `call`'s C."""
    if conv.is_conv_call(call):
        return conv.TILE_EXPRS
    layout = ir.StringAttr(call.attributes[LAYOUT_ATTR]).value
    tokens = layout.split(";")[2].split(":")[1].split(",")
    names = ["b0", "b1", "rm[:, None]", "rn[None, :]"]
    exprs = {int(t): n for n, t in zip(names, tokens) if t != "x"}
    return [exprs[d] for d in sorted(exprs)]


_TEMPLATE = """
@triton.jit
def {name}(a, b, c, M, N, K, K2, B1, sa0, sa1, sam, sak, sak2, sb0, sb1, sbk, sbn, sbk2,
        sc0, sc1, scm, scn,{pair_params}{extra}
        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PRECISION: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    b0 = tl.program_id(2) // B1
    b1 = tl.program_id(2) % B1
    rk = tl.arange(0, BK)
    a_rows = a + b0 * sa0 + b1 * sa1 + rm[:, None] * sam
    b_cols = b + b0 * sb0 + b1 * sb1 + rn[None, :] * sbn
    acc = tl.full((BM, BN), {init}, tl.float32)  # not tl.zeros: see launch.stdlib
{pair_init}    for k2 in range(0, K2):
        for k in range(0, K, BK):
            kk = k + rk
            a_mask = (rm[:, None] < M) & (kk[None, :] < K)
            b_mask = (kk[:, None] < K) & (rn[None, :] < N)
            x = tl.load(a_rows + k2 * sak2 + kk[None, :] * sak, mask=a_mask, other=0.0)
            y = tl.load(b_cols + k2 * sbk2 + kk[:, None] * sbk, mask=b_mask, other=0.0)
            acc = tl.dot(x, y, acc, input_precision=PRECISION)
{pair_dot}    cp = c + b0 * sc0 + b1 * sc1 + rm[:, None] * scm + rn[None, :] * scn
    cmask = (rm[:, None] < M) & (rn[None, :] < N)
"""
# A partner product (same A, another B and C: SwiGLU's gate beside its up projection) shares
# the A tiles; its result is `accqv`, which the tail reads (see pairs.py).
_PAIR_PARAMS = " bq, sbq0, sbq1, sbqk, sbqn, sbqk2, cq, scq0, scq1, scqm, scqn,"
PAIR_STRIDES = "sbq0 sbq1 sbqk sbqn sbqk2 scq0 scq1 scqm scqn".split()
_PAIR_INIT = """    bq_cols = bq + b0 * sbq0 + b1 * sbq1 + rn[None, :] * sbqn
    accq = tl.full((BM, BN), {init}, tl.float32)
"""
_PAIR_DOT = """            yq = tl.load(bq_cols + k2 * sbqk2 + kk[:, None] * sbqk, mask=b_mask,
                         other=0.0)
            accq = tl.dot(x, yq, accq, input_precision=PRECISION)
"""
_PAIR_RESULT = """    cqp = cq + b0 * scq0 + b1 * scq1 + rm[:, None] * scqm + rn[None, :] * scqn
    accqv = H.cast_to(accq, cq.dtype.element_ty)
"""
OPERAND_TILES = ("x", "y")  # the names of the A and B tiles in both templates' K loop
_ACCUMULATE = "    acc += tl.load(cp, mask=cmask, other=0.0).to(tl.float32)\n"
_STORE = "    tl.store(cp, accv, mask=cmask)\n"


def kernel(
    name: str,
    call: ir.Operation,
    locations: list[str],
    tail=None,
    store_c=True,
    partner=None,
    prologue=None,
) -> Kernel:
    """The kernel of `call` (a matmul or a conv): C = init + A @ B (init: the fill the
    outlining folded, else C's contents), then `tail` (an epilogue's KernelWriter) on the
    tile; C stored if `store_c`. `partner`: (a product of the same A and init, whether its C
    is stored), computed alongside. `prologue`: (its writer, its code, the operand it
    computes) in place of that operand's load."""
    params = [
        Param(n, "memref", v, sig=param_signature("memref", v))
        for n, v in zip("abc", call.operands)
    ]
    if partner is not None:
        params += [
            Param(n, "memref", v, sig=param_signature("memref", v))
            for n, v in zip(("bq", "cq"), list(partner[0].operands)[1:])
        ]
    init = call.attributes[INIT_ATTR] if INIT_ATTR in call.attributes else None
    extra = (prologue[0].params if prologue else []) + (tail.params if tail is not None else [])
    is_conv = conv.is_conv_call(call)
    init_text = repr(ir.FloatAttr(init).value) if init is not None else "0.0"
    pair = partner is not None
    source = (conv.TEMPLATE if is_conv else _TEMPLATE).format(
        name=name,
        extra="".join(f" {p.name}," for p in extra),
        init=init_text,
        pair_params=_PAIR_PARAMS if pair else "",
        pair_init=_PAIR_INIT.format(init=init_text) if pair else "",
        pair_dot=_PAIR_DOT if pair else "",
    )
    reads, writes = {"a", "b"} | ({"c"} if init is None else set()), {"c"} if store_c else set()
    if prologue is not None:
        pw, code, k = prologue
        source = _replace_operand_load(source, k, code)
        reads = (reads - {"ab"[k]}) | {p for p in pw.read if f"tl.load({p} +" in code}
        locations = [*locations, *(x for x in pw.locations if x not in locations)]
    if init is None:
        source += _ACCUMULATE
    source += "    accv = H.cast_to(acc, c.dtype.element_ty)\n"
    if store_c:
        source += _STORE
    if pair:
        source += _PAIR_RESULT + ("    tl.store(cqp, accqv, mask=cmask)\n" if partner[1] else "")
        reads.add("bq")
        writes |= {"cq"} if partner[1] else set()
    if tail is not None:
        tail._drop_dead_stores()
        source += "\n".join(line for line in tail.lines if line) + "\n"
        body = "\n".join(tail.lines)
        reads |= {p for p in tail.read if f"tl.load({p} +" in body}
        writes |= {p for p in tail.written if f"tl.store({p} +" in body}
        locations = [*locations, *(x for x in tail.locations if x not in locations)]
    header = "\n".join(comment(loc) for loc in locations)
    mode = "conv" if is_conv else "matmul"
    return Kernel(name, mode, header + source, params + extra, [], locations, reads, writes)


def _replace_operand_load(source: str, operand: int, code: str) -> str:
    """`source` (a product template) with the load of `operand`'s tile replaced by `code`."""
    lines = source.split("\n")
    tile = f"{OPERAND_TILES[operand]} = "
    start = next(i for i, x in enumerate(lines) if x.strip().startswith(tile))
    end, depth = start, 0
    while True:  # the load may continue on the next lines
        depth += lines[end].count("(") - lines[end].count(")")
        if depth == 0:
            break
        end += 1
    return "\n".join(lines[:start] + [code.rstrip("\n")] + lines[end + 1 :])


def launch_args(
    w, call: ir.Operation, extra: str = "", rows: bool = False, partner=None
) -> tuple[str, str]:
    """(grid, arguments) of the launch: operands viewed as (B0, B1, M, K) x (B0, B1, K, N) into
    (B0, B1, M, N) by the layout the outlining recorded (permutes, unit dims, stride-0
    broadcasts: views only, no copy); `rows`: a row tail needs whole rows in a tile."""
    if conv.is_conv_call(call):
        return conv.launch_args(w, call, extra)
    w.emit(f"mm_a, mm_b, mm_c = {', '.join(_views(w, call))}")
    w.emit("mm_a = mm_a.expand(mm_c.shape[0], mm_c.shape[1], -1, -1, -1)")
    w.emit("mm_b = mm_b.expand(mm_c.shape[0], mm_c.shape[1], -1, -1, -1)")
    pair = ""
    if partner is not None:
        w.emit(f"mm_bq, mm_cq = {', '.join(_views(w, partner)[1:])}")
        w.emit("mm_bq = mm_bq.expand(mm_c.shape[0], mm_c.shape[1], -1, -1, -1)")
        pair = "mm_bq, *mm_bq.stride(), mm_cq, *mm_cq.stride(), "
    w.emit("B0, B1, M, K, K2 = mm_a.shape")
    w.emit("N = mm_b.shape[3]")
    w.emit(f"BM, BN, BK = {'row_blocks' if rows else 'matmul_blocks'}(M, N, K)")
    grid = "(cdiv(M, BM), cdiv(N, BN), B0 * B1)"
    args = (
        "mm_a, mm_b, mm_c, M, N, K, K2, B1, *mm_a.stride(), *mm_b.stride(), *mm_c.stride(), "
        + pair
        + (f"{extra}, " if extra else "")
        + "BM=BM, BN=BN, BK=BK, PRECISION=matmul_precision(mm_a)"
    )
    return grid, args


def _views(w, call: ir.Operation) -> list[str]:
    """`call`'s operands as the (B0, B1, M|K, K|N, K2) views the template indexes."""
    layout = ir.StringAttr(call.attributes[LAYOUT_ATTR]).value
    views = []
    for operand, spec in zip(call.operands, layout.split(";")):
        tokens = spec.split(":")[1].split(",")
        order = [integer(t) for t in tokens if t != "x"]  # an attribute: text until checked
        view = f"{w.v(operand)}.permute({', '.join(order)},)"
        for pos, t in enumerate(tokens):
            if t == "x":
                view += f".unsqueeze({pos})"
        views.append(view)
    return views
