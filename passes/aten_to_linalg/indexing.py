"""Gathers: `gather`, `index_select` and advanced indexing (`index.Tensor`) -> `linalg.generic`.

Each is one `linalg.generic` over the result whose body reads the index tensor(s) through
indexing maps and `tensor.extract`s the element of `self` (a gather linalg cannot express with
maps alone). torch rejects negative `gather` indices; `index_select` and `index.Tensor` wrap them.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import tensor

from . import indexing_mask
from .builder import PARALLEL, tensor_type
from .indexing_core import Advanced, as_index, linalg_indices, movable, signless
from .registry import register_lowering


@register_lowering("aten.gather", unsigned=True, complex=True)
def lower_gather(op, rw):
    """aten.gather -> linalg.generic(tensor.extract)"""
    self_, index, dim = rw.args["self"], rw.args["index"], rw.args["dim"]
    if not movable(self_):
        return None
    if 0 in tensor_type(index).shape:  # nothing to read (torch then takes any index dtype)
        return rw.empty(rw.result_type(), rw.sizes(index))
    index, uns = signless(rw, index)
    if index is None:
        return None
    st, it, result = tensor_type(self_), tensor_type(index), rw.result_type()
    dim = dim % max(st.rank, 1)
    init = rw.empty(result, rw.sizes(index))
    identity = ir.AffineMap.get_identity(it.rank)

    def body(i, _out):
        ivs = linalg_indices(it.rank)
        coords = [as_index(i, unsigned=uns) if d == dim else ivs[d] for d in range(st.rank)]
        if st.rank == 1 and it.rank == 0:
            coords = [as_index(i, unsigned=uns)]
        return tensor.ExtractOp(self_, coords).result

    return rw.generic([index], [init], [identity, identity], [PARALLEL] * it.rank, body)[0]


@register_lowering("aten.index_select", unsigned=True, complex=True)
def lower_index_select(op, rw):
    """aten.index_select -> linalg.generic(tensor.extract)"""
    self_, index, dim = rw.args["self"], rw.args["index"], rw.args["dim"]
    if not movable(self_):
        return None
    index, uns = signless(rw, index)
    if index is None:
        return None
    st, it, result = tensor_type(self_), tensor_type(index), rw.result_type()
    if st.rank == 0:
        dim = 0
        sizes = [rw.size(index, 0)] if result.rank else []
    else:
        dim %= st.rank
        sizes = [
            s if d != dim else (rw.size(index, 0) if it.rank else 1)
            for d, s in enumerate(rw.sizes(self_))
        ]
    init = rw.empty(result, sizes)
    exprs = [ir.AffineDimExpr.get(dim) if result.rank else ir.AffineConstantExpr.get(0)]
    exprs = exprs if it.rank else []
    maps = [ir.AffineMap.get(result.rank, 0, exprs), ir.AffineMap.get_identity(result.rank)]
    size = rw.size(self_, dim) if st.rank else 1

    def body(i, _out):
        ivs = linalg_indices(result.rank)
        if st.rank == 0:
            return tensor.ExtractOp(self_, []).result
        coords = [as_index(i, size, uns) if d == dim else ivs[d] for d in range(st.rank)]
        return tensor.ExtractOp(self_, coords).result

    return rw.generic([index], [init], maps, [PARALLEL] * result.rank, body)[0]


@register_lowering("aten.index.Tensor", unsigned=True, complex=True)
def lower_index(op, rw):
    """aten.index.Tensor -> linalg.generic(tensor.extract), scf.for (bool masks)"""
    self_, indices = rw.args["self"], rw.args["indices"]
    if not movable(self_) or all(i is None for i in indices):
        return None
    if any(i is not None and rw.is_unsigned(i) for i in indices):
        return None  # a uint8 index is torch's deprecated mask spelling: left to eager
    converted = indexing_mask.masks_as_indices(op, rw, indices)
    if converted is None:
        return None
    adv = Advanced(rw, self_, *converted)
    result = rw.result_type()
    if len(adv.slots) != result.rank:
        return None
    init = rw.empty(result, adv.sizes(result))
    maps = [adv.index_map(t) for t in adv.tensors()]
    maps.append(ir.AffineMap.get_identity(result.rank))

    def body(*args):
        ivs = linalg_indices(result.rank)
        coords = adv.self_coords(ivs, args[:-1])
        return tensor.ExtractOp(self_, coords).result

    return rw.generic(adv.tensors(), [init], maps, [PARALLEL] * result.rank, body)[0]
