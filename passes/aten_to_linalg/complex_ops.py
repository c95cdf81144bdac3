"""Complex numbers built from and taken apart into real tensors: `complex`, `view_as_complex`,
`view_as_real` -> linalg.generic(complex.create / re / im).

The two views become copies: programs reaching here are functional (torch.export), so no write
through the view can be observed, and the copy fuses into its consumer.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg

from aten_mlir.dialects import dtype_of

from . import complex_core as cplx
from .builder import PARALLEL, tensor_type
from .elementwise_core import elementwise
from .registry import register_lowering
from .views_common import located


@register_lowering("aten.complex", complex=True)
def lower_complex(op, rw):
    """aten.complex -> linalg.generic(complex.create)"""
    t = rw.result_type().element_type
    part = dtype_of(cplx.part_type(t))
    return elementwise(
        rw, [rw.args["real"], rw.args["imag"]], lambda re, im: cplx.make(re, im, t), compute=part
    )


@register_lowering("aten.view_as_real", complex=True)
@located
def lower_view_as_real(op, rw):
    """aten.view_as_real -> linalg.generic(complex.re, complex.im, arith.select)"""
    z, result = rw.args["self"], rw.result_type()
    rank = tensor_type(z).rank
    init = rw.empty(result, [*rw.sizes(z), 2])
    dims = [ir.AffineDimExpr.get(d) for d in range(rank + 1)]
    maps = [ir.AffineMap.get(rank + 1, 0, dims[:rank]), ir.AffineMap.get_identity(rank + 1)]

    def body(v, _out):
        re, im = cplx.parts(v)
        zero = arith.constant(ir.IndexType.get(), 0)
        first = arith.cmpi(arith.CmpIPredicate.eq, linalg.IndexOp(rank).result, zero)
        return arith.select(first, re, im)

    return rw.generic([z], [init], maps, [PARALLEL] * (rank + 1), body)[0]


@register_lowering("aten.view_as_complex", complex=True)
@located
def lower_view_as_complex(op, rw):
    """aten.view_as_complex -> linalg.generic(complex.create of [..., 0] and [..., 1])"""
    x, result = rw.args["self"], rw.result_type()
    rank = result.rank
    init = rw.empty(result, rw.sizes(x)[:-1])
    dims = [ir.AffineDimExpr.get(d) for d in range(rank)]
    parts = [ir.AffineMap.get(rank, 0, [*dims, ir.AffineConstantExpr.get(k)]) for k in (0, 1)]
    maps = [*parts, ir.AffineMap.get_identity(rank)]
    t = result.element_type
    return rw.generic(
        [x, x], [init], maps, [PARALLEL] * rank, lambda re, im, _out: cplx.make(re, im, t)
    )[0]
