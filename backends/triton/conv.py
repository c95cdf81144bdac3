"""2-D convolutions (NCHW input, FCHW filter) on memrefs -> an implicit-GEMM `tl.dot` kernel.

The product is (N*OH*OW) x (C*KH*KW) times (C*KH*KW) x F: a tile of output pixels times a tile
of filters, the input window gathered by address arithmetic (no im2col buffer) and padding
read as masked-out zeros. `triton-outline-matmul` outlines a conv when its generic is the
plain windowed `out + x * w`, or the form `triton-fold-padding` left (x loaded in the body,
the window map and low pads recorded as attributes).
"""

from __future__ import annotations

from mlir import ir

from .source_text import integer

CALLEE = "aten_triton_conv"
CONV_ATTR = "aten.conv"  # "sh,sw,dh,dw,ph,pw"
WINDOW_ATTR = "aten.window_map"  # set by triton-fold-padding on the reader it rewrote
LOW_ATTR = "aten.window_low"

TILE_EXPRS = ["cn[:, None]", "rn[None, :]", "coh[:, None]", "cow[:, None]"]

# (no parameter may be named H: that is the helpers' namespace in generated code)
TEMPLATE = """
@triton.jit
def {name}(a, b, c, NB, C, IH, IW, F, OH, OW, KH, KW, sa0, sa1, sa2, sa3, sb0, sb1, sb2, sb3,
        sc0, sc1, sc2, sc3, SH, SW, DH, DW, PH, PW,{extra}
        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PRECISION: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    M = NB * OH * OW
    K = C * KH * KW
    cow = rm % OW
    coh = (rm // OW) % OH
    cn = rm // (OW * OH)
    rk = tl.arange(0, BK)
    acc = tl.full((BM, BN), {init}, tl.float32)  # not tl.zeros: see launch.stdlib
    for k in range(0, K, BK):
        kk = k + rk
        kc = kk // (KH * KW)
        kh = (kk // KW) % KH
        kw = kk % KW
        ih = coh[:, None] * SH + kh[None, :] * DH - PH
        iw = cow[:, None] * SW + kw[None, :] * DW - PW
        a_mask = (rm[:, None] < M) & (kk[None, :] < K) & (ih >= 0) & (ih < IH) & (iw >= 0)
        a_mask = a_mask & (iw < IW)
        x = tl.load(a + cn[:, None] * sa0 + kc[None, :] * sa1 + ih * sa2 + iw * sa3,
                    mask=a_mask, other=0.0)
        b_mask = (kk[:, None] < K) & (rn[None, :] < F)
        y = tl.load(b + rn[None, :] * sb0 + kc[:, None] * sb1 + kh[:, None] * sb2
                    + kw[:, None] * sb3, mask=b_mask, other=0.0)
        acc = tl.dot(x, y, acc, input_precision=PRECISION)
    cp = c + cn[:, None] * sc0 + rn[None, :] * sc1 + coh[:, None] * sc2 + cow[:, None] * sc3
    cmask = (rm[:, None] < M) & (rn[None, :] < F)
"""


def is_conv_call(op: ir.Operation) -> bool:
    return op.name == "func.call" and ir.FlatSymbolRefAttr(
        op.attributes["callee"]
    ).value.startswith(CALLEE)


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


def launch_args(w, call: ir.Operation, extra: str = "") -> tuple[str, str]:
    """(grid, arguments) of the launch of conv `call`."""
    x, f, out = (w.v(v) for v in call.operands)
    spec = ir.StringAttr(call.attributes[CONV_ATTR]).value
    sh, sw, dh, dw, ph, pw = (integer(x) for x in spec.split(","))  # text until checked
    w.emit(f"NB, C, IH, IW = {x}.shape")
    w.emit(f"F, KH, KW = {f}.shape[0], {f}.shape[2], {f}.shape[3]")
    w.emit(f"OH, OW = {out}.shape[2], {out}.shape[3]")
    w.emit("M, N = NB * OH * OW, F")
    w.emit("BM, BN, BK = matmul_blocks(M, N, C * KH * KW)")
    w.emit("B0 = B1 = 1")
    grid = "(cdiv(M, BM), cdiv(N, BN), 1)"
    args = (
        f"{x}, {f}, {out}, NB, C, IH, IW, F, OH, OW, KH, KW, *{x}.stride(), *{f}.stride(), "
        f"*{out}.stride(), {sh}, {sw}, {dh}, {dw}, {ph}, {pw}, "
        + (f"{extra}, " if extra else "")
        + f"BM=BM, BN=BN, BK=BK, PRECISION=matmul_precision({x})"
    )
    return grid, args
