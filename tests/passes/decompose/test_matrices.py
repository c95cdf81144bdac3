"""Matrix-shaped decompositions (triangles, diagonals, eye, block_diag, cross, vander,
combinations, einsum) equal the ops they replace, dtypes included, NaN and inf where they sit
outside the kept part, static and with `?` dims; the OpInfo samples decompose to core."""

from __future__ import annotations

from functools import partial

import pytest
import torch

from tests.support.decomposition import check_decomposition
from tests.support.opinfo_samples import check_opinfo_samples

# Only target ops remain, no as_strided, equal results (bit for bit when `exact`), the same
# dtypes and shapes; a `Tensor[]` argument takes the tensors (after the first `lead`).
check = partial(check_decomposition, tensor_list=True, absent=("as_strided",))


def _special(*shape, dtype=torch.float32):
    torch.manual_seed(0)
    x = torch.randn(*shape, dtype=dtype)
    flat = x.view(-1)
    flat[: min(4, flat.numel())] = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0])[
        : min(4, flat.numel())
    ].to(dtype)
    return x


X = _special(2, 3, 4)
X_INT = torch.arange(24, dtype=torch.int32).reshape(2, 3, 4) - 11
X_BOOL = X_INT % 3 == 0

# (op, tensors, kwargs, supports `?` dims, bit-exact)
CASES = [
    *[("aten.tril", [X], {"diagonal": k}, True, True) for k in (-2, 0, 1, 5)],
    *[("aten.triu", [X], {"diagonal": k}, True, True) for k in (-1, 0, 2)],
    ("aten.tril", [X_INT], {"diagonal": 0}, True, True),
    ("aten.triu", [X_BOOL], {"diagonal": 1}, True, True),
    *[
        ("aten.diag_embed", [X], {"offset": o, "dim1": 0, "dim2": 2}, True, True)
        for o in (-2, 0, 1)
    ],
    ("aten.diag_embed", [X_INT], {"offset": 1, "dim1": -1, "dim2": 1}, True, True),
    ("aten.diag", [X[0, 0]], {"diagonal": -1}, True, True),
    ("aten.diag", [X[0]], {"diagonal": 2}, True, True),
    ("aten.diagflat", [X[0]], {"offset": 1}, True, True),
    ("aten.trace", [X[1]], {}, True, False),
    ("aten.trace", [X_INT[0]], {}, True, True),
    ("aten.eye", [], {"n": 3}, False, True),
    ("aten.eye.m", [], {"n": 2, "m": 5, "dtype": torch.int32}, False, True),
    ("aten.eye.m", [], {"n": 4, "m": 3, "dtype": torch.bool}, False, True),
    ("aten.block_diag", [X[0], X[1, 0].double(), torch.tensor(2.0)], {}, False, True),
    ("aten.block_diag", [X_INT[0], X_INT[1, :2]], {}, True, True),
    ("aten.linalg_cross", [torch.randn(4, 3, 2), torch.randn(1, 3, 1)], {"dim": 1}, False, False),
    ("aten.linalg_cross", [X_INT[:, :, :3], X_INT[1:, :, 1:]], {"dim": -1}, False, True),
    ("aten.cross", [torch.randn(3, 4), torch.randn(3, 4)], {}, False, False),
    ("aten.linalg_vander", [torch.randn(2, 4)], {"N": 5}, False, False),
    ("aten.linalg_vander", [torch.tensor([1, 2, -3], dtype=torch.int32)], {}, False, True),
    ("aten.linalg_vander", [torch.randn(3)], {"N": 2}, False, True),
]

EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("iij,jk,kl->il", [(3, 3, 4), (4, 5), (5, 2)]),
    ("ij->ji", [(2, 3)]),
    ("i,i", [(3,), (3,)]),
    ("ba", [(2, 3)]),
    ("b i j, b j -> b i", [(2, 3, 4), (2, 4)]),
    ("ik,jk->", [(2, 1), (3, 4)]),
]


def _ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


@pytest.mark.parametrize(
    ("op_name", "tensors", "kwargs", "dynamic", "exact"), CASES, ids=_ids(CASES)
)
def test_matrix_decomposition_matches_the_op(op_name, tensors, kwargs, dynamic, exact):
    check(op_name, tensors, kwargs, exact=exact)


DYNAMIC = [c for c in CASES if c[3]]


@pytest.mark.parametrize(
    ("op_name", "tensors", "kwargs", "dynamic", "exact"), DYNAMIC, ids=_ids(DYNAMIC)
)
def test_matrix_decomposition_with_dynamic_dims(op_name, tensors, kwargs, dynamic, exact):
    check(op_name, tensors, kwargs, dynamic=True, exact=exact)


def test_tril_masks_nan_to_zero_not_nan():
    x = torch.full((3, 3), float("nan"))
    decomposed = check("aten.tril", [x], {"diagonal": 0}, exact=True).program
    assert "aten.where.self" in str(decomposed) and "aten.mul" not in str(decomposed)


@pytest.mark.parametrize(("equation", "shapes"), EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_the_op(equation, shapes):
    torch.manual_seed(1)
    tensors = [torch.randn(*s) for s in shapes]
    check("aten.einsum", tensors, {"equation": equation})


def test_einsum_with_dynamic_batch_uses_bmm():
    tensors = [torch.randn(2, 3, 4), torch.randn(2, 4, 5)]
    decomposed = check("aten.einsum", tensors, {"equation": "bij,bjk->bik"}, dynamic=True).program
    assert "aten.bmm" in str(decomposed)


MATRIX_OPINFOS = (
    "tril triu diag diag_embed diagflat trace eye block_diag linalg.cross cross linalg.vander "
    "combinations einsum"
).split()


def test_matrix_opinfo_samples_decompose_to_core():
    check_opinfo_samples(MATRIX_OPINFOS, limit=2)
