"""Matmul calls -> the source and launch of a tiled `tl.dot` kernel.

`triton-outline-matmul` (before the loops stage, passes/outline_matmul.py) replaces each float
matmul with a call to `@aten_triton_matmul`, which the loop conversion leaves alone; the
launcher turns the call into one launch of the tiled kernel below: (BM x BN) output tiles,
K stepped by BK, accumulated in float32 by `tl.dot` (tensor cores: `wgmma` on sm_90, MFMA on
gfx942). The output buffer holds the fill the matmul accumulates into. float32 inputs follow
`torch.get_float32_matmul_precision()`: "highest" (torch's default) is IEEE fp32, else TF32.
"""

from __future__ import annotations

from mlir import ir

from ..products import INIT_ATTR, LAYOUT_ATTR, is_conv_call
from . import conv
from .kernel_types import Kernel, Param, param_signature
from .source_text import comment, integer


def tile_exprs(call: ir.Operation) -> list[str]:
    """The tile expression (in the kernel) of each dim of `call`'s C."""
    if is_conv_call(call):
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
# the A tiles; its result is `accqv`, which the tail reads (see epilogue.partner_of).
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
    is_conv = is_conv_call(call)
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
    if is_conv_call(call):
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
