"""The `tl.dot` product calls of loop-level IR: what `triton-outline-matmul` leaves in place of a
matmul or a convolution, and the attributes passes and codegen read on them.

A product is a `func.call` of a private declaration whose name starts with `MATMUL_CALLEE`
(operands A, B, C; `LAYOUT_ATTR` says how they map onto the kernel's tile) or `CONV_CALLEE`
(x, w, out; `CONV_ATTR` holds "sh,sw,dh,dw,ph,pw"). The loop passes fuse around these calls
and the codegen turns each into one tiled kernel; both read the calls through this module.
"""

from __future__ import annotations

from mlir import ir

MATMUL_CALLEE = "aten_triton_matmul"
CONV_CALLEE = "aten_triton_conv"
LAYOUT_ATTR = "aten.dot_layout"
INIT_ATTR = "aten.dot_init"  # the constant C was filled with, when the outlining folded the fill
CONV_ATTR = "aten.conv"  # "sh,sw,dh,dw,ph,pw"
WINDOW_ATTR = "aten.window_map"  # set by triton-fold-padding on the reader it rewrote
LOW_ATTR = "aten.window_low"


def is_conv_call(op: ir.Operation) -> bool:
    return op.name == "func.call" and ir.FlatSymbolRefAttr(
        op.attributes["callee"]
    ).value.startswith(CONV_CALLEE)


def is_matmul_call(op: ir.Operation) -> bool:
    """A call of the tl.dot kernel (a matmul or a conv)."""
    if op.name != "func.call":
        return False
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    return callee.startswith(MATMUL_CALLEE) or callee.startswith(CONV_CALLEE)
