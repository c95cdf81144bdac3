"""The outer kernel's B: read in place, or copied block by block as panels [block_n / NR,
block_k, NR] (GotoBLAS's packing, see outer_kernel); the copy of a B whose lanes run along n
(a B along k is transposed into panels by transposed_panels).

The copy is one load and store per element of B; in place, every m block's tiles read B again,
a row of B apart each k step. Which pays depends on how B's rows meet the cache sets and on
whether B stays in cache between m blocks more than on the rows of C (reads_b_in_place).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, vector

from .kernels import Blocking, Contraction, lane_stride

# Outer kernels whose B rows are not a multiple of ALIASING_STRIDE bytes apart, with B at most
# IN_PLACE_MAX_B_BYTES, read B in place at any rows (reads_b_in_place; A/B switch)
IN_PLACE_UNALIASED_B = True
ALIASING_STRIDE = 4096
IN_PLACE_MAX_B_BYTES = 16 << 20
# The panel copy loads a panel inside B's columns unmasked (A/B switch): the copy computed a
# mask per vector, its loads waiting on it; x[64,768] @ W[768,2304] 1.78 -> 1.29 ms, [128,768]
# @ [768,3072] 3.29 -> 2.87, [256,768] @ [768,3072] 5.87 -> 5.38 (1 thread, same process)
WHOLE_PANEL_LOADS = True
# The copy runs panels outer, k inner: each panel written front to back, B read 128 B a row;
# k outer wrote every panel of the block (32 KiB apart, one L1 set) per k step. 1 thread, same
# process, k outer -> panels outer: [128,4096] @ [4096,11008] 64.3 -> 59.7 ms, [128,4096] @
# [4096,1024] 6.38 -> 6.01, [64,3072] @ [3072,3072] 7.75 -> 7.45, [512,1024]^2 5.16 -> 5.08
PANELS_OUTER = True


def reads_b_in_place(c: Contraction, blocks: Blocking) -> bool:
    """Whether the f32 outer kernel on AVX-512 reads B in place whatever its rows: neither B's
    rows nor A's k steps are a multiple of ALIASING_STRIDE apart, and all of B is at most
    IN_PLACE_MAX_B_BYTES, so the tiles' k steps spread over the cache sets and B stays in
    L2/L3 for every m block. There the panel copy costs more than it saves (1 thread, same
    process, panels -> in place: x[64,768] @ W[768,2304] 1.22 -> 1.08 ms, [64,3072] @
    [3072,768] 1.97 -> 1.64, [256,768] @ [768,768] 1.27 -> 1.18, [512,512]^2 1.13 -> 1.06,
    [1024,768] @ [768,2304] 15.8 -> 15.1); B rows 4 KiB apart ([*, 1024], [*, 3072] columns:
    4-10% slower in place), an A along m 4 KiB apart per k (a_pack copies it), or a B streamed
    from memory once per m block ([128,4096] @ [4096,11008] 58 -> 62 ms) keep the copy.
    Narrow types (the copy widens B once) and AVX2 blocks were not measured: they keep it."""
    if not IN_PLACE_UNALIASED_B or c.kernel != "outer" or blocks.vector_bytes < 64:
        return False
    k, n = c.extents[c.k], c.extents[c.n]
    if k is None or n is None or lane_stride(c.index[1], c.n) != 1:
        return False
    b_row, a_step = _k_stride_bytes(c.b, c.index[1], c.k), _k_stride_bytes(c.a, c.index[0], c.k)
    if b_row is None or a_step is None or b_row % ALIASING_STRIDE == 0:
        return False
    if a_step % ALIASING_STRIDE == 0:
        return False
    types = (ir.MemRefType(v.type).element_type for v in (c.a, c.b, c.c))
    if not all(isinstance(t, ir.F32Type) for t in types):
        return False
    return k * n * 4 <= IN_PLACE_MAX_B_BYTES


def _k_stride_bytes(operand: ir.Value, forms, k: int) -> int | None:
    """Bytes between the operand's elements at k and k + 1, None when a stride is `?`."""
    t = ir.MemRefType(operand.type)
    strides, _ = t.get_strides_and_offset()
    total = 0
    for form, stride in zip(forms, strides):
        coefficient = dict(form).get(k, 0)
        if coefficient and stride == ir.ShapedType.get_dynamic_stride_or_offset():
            return None
        total += coefficient * stride
    return total * t.element_type.width // 8


def pack_panels(e, ivs, panels, bn, bk, nr) -> None:
    """panels[p, kk, :] = B[bk + kk, bn + p * nr :][:nr], lanes past n zero; `e` is the
    OuterKernel (its B has lanes along n)."""
    c = e.c
    k_stop, n_left, p_stop = e.panel_bounds(bn, bk, nr)
    stride = lane_stride(e.b_index, c.n)
    outer_bound, inner_bound = (p_stop, k_stop) if PANELS_OUTER else (k_stop, p_stop)
    outer = scf.ForOp(e.index(0), outer_bound, e.index(1))
    with ir.InsertionPoint(outer.body):
        inner = scf.ForOp(e.index(0), inner_bound, e.index(1))
        with ir.InsertionPoint(inner.body):
            p, kk = outer.induction_variable, inner.induction_variable
            if not PANELS_OUTER:
                p, kk = kk, p
            first = arith.muli(p, e.index(nr))

            def copy(masked: bool):
                for j in range(0, nr, e.lanes):
                    at = arith.addi(bn, arith.addi(first, e.index(j)))
                    left = e.lanes
                    if masked:
                        left = arith.maxsi(
                            arith.subi(n_left, arith.addi(first, e.index(j))),
                            e.index(0),
                        )
                    ivs_b = {**ivs, c.k: arith.addi(bk, kk), c.n: at}
                    value = e._load_lanes(e.b, e._at(1, ivs_b, {}), left, stride)
                    vector.store(value, panels, [p, kk, e.index(j)])

            if WHOLE_PANEL_LOADS:
                # a panel inside B's columns: whole vector loads, no mask per vector
                whole = arith.cmpi(arith.CmpIPredicate.sle, arith.addi(first, e.index(nr)), n_left)
                branch = scf.IfOp(whole, has_else=True)
                for block, masked in ((branch.then_block, False), (branch.else_block, True)):
                    with ir.InsertionPoint(block):
                        copy(masked)
                        scf.YieldOp([])
            else:
                copy(True)
            scf.YieldOp([])
        scf.YieldOp([])
