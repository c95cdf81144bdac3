"""Special-function decompositions equal the ops they replace (eager kernels on both sides) on
nan, inf, zeros and both branches of two-branch formulas, with static and `?` dims; what stays
is core or an op kept whole on purpose (with its reason)."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import KEPT_WHOLE
from tests.support.decomposition import check_decomposition
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program

NAN, INF = float("nan"), float("inf")
X = torch.tensor([[NAN, INF, -INF, 0.0], [-0.0, 1e-30, -2.5, 3.0], [0.5, -7.0, 1.0, 40.0]])
Y = torch.tensor([[1.5, NAN, 0.0, -0.0], [2.0, -1.0, 0.5, INF], [0.25, 3.0, -INF, 1e-3]])
N = torch.tensor([[-3, -1, 0, 1], [2, 3, 5, -4], [9, -9, 6, 10]])
POS = torch.tensor([[1.2, 2.0, 3.5, 10.0], [1.01, 7.0, 100.0, 1.5]])

CASES = [
    ("aten.xlogy.Tensor", [X, Y], {}),
    ("aten.xlogy.Tensor", [N, Y], {}),
    ("aten.xlogy.Tensor", [X.half(), Y.half()], {}),
    ("aten.xlogy.Scalar_Self", [Y], {"self": 0, "names": ["other"]}),
    ("aten.xlogy.Scalar_Other", [X], {"other": 2.5}),
    ("aten.special_xlog1py", [X, Y], {}),
    ("aten.special_xlog1py.self_scalar", [Y], {"self": 3, "names": ["other"]}),
    ("aten.special_xlog1py.other_scalar", [N], {"other": 0.5}),
    ("aten.special_xlogy", [X, Y], {}),
    ("aten.special_entr", [X], {}),
    ("aten.special_entr", [N], {}),
    ("aten.special_entr", [X.half()], {}),
    ("aten.special_ndtr", [X], {}),
    ("aten.special_ndtr", [N], {}),
    ("aten.special_log_ndtr", [X * 3], {}),
    ("aten.special_log_ndtr", [X.double() * 5], {}),
    ("aten.mvlgamma", [POS + 2], {"p": 3}),
    ("aten.mvlgamma", [POS], {"p": 1}),
    ("aten.mvlgamma", [POS.double() + 1], {"p": 2}),
    ("aten.special_multigammaln", [POS + 2], {"p": 5}),
    ("aten.special_zeta.other_scalar", [POS], {"other": 2.5}),
    ("aten.special_zeta.self_scalar", [POS], {"self": 3, "names": ["other"]}),
    ("aten.special_chebyshev_polynomial_t.n_scalar", [X / 50], {"n": 3}),
    ("aten.special_hermite_polynomial_h.x_scalar", [N.abs()], {"x": 0.5, "names": ["n"]}),
    ("aten.special_polygamma", [POS], {"n": 1, "names": ["self"]}),
    ("aten.special_expit", [X], {}),
    ("aten.special_exp2", [X], {}),
    ("aten.special_round", [X * 1.2345], {"decimals": 2}),
    ("aten.special_logit", [POS / 101], {"eps": 0.05}),
    ("aten.special_gammainc", [POS, POS.flip(1)], {}),
    ("aten.special_psi", [POS], {}),
    ("aten.special_i0", [X], {}),
    ("aten.special_log_softmax", [X[1:]], {"dim": 1}),
]


def _id(case):
    op, tensors, kwargs = case
    dtypes = "-".join(str(t.dtype).replace("torch.", "") for t in tensors)
    extra = ",".join(f"{k}={v}" for k, v in kwargs.items() if k != "names")
    return f"{op}[{dtypes}{',' + extra if extra else ''}]"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_special_decomposition_matches_the_op(case, dynamic):
    # test_elementwise's check: the op gone, only target ops, kept-whole ones and aten.complex
    keep, absent = (*KEPT_WHOLE, "aten.complex"), (f'"{case[0]}"',)
    check_decomposition(case[0], case[1], dict(case[2]), dynamic, keep=keep, absent=absent)


def test_log_ndtr_stops_at_the_kept_erfc_and_erfcx():
    decomposed = aten_mlir.decompose(single_op_program("aten.special_log_ndtr", [X]))
    text = str(decomposed)
    assert '"aten.erfc"' in text and '"aten.special_erfcx"' in text
    assert "aten.erfc" in KEPT_WHOLE and "aten.special_erfcx" in KEPT_WHOLE


def test_xlogy_of_zero_is_zero_even_at_log_zero_and_nan_follows_y():
    x, y = torch.tensor([0.0, -0.0, 0.0, 1.0]), torch.tensor([0.0, INF, NAN, NAN])
    program = single_op_program("aten.xlogy.Tensor", [x, y])
    out = aten_mlir.run_reference(aten_mlir.decompose(program), x, y)
    assert out[:2].tolist() == [0.0, 0.0] and not out[:2].signbit().any()
    assert out[2:].isnan().all()


@pytest.mark.parametrize(
    "op_name",
    ["aten.lgamma", "aten.digamma", "aten.erfinv", "aten.special_bessel_j0", "aten.polygamma"],
)
def test_special_functions_without_a_core_formula_are_kept_whole(op_name):
    assert KEPT_WHOLE[op_name]


def test_opinfo_samples():
    check_opinfo_samples(
        [
            "special.xlog1py",
            "special.entr",
            "special.ndtr",
            "special.log_ndtr",
            "mvlgamma.mvlgamma_p_3",
            "special.zeta",
            "polygamma.polygamma_n_1",
        ],
        limit=2,
        allow_kept_whole=True,
    )
