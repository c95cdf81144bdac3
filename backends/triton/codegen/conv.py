"""2-D convolutions (NCHW input, FCHW filter) on memrefs -> an implicit-GEMM `tl.dot` kernel.

The product is (N*OH*OW) x (C*KH*KW) times (C*KH*KW) x F: a tile of output pixels times a tile
of filters, the input window gathered by address arithmetic (no im2col buffer) and padding
read as masked-out zeros. `triton-outline-matmul` (passes/outline_matmul.py) outlines a conv
when its generic is the plain windowed `out + x * w`, or the form `triton-fold-padding` left
(x loaded in the body, the window map and low pads recorded as attributes).
"""

from __future__ import annotations

from mlir import ir

from ..products import CONV_ATTR
from .source_text import integer

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
