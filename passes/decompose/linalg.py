"""Matrix products -> core aten (mm, bmm, addmm and views).

Rank-generic products fold their batch dims into one with views, as ATen's `matmul` does
(`at::native::_matmul_impl`): sizes are ints where static and `tensor.dim` values where `?`.

The `add*` family keeps ATen's alpha/beta semantics exactly: beta == 0 ignores `self` (NaN and inf
in it do not propagate); alpha == 0 drops the product in addmv and addbmm (their kernels skip it,
so NaN in the factors does not propagate) but not in baddbmm and addr, whose kernels multiply.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from aten_mlir.dialects import dtype_of

from .registry import register_decomposition
from .views import (
    broadcast_size,
    permute,
    rank,
    reshape,
    result_type,
    tensor_like,
    transposed_dims,
    view,
)


def _dtype(op):
    return dtype_of(ir.RankedTensorType(op.results[0].type).element_type)


def _is_complex_or_bool(v: ir.Value) -> bool:
    t = ir.RankedTensorType(v.type).element_type
    return isinstance(t, ir.ComplexType) or (isinstance(t, ir.IntegerType) and t.width == 1)


def _product(rewriter, sizes) -> int | ir.Value:
    out = 1
    for s in sizes:
        out = rewriter.index_arith(arith.MulIOp, out, s)
    return out


def _expand(rewriter, x: ir.Value, sizes: list) -> ir.Value:
    """`aten.expand(x, sizes)`, or x itself when it already has those sizes."""
    if all(a is b or (isinstance(a, int) and a == b) for a, b in zip(rewriter.sizes(x), sizes)):
        return x
    results = (
        [tensor_like(rewriter, sizes, x)] if any(isinstance(s, ir.Value) for s in sizes) else None
    )
    return rewriter.aten("aten.expand", x, sizes, results=results)


def _sum(rewriter, x: ir.Value, dims: list[int], dtype, *, results=None) -> ir.Value:
    return rewriter.aten("aten.sum.dim_IntList", x, dims, False, dtype=dtype, results=results)


# -- products by rank -----------------------------------------------------------------------------


@register_decomposition("aten.linear")
def decompose_linear(op, rewriter):
    """aten.linear -> aten.permute, aten.addmm (2-d input with bias) | aten.matmul, aten.add.Tensor
    (as ATen's linear)"""
    x, weight, bias = (rewriter.args[k] for k in ("input", "weight", "bias"))
    w_t = permute(rewriter, weight, transposed_dims(rank(weight), 0, -1))
    if bias is not None and rank(x) == 2:
        return rewriter.aten("aten.addmm", bias, x, w_t, results=result_type(op))
    if bias is None:
        return rewriter.aten("aten.matmul", x, w_t, results=result_type(op))
    product = rewriter.aten("aten.matmul", x, w_t, results=result_type(op))
    return rewriter.aten("aten.add.Tensor", product, bias, results=result_type(op))


@register_decomposition("aten.matmul")
def decompose_matmul(op, rewriter):
    """aten.matmul -> aten.dot | aten.mv | aten.mm | aten.bmm, with aten.unsqueeze, aten.view,
    aten.expand, aten.squeeze.dims by rank (ATen's _matmul_impl)"""
    a, b = rewriter.args["self"], rewriter.args["other"]
    ra, rb, res = rank(a), rank(b), result_type(op)
    if ra == 1 and rb == 1:
        return rewriter.aten("aten.dot", a, b, results=res)
    if ra == 2 and rb == 1:
        return rewriter.aten("aten.mv", a, b, results=res)
    if ra == 2 and rb == 2:
        return rewriter.aten("aten.mm", a, b, results=res)
    if ra == 1 and rb == 2:
        row = rewriter.aten("aten.mm", rewriter.aten("aten.unsqueeze", a, 0), b)
        return rewriter.aten("aten.squeeze.dims", row, [0], results=res)
    if ra >= 3 and rb <= 2:  # fold a's batch dims into its rows: one mm
        k = rewriter.size(a, -1)
        # -1 is the simplest row count, but cannot be inferred when k may be 0.
        lead = -1 if isinstance(k, int) and k else _product(rewriter, rewriter.sizes(a)[:-1])
        rows = reshape(rewriter, a, [lead, k])
        column = rewriter.aten("aten.unsqueeze", b, 1) if rb == 1 else b
        out = rewriter.aten("aten.mm", rows, column)
        sizes = rewriter.sizes(a)[:-1] + ([rewriter.size(b, 1)] if rb == 2 else [])
        return view(rewriter, out, sizes, results=res)
    return _batched_matmul(op, rewriter, a, b)


def _batched_matmul(op, rewriter, a, b):
    """Broadcast the batch dims, fold them into one, `aten.bmm`, unfold."""
    ra, rb = rank(a), rank(b)
    a = rewriter.aten("aten.unsqueeze", a, 0) if ra == 1 else a
    b = rewriter.aten("aten.unsqueeze", b, 1) if rb == 1 else b
    (n, k), p = rewriter.sizes(a)[-2:], rewriter.size(b, -1)
    batch_a, batch_b = rewriter.sizes(a)[:-2], rewriter.sizes(b)[:-2]
    nb = max(len(batch_a), len(batch_b))
    batch = [
        broadcast_size(rewriter, [s[d - nb] for s in (batch_a, batch_b) if d - nb >= -len(s)])
        for d in range(nb)
    ]
    folded = _product(rewriter, batch)
    a3 = reshape(rewriter, _expand(rewriter, a, batch + [n, k]), [folded, n, k])
    b3 = reshape(rewriter, _expand(rewriter, b, batch + [k, p]), [folded, k, p])
    out = rewriter.aten("aten.bmm", a3, b3)
    sizes = batch + ([n] if ra > 1 else []) + ([p] if rb > 1 else [])
    return view(rewriter, out, sizes, results=result_type(op))


@register_decomposition("aten.mv")
def decompose_mv(op, rewriter):
    """aten.mv -> aten.unsqueeze, aten.mm, aten.squeeze.dims"""
    mat, vec = rewriter.args["self"], rewriter.args["vec"]
    out = rewriter.aten("aten.mm", mat, rewriter.aten("aten.unsqueeze", vec, 1))
    return rewriter.aten("aten.squeeze.dims", out, [1], results=result_type(op))


@register_decomposition("aten.dot")
def decompose_dot(op, rewriter):
    """aten.dot -> aten.mul.Tensor, aten.sum.dim_IntList (in the result dtype: ints stay ints)"""
    a, b = rewriter.args["self"], rewriter.args["tensor"]
    product = rewriter.aten("aten.mul.Tensor", a, b)
    return _sum(rewriter, product, [0], _dtype(op), results=result_type(op))


@register_decomposition("aten.vdot")
def decompose_vdot(op, rewriter):
    """aten.vdot -> aten.dot (real dtypes, where the conjugate is the identity)"""
    a, b = rewriter.args["self"], rewriter.args["other"]
    if _is_complex_or_bool(a):
        return None
    return rewriter.aten("aten.dot", a, b, results=result_type(op))


@register_decomposition("aten.linalg_vecdot")
def decompose_linalg_vecdot(op, rewriter):
    """aten.linalg_vecdot -> aten.mul.Tensor, aten.sum.dim_IntList (real dtypes)"""
    x, y, dim = (rewriter.args[k] for k in ("x", "y", "dim"))
    if _is_complex_or_bool(x):
        return None
    return _sum(
        rewriter, rewriter.aten("aten.mul.Tensor", x, y), [dim], _dtype(op), results=result_type(op)
    )


@register_decomposition("aten.outer")
def decompose_outer(op, rewriter):
    """aten.outer -> aten.unsqueeze, aten.mul.Tensor"""
    a, b = rewriter.args["self"], rewriter.args["vec2"]
    column = rewriter.aten("aten.unsqueeze", a, 1)
    return rewriter.aten("aten.mul.Tensor", column, b, results=result_type(op))


@register_decomposition("aten.inner")
def decompose_inner(op, rewriter):
    """aten.inner -> aten.mul.Tensor (a 0-d operand) | aten.tensordot (over the last dims)"""
    a, b = rewriter.args["self"], rewriter.args["other"]
    if rank(a) == 0 or rank(b) == 0:
        return rewriter.aten("aten.mul.Tensor", a, b, results=result_type(op))
    return rewriter.aten(
        "aten.tensordot", a, b, [rank(a) - 1], [rank(b) - 1], results=result_type(op)
    )


def _sum_unit_contractions(rewriter, a, b, dims_a, dims_b):
    """ATen's tensordot lets a contracted dim of size 1 meet any size: the other side is summed
    over that dim first (keepdim), so both are 1."""
    sum_a, sum_b = [], []
    for da, db in zip(dims_a, dims_b):
        sa, sb = rewriter.size(a, da), rewriter.size(b, db)
        if sa == 1 and sb != 1:
            sum_b.append(db)
        elif sb == 1 and sa != 1:
            sum_a.append(da)
    if sum_a:
        a = rewriter.aten("aten.sum.dim_IntList", a, sum_a, True)
    if sum_b:
        b = rewriter.aten("aten.sum.dim_IntList", b, sum_b, True)
    return a, b


@register_decomposition("aten.tensordot")
def decompose_tensordot(op, rewriter):
    """aten.tensordot -> aten.permute, aten.view, aten.mm (free dims x contracted dims), with
    aten.sum.dim_IntList where a contracted dim of size 1 meets a larger one"""
    a, b = rewriter.args["self"], rewriter.args["other"]
    dims_a = [d % rank(a) for d in rewriter.args["dims_self"]]
    dims_b = [d % rank(b) for d in rewriter.args["dims_other"]]
    free_a = [d for d in range(rank(a)) if d not in dims_a]
    free_b = [d for d in range(rank(b)) if d not in dims_b]
    a, b = _sum_unit_contractions(rewriter, a, b, dims_a, dims_b)
    sizes_a, sizes_b = rewriter.sizes(a), rewriter.sizes(b)
    contracted = _product(rewriter, [sizes_a[d] for d in dims_a])
    rows = _product(rewriter, [sizes_a[d] for d in free_a])
    columns = _product(rewriter, [sizes_b[d] for d in free_b])
    a2 = reshape(rewriter, permute(rewriter, a, free_a + dims_a), [rows, contracted])
    b2 = reshape(rewriter, permute(rewriter, b, dims_b + free_b), [contracted, columns])
    out = rewriter.aten("aten.mm", a2, b2)
    sizes = [sizes_a[d] for d in free_a] + [sizes_b[d] for d in free_b]
    return view(rewriter, out, sizes, results=result_type(op))


@register_decomposition("aten.linalg_multi_dot")
def decompose_linalg_multi_dot(op, rewriter):
    """aten.linalg_multi_dot -> aten.unsqueeze, aten.mm, aten.squeeze.dims (left to right; eager
    picks the cheapest order, equal up to rounding)"""
    tensors = list(rewriter.args["tensors"])
    first_vector, last_vector = rank(tensors[0]) == 1, rank(tensors[-1]) == 1
    if first_vector:
        tensors[0] = rewriter.aten("aten.unsqueeze", tensors[0], 0)
    if last_vector:
        tensors[-1] = rewriter.aten("aten.unsqueeze", tensors[-1], 1)
    out = tensors[0]
    for t in tensors[1:]:
        out = rewriter.aten("aten.mm", out, t)
    dims = ([0] if first_vector else []) + ([1] if last_vector else [])
    if not dims:
        return out
    return rewriter.aten("aten.squeeze.dims", out, dims, results=result_type(op))


@register_decomposition("aten.kron")
def decompose_kron(op, rewriter):
    """aten.kron -> aten.view, aten.mul.Tensor: a as (a0, 1, a1, 1, ..) times b as (1, b0, 1, b1,
    ..), then each pair of dims merged"""
    a, b = rewriter.args["self"], rewriter.args["other"]
    n = max(rank(a), rank(b))
    sizes_a = [1] * (n - rank(a)) + rewriter.sizes(a)
    sizes_b = [1] * (n - rank(b)) + rewriter.sizes(b)
    a2 = reshape(rewriter, a, [s for d in sizes_a for s in (d, 1)])
    b2 = reshape(rewriter, b, [s for d in sizes_b for s in (1, d)])
    product = rewriter.aten("aten.mul.Tensor", a2, b2)
    sizes = [rewriter.index_arith(arith.MulIOp, x, y) for x, y in zip(sizes_a, sizes_b)]
    return reshape(rewriter, product, sizes, results=result_type(op))


@register_decomposition("aten.bilinear")
def decompose_bilinear(op, rewriter):
    """aten.bilinear -> aten.view, aten.permute, aten.mm, aten.unsqueeze, aten.mul.Tensor,
    aten.sum.dim_IntList, aten.add.Tensor: y[n, o] = sum_j (x1 @ W[o])[n, j] * x2[n, j] + b[o]"""
    x1, x2, weight, bias = (rewriter.args[k] for k in ("input1", "input2", "weight", "bias"))
    i, j, o = rewriter.size(x1, -1), rewriter.size(x2, -1), rewriter.size(weight, 0)
    rows1, rows2 = reshape(rewriter, x1, [-1, i]), reshape(rewriter, x2, [-1, j])
    oj = rewriter.index_arith(arith.MulIOp, o, j)
    w2 = reshape(rewriter, permute(rewriter, weight, [1, 0, 2]), [i, oj])
    left = view(rewriter, rewriter.aten("aten.mm", rows1, w2), [-1, o, j])
    product = rewriter.aten("aten.mul.Tensor", left, rewriter.aten("aten.unsqueeze", rows2, 1))
    out = _sum(rewriter, product, [-1], _dtype(op))
    if bias is not None:
        out = rewriter.aten("aten.add.Tensor", out, bias)
    return reshape(rewriter, out, rewriter.sizes(x1)[:-1] + [o], results=result_type(op))


# -- products added to a tensor: beta * self + alpha * product ------------------------------------


def _scaled_sum(op, rewriter, product: ir.Value, *, alpha_zero_drops: bool) -> ir.Value:
    """`beta * self + alpha * product` as ATen computes it (see the module docstring)."""
    x, beta, alpha = (rewriter.args[k] for k in ("self", "beta", "alpha"))
    res = result_type(op)
    if alpha == 0 and alpha_zero_drops:
        product = rewriter.aten("aten.full_like", product, 0)
    elif alpha != 1:
        product = rewriter.aten("aten.mul.Scalar", product, alpha)
    if beta == 0:  # `self` ignored; alias only to restate a type the op knows more statically
        return (
            product if product.type == res[0] else rewriter.aten("aten.alias", product, results=res)
        )
    scaled = x if beta == 1 else rewriter.aten("aten.mul.Scalar", x, beta)
    return rewriter.aten("aten.add.Tensor", scaled, product, results=res)


def _rejects(rewriter, *names) -> bool:
    """Bool and complex operands: ATen's logical / conjugating forms, kept whole."""
    return any(_is_complex_or_bool(rewriter.args[n]) for n in names)


@register_decomposition("aten.addmv")
def decompose_addmv(op, rewriter):
    """aten.addmv -> aten.mv, aten.mul.Scalar, aten.add.Tensor"""
    if _rejects(rewriter, "self", "mat"):
        return None
    product = rewriter.aten("aten.mv", rewriter.args["mat"], rewriter.args["vec"])
    return _scaled_sum(op, rewriter, product, alpha_zero_drops=True)


@register_decomposition("aten.addr")
def decompose_addr(op, rewriter):
    """aten.addr -> aten.outer, aten.mul.Scalar, aten.add.Tensor"""
    if _rejects(rewriter, "self", "vec1"):
        return None
    product = rewriter.aten("aten.outer", rewriter.args["vec1"], rewriter.args["vec2"])
    return _scaled_sum(op, rewriter, product, alpha_zero_drops=False)


@register_decomposition("aten.baddbmm")
def decompose_baddbmm(op, rewriter):
    """aten.baddbmm -> aten.bmm, aten.mul.Scalar, aten.add.Tensor"""
    if _rejects(rewriter, "self", "batch1"):
        return None
    product = rewriter.aten("aten.bmm", rewriter.args["batch1"], rewriter.args["batch2"])
    return _scaled_sum(op, rewriter, product, alpha_zero_drops=False)


_UNROLLED_BATCHES = 32  # beyond this, one bmm + sum is the better program


@register_decomposition("aten.addbmm")
def decompose_addbmm(op, rewriter):
    """aten.addbmm -> aten.select.int, aten.addmm (one per batch, accumulating in ATen's order);
    for a `?` or long batch: aten.bmm, aten.sum.dim_IntList, aten.mul.Scalar, aten.add.Tensor"""
    if _rejects(rewriter, "self", "batch1"):
        return None
    a = rewriter.args
    batches = rewriter.size(a["batch1"], 0)
    if isinstance(batches, int) and 0 < batches <= _UNROLLED_BATCHES and a["alpha"] != 0:
        # ATen's CPU kernel: result = addmm(beta * self, b1[0], b2[0]), then += b1[i] @ b2[i];
        # the same order keeps float32 rounding equal to eager's.
        acc, beta = a["self"], a["beta"]
        for i in range(batches):
            b1, b2 = (rewriter.aten("aten.select.int", a[k], 0, i) for k in ("batch1", "batch2"))
            acc = rewriter.aten("aten.addmm", acc, b1, b2, beta=beta, alpha=a["alpha"])
            beta = 1
        return acc
    product = rewriter.aten("aten.bmm", rewriter.args["batch1"], rewriter.args["batch2"])
    summed = _sum(rewriter, product, [0], _dtype(op))
    return _scaled_sum(op, rewriter, summed, alpha_zero_drops=True)


@register_decomposition("aten.chain_matmul")
def decompose_chain_matmul(op, rewriter):
    """aten.chain_matmul -> aten.linalg_multi_dot (aten.clone for a single matrix, as ATen)"""
    matrices = list(rewriter.args["matrices"])
    if len(matrices) == 1:
        return rewriter.aten("aten.clone", matrices[0], results=result_type(op))
    return rewriter.aten("aten.linalg_multi_dot", matrices, results=result_type(op))
