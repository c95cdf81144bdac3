"""`cpu-vectorize-contractions`: float matmul-like linalg ops and convolutions on memrefs ->
register-tiled vector loop nests (the CPU's micro-kernels).

A contraction `C[b.., m.., n..] += A[b.., m.., k..] * B[b.., k.., n..]`, its indices sums of loop
dims times constants, becomes one of two kernels, chosen by which operand dim is contiguous:
- B and C along n (`a @ b`, a convolution's image and output along the columns): an
  outer-product kernel. An `MR x NR` block of C lives in vector registers across the k loop;
  each step broadcasts MR scalars of A and loads (a strided conv: gathers) NR lanes of B. The
  loops are blocked for the caches (rows, then columns, then k).
- A and B along k (`a @ b.T`, a linear layer's weight, `q @ k.T`): a dot kernel. A 4 x 4
  block of C keeps one vector of partial sums per element across k, reduced once at the end,
  so no operand is transposed in memory.
The kernel takes one m, n and k dim; the other dims (batch, heads, a conv's window) are loops
around it, which is sound because both kernels add into C. Ranges the register block does not
divide are the same kernel with a smaller static block (and masked lanes), so every shape runs
the vector code; `?` dims read their sizes at run time and end in one-row or masked remainders
(see `kernels`). bf16/f16 inputs accumulate into f32 (or their own type) through f32 fmas.
Other contractions stay for `loops`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from aten_mlir.backends.cpu.target import cpu_target
from aten_mlir.passes.ir import nested_ops
from aten_mlir.passes.linalg.generalize_products import NAMED_PRODUCTS
from aten_mlir.passes.registry import ModulePass, option, register_pass

from .amx import amx_emitter
from .amx_conv import amx_conv_emitter
from .conv import Im2colEmitter
from .conv_batch import batched_im2col_emitter
from .dot_kernel import DotKernel
from .fold_rows import fold_rows
from .kernel_choice import KernelChoice, PanelChoice, kernel_choice_emitter, packs_b
from .kernels import (
    Blocking,
    Contraction,
    Form,
    blocking_for,
    fill_only_if_k_empty,
    lane_stride,
    zero_fill_before,
)
from .narrow_dot import narrow_dot_emitter
from .outer_kernel import OuterKernel
from .outer_swap import SwapChoice, SwappedOuterKernel, swap_emitter
from .panel_prefetch import OuterPanelKernel, PackedKernel
from .row_stream import row_stream_emitter
from .staging import contiguous_type, stage_a_along_k, stage_c, strided_c
from .vnni_choice import vnni_emitter

_CONV = "linalg.conv_2d_nchw_fchw"
# A dynamic extent when choosing a kernel: a batch of rows, a sequence
_GUESS = 64


def _memref(v: ir.Value) -> ir.MemRefType | None:
    t = v.type
    return ir.MemRefType(t) if isinstance(t, ir.MemRefType) else None


_WIDE = (ir.F32Type, ir.F64Type)
_NARROW = (ir.BF16Type, ir.F16Type)


def _element_types_fit(types) -> bool:
    """f32 or f64 throughout; or bf16/f16 inputs with an f32 (or the same narrow) accumulator."""
    a, b, c = (t.element_type for t in types)
    if a != b:
        return False
    if isinstance(a, _WIDE):
        return c == a
    return isinstance(a, _NARROW) and (isinstance(c, ir.F32Type) or c == a)


def _innermost_contiguous(t: ir.MemRefType) -> bool:
    """The last dim has stride 1 (identity layout, or a strided layout ending in 1)."""
    if t.rank == 0:
        return False
    strides, _ = t.get_strides_and_offset()
    return strides[-1] == 1


def _form(e: ir.AffineExpr) -> Form | None:
    """`e` as a sum of dims times constants, or None (a constant term, a product of dims)."""
    if isinstance(e, ir.AffineDimExpr):
        return ((ir.AffineDimExpr(e).position, 1),)
    if isinstance(e, ir.AffineAddExpr):
        lhs, rhs = _form(ir.AffineAddExpr(e).lhs), _form(ir.AffineAddExpr(e).rhs)
        return lhs + rhs if lhs is not None and rhs is not None else None
    if isinstance(e, ir.AffineMulExpr):
        mul = ir.AffineMulExpr(e)
        lhs, rhs = _form(mul.lhs), mul.rhs
        if lhs is not None and len(lhs) == 1 and isinstance(rhs, ir.AffineConstantExpr):
            return ((lhs[0][0], lhs[0][1] * ir.AffineConstantExpr(rhs).value),)
    return None


def _indices_of(op: ir.Operation):
    """The (A, B, C) index forms of a product, and its reduction dims; else None."""
    if op.name == _CONV:
        sh, sw = list(ir.DenseIntElementsAttr(op.attributes["strides"]))
        dh, dw = list(ir.DenseIntElementsAttr(op.attributes["dilations"]))
        # dims: n f oh ow c kh kw
        image = (((0, 1),), ((4, 1),), ((2, sh), (5, dh)), ((3, sw), (6, dw)))
        weight = (((1, 1),), ((4, 1),), ((5, 1),), ((6, 1),))
        return (image, weight, tuple(((d, 1),) for d in range(4))), [4, 5, 6]
    if "indexing_maps" in op.attributes:
        index = []
        for attr in ir.ArrayAttr(op.attributes["indexing_maps"]):
            forms = tuple(_form(e) for e in ir.AffineMapAttr(attr).value.results)
            if any(f is None for f in forms):
                return None
            index.append(forms)
    elif op.name in NAMED_PRODUCTS:
        index = [tuple(((d, 1),) for d in dims) for dims in NAMED_PRODUCTS[op.name]]
    else:
        return None
    if op.name == "linalg.generic":
        iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
        reductions = [i for i, t in enumerate(iters) if "reduction" in t]
    else:
        reductions = [index[0][-1][0][0]]
    return tuple(index), reductions


def _is_mul_add(op: ir.Operation) -> bool:
    """The body is exactly `out + a * b` on the block's own arguments, each input maybe first
    widened by `arith.extf` (bf16/f16 inputs into an f32 accumulator)."""
    if op.name != "linalg.generic":
        return True  # a named product (mixed types: its inputs are cast to the output's)
    block = op.regions[0].blocks[0]
    body = [o.operation for o in block.operations]
    a, b, out = block.arguments
    inputs = {a, b}
    while body and body[0].name == "arith.extf" and body[0].operands[0] in (a, b):
        inputs.discard(body[0].operands[0])
        inputs.add(body[0].results[0])
        body = body[1:]
    if [o.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    mul, add, yld = body
    if set(mul.operands) != inputs or len(inputs) != 2:
        return False
    if {add.operands[0], add.operands[1]} != {out, mul.results[0]}:
        return False
    return yld.operands[0] == add.results[0]


def match(op: ir.Operation, contiguous_c: bool = False) -> Contraction | None:
    """The contraction `op` computes, when the micro-kernels can run it; else None. Dynamic
    extents are None in `extents`, with the memref and axis to read them from in `sizes`.
    `contiguous_c`: as if C were in the identity layout (see `staging`)."""
    if op.name not in ("linalg.generic", _CONV, *NAMED_PRODUCTS) or len(op.operands) != 3:
        return None
    types = [_memref(v) for v in op.operands]
    if len(op.results) or any(t is None for t in types):
        return None  # on tensors
    if contiguous_c:
        types[2] = contiguous_type(types[2])
    found = _indices_of(op)
    if not _element_types_fit(types) or found is None or not _is_mul_add(op):
        return None
    index, reductions = found
    extents, sizes = {}, {}
    for forms, t, v in zip(index, types, op.operands):
        for axis, (form, size) in enumerate(zip(forms, t.shape)):
            if len(form) == 1 and form[0][1] == 1:
                d = form[0][0]
                dynamic = ir.ShapedType.is_dynamic_size(size)
                if d not in extents or (extents[d] is None and not dynamic):
                    extents[d] = None if dynamic else size
                    sizes[d] = (v, axis)
    dims = {d for forms in index for form in forms for d, _ in form}
    if set(extents) != dims or dims != set(range(len(dims))) or 0 in extents.values():
        return None
    extents = tuple(extents[d] for d in range(len(dims)))
    sizes = tuple(sizes[d] for d in range(len(dims)))
    a, b, c = op.operands
    for swap in (False, True):  # the product commutes: either input may play A
        order = (1, 0, 2) if swap else (0, 1, 2)
        plan = _plan([index[i] for i in order], reductions, [types[i] for i in order], extents)
        if plan is not None:
            a, b = (b, a) if swap else (a, b)
            at = tuple(index[i] for i in order)
            return Contraction(op, a, b, c, at, extents, *plan, sizes=sizes)
    return None


def _dims(forms) -> set[int]:
    return {d for form in forms for d, _ in form}


def _lanes_along(forms, d: int, alone: bool, stride: int = 1) -> bool:
    """Consecutive values of dim `d` are elements `stride` apart: `d` appears once, with that
    coefficient, in the last index (alone there, when `alone`)."""
    last = forms[-1]
    if (d, stride) not in last or (alone and len(last) != 1):
        return False
    return sum(d == e for form in forms for e, _ in form) == 1


def _plan(index, reductions, types, extents):
    """(kernel, outer dims, m, n, k) for `C[b.., m.., n..] += A[b.., m.., k..] * B[b.., k.., n..]`:
    the kernel's own m, n and k, and every other dim as a loop around it (the kernels add into C,
    so an outer reduction dim is just another loop); None when neither kernel fits."""
    a_dims, b_dims, c_dims = map(_dims, index)
    if not reductions or any(k in c_dims or k not in a_dims or k not in b_dims for k in reductions):
        return None
    if a_dims | b_dims | c_dims != c_dims | set(reductions):
        return None
    c_order = [form[0][0] for form in index[2]]
    if any(len(form) != 1 for form in index[2]) or len(set(c_order)) != len(c_order):
        return None
    m_dims = [d for d in c_order if d in a_dims and d not in b_dims]
    n_dims = [d for d in c_order if d in b_dims and d not in a_dims]
    if not m_dims or not n_dims:
        return None
    size = lambda d: _GUESS if extents[d] is None else extents[d]  # noqa: E731
    # ties (two `?` dims: a batch and a sequence) go to A's row dim (next to k in memory), then
    # to the later dim: A [b, s, k] runs rows of s, not 2 rows of b per trip of an s loop
    a_row = index[0][-2][0][0] if len(index[0]) > 1 and len(index[0][-2]) == 1 else None
    biggest = lambda dims: max(  # noqa: E731
        dims, key=lambda d: (size(d), d == a_row, dims.index(d))
    )
    a_t, b_t, c_t = types
    n = c_order[-1]
    k = index[0][-1][0][0]
    stride = lane_stride(index[1], n)  # a strided conv's image: gathered lanes
    if (
        n in n_dims
        and stride
        and _lanes_along(index[1], n, False, stride)
        and _contiguous(b_t, c_t)
    ):
        kernel, m, k = "outer", biggest(m_dims), biggest(reductions)
    elif (
        k in reductions
        and _lanes_along(index[0], k, True)
        and _lanes_along(index[1], k, True)
        and _contiguous(a_t, b_t)
    ):
        kernel, m, n = "dot", biggest(m_dims), biggest(n_dims)
        # The dot kernel ends each element of C with a reduction across lanes, a dozen
        # instructions; copying B^T (k x n, per trip of the outer loops) is cheaper when k is
        # short next to m, as in attention scores (k = the head dim).
        if c_order[-1] in n_dims and packs_b(size(k), size(m)) and _contiguous(c_t):
            kernel, n = "packed", c_order[-1]
    else:
        return None
    outer = [d for d in c_order if d not in (m, n)] + [d for d in reductions if d != k]
    return kernel, tuple(outer), m, n, k


def _contiguous(*types) -> bool:
    return all(map(_innermost_contiguous, types))


@register_pass
@dataclass(frozen=True)
class VectorizeContractions(ModulePass):
    """Rewrites float mul-add contractions on memrefs (static or `?` dims; f32/f64, or bf16/f16
    inputs) as vector micro-kernels."""

    name: ClassVar[str] = "cpu-vectorize-contractions"
    cpu: str = option("", "-mcpu name whose vector width sets the register block; '': the build's")

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for op in list(nested_ops(module_op)):
                if strided_c(op) and match(op, contiguous_c=True) is not None:
                    stage_c(op)
                if match(op) is None:
                    stage_a_along_k(op, match)
                fold_rows(op, match, self.cpu)
        found = [c for c in map(match, nested_ops(module_op)) if c is not None]
        if not found:
            return
        blocks = _blocking(self.cpu)
        with module_op.context:
            for c in found:
                types = [_memref(v) for v in c.op.operands]
                fill = zero_fill_before(c)  # before the emitters add ops in between
                with c.op.location, ir.InsertionPoint(c.op):
                    emitter = (
                        amx_conv_emitter(c.op, types, self.cpu)
                        or batched_im2col_emitter(c.op, types, blocks)
                        or narrow_dot_emitter(c, types, blocks, self.cpu)
                        or amx_emitter(c, types, self.cpu)
                        or vnni_emitter(c, types, blocks, self.cpu)
                        or row_stream_emitter(c, types, blocks)
                        or swap_emitter(c, types, blocks, lambda c=c, t=types: _fma(c, t, blocks))
                        or _fma(c, types, blocks)
                    )
                    _fold_zero_fill(fill, emitter)
                    emitter.emit()
                c.op.erase()


def _fma(c: Contraction, types, blocks: Blocking):
    """The FMA kernel the plan chose for `c` (both under a run-time test when a `?` extent
    could change the choice)."""
    kernel = {"dot": DotKernel, "packed": PackedKernel}.get(c.kernel, OuterPanelKernel)
    return kernel_choice_emitter(c, types, blocks) or kernel(c, types, blocks)


def _blocking(cpu: str) -> Blocking:
    """The register blocks of `cpu`'s vector width (an -mcpu name; '' the build's CPU): 8 x 2
    zmm on AVX-512, 6 x 2 ymm on AVX2 rather than 512-bit code split in halves."""
    return blocking_for(cpu_target(cpu or None).vector_bytes)


def _fold_zero_fill(fill: ir.Operation | None, emitter) -> None:
    """Drops the zero fill of C before a product our FMA kernels write whole: their first k
    block starts from zeros instead of loading C (a pass over C less: 14% of q @ k.T S=384).
    Only when every C element is written in that block: no reduction dim among the loops around
    the kernel (a conv's window); a `?` k keeps the fill for k = 0 only."""
    if fill is None or type(emitter) not in (
        OuterKernel,
        PackedKernel,
        OuterPanelKernel,
        DotKernel,
        Im2colEmitter,
        KernelChoice,
        PanelChoice,
        SwappedOuterKernel,
        SwapChoice,
    ):
        return
    k = emitter.c
    c_dims = {d for form in k.index[2] for d, _ in form}
    if any(d not in c_dims for d in k.outer):
        return
    emitter.c_starts_zero = True
    if k.extents[k.k] is None:
        fill_only_if_k_empty(fill, k)  # a `?` k may be 0 at run time: C is then the fill
    else:
        fill.erase()
