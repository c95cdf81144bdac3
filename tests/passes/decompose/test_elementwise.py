"""Elementwise decompositions equal the ops they replace (eager kernels on both sides), across
dtypes where promotion differs (int, bool, half) and on nan, inf and -0.0, with static and `?`
dims; only target-set ops (and the ops kept whole on purpose) remain."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import KEPT_WHOLE
from tests.support.decomposition import check_decomposition
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program

NAN, INF = float("nan"), float("inf")
F = torch.tensor(
    [[NAN, INF, -INF, 0.0], [-0.0, 1e-30, -2.5, 3.0], [0.5, -0.5, 1.0, 7.25]], dtype=torch.float32
)
G = torch.tensor(
    [[1.5, INF, -INF, -0.0], [NAN, -3.0, 2.5, 3.0], [0.25, 0.5, -1.0, -INF]], dtype=torch.float32
)
W = torch.tensor([[0.0, 0.3, 0.5, 1.0], [-0.2, 0.49, 0.51, 2.0], [NAN, 0.75, -1.5, 0.1]])
UNIT = torch.tensor([[0.0, 1.0, 0.5, NAN], [1e-7, 0.999, 0.25, 0.75], [0.01, 0.3, 0.6, 0.9]])
N = torch.tensor([[-7, -1, 0, 1], [2, 3, 5, -4], [9, -9, 6, 100]])
J = torch.tensor([[2, -3, 4, 1], [-2, 3, 5, 7], [-4, 2, -6, 3]])
B = torch.tensor(
    [[True, False, True, False], [False, False, True, True], [True, True, False, True]]
)
SHIFT = torch.tensor([[-1, 0, 1, 3], [6, 7, 8, 9], [2, 5, 63, 64]])
I8 = torch.tensor([[-100, -1, 0, 1], [2, 3, 5, -4], [9, -9, 6, 100]], dtype=torch.int8)
SHIFT8 = torch.tensor([[-1, 0, 1, 3], [6, 7, 8, 9], [2, 5, 6, 4]], dtype=torch.int8)
H = F.half()

# (op, tensors, kwargs): kwargs may hold `names` (bind the tensors to those schema arguments).
CASES = [
    ("aten.true_divide.Tensor", [F, G], {}),
    ("aten.true_divide.Tensor", [N, J], {}),
    ("aten.true_divide.Scalar", [N], {"other": 2}),
    ("aten.floor_divide", [F, G], {}),
    ("aten.floor_divide", [N, J], {}),
    ("aten.floor_divide", [N, F[1:2].abs() + 0.5], {}),
    ("aten.floor_divide.Scalar", [N], {"other": -3}),
    ("aten.floor_divide.Scalar", [F], {"other": -0.75}),
    ("aten.clamp_min.Tensor", [F, G], {}),
    ("aten.clamp_max.Tensor", [F, G], {}),
    ("aten.clamp_max.Tensor", [N, G], {}),
    ("aten.square", [F], {}),
    ("aten.square", [B], {}),
    ("aten.square", [N], {}),
    ("aten.__and__.Tensor", [N, J], {}),
    ("aten.__and__.Tensor", [B, B.flip(0)], {}),
    ("aten.__and__.Scalar", [N], {"other": 6}),
    ("aten.__or__.Tensor", [N, J], {}),
    ("aten.__or__.Scalar", [B], {"other": 2}),
    ("aten.__xor__.Tensor", [B, B.flip(1)], {}),
    ("aten.__xor__.Scalar", [N], {"other": -3}),
    ("aten.bitwise_and.Scalar_Tensor", [B], {"self": 2, "names": ["other"]}),
    ("aten.bitwise_or.Scalar_Tensor", [N], {"self": 12, "names": ["other"]}),
    ("aten.bitwise_xor.Scalar_Tensor", [I8], {"self": 5, "names": ["other"]}),
    ("aten.__lshift__.Tensor", [I8, SHIFT8], {}),
    ("aten.__lshift__.Tensor", [N, SHIFT], {}),
    ("aten.__lshift__.Scalar", [I8], {"other": 3}),
    ("aten.__rshift__.Tensor", [I8, SHIFT8], {}),
    ("aten.__rshift__.Scalar", [N], {"other": 2}),
    ("aten.bitwise_left_shift.Scalar_Tensor", [SHIFT8], {"self": 3, "names": ["other"]}),
    ("aten.bitwise_right_shift.Tensor_Scalar", [I8], {"other": 9}),
    ("aten.float_power.Tensor_Tensor", [F.abs(), G], {}),
    ("aten.float_power.Tensor_Tensor", [N, J.abs()], {}),
    ("aten.float_power.Tensor_Scalar", [N], {"exponent": 2}),
    ("aten.float_power.Tensor_Scalar", [H], {"exponent": 0.5}),
    ("aten.float_power.Scalar", [F], {"self": 2, "names": ["exponent"]}),
    ("aten.addcmul", [F, G, W], {"value": 0.5}),
    ("aten.addcmul", [N, J, N], {"value": 2}),
    ("aten.addcmul", [H, G.half(), W.half()], {}),
    ("aten.addcdiv", [F, G, W], {"value": 2}),
    ("aten.addcdiv", [H, G.half(), W.half()], {"value": -1.5}),
    ("aten.deg2rad", [F], {}),
    ("aten.deg2rad", [N], {}),
    ("aten.rad2deg", [H], {}),
    ("aten.frac", [F], {}),
    ("aten.frac", [F.double() * 1.37], {}),
    ("aten.exp2", [F], {}),
    ("aten.exp2", [N], {}),
    ("aten.ldexp.Tensor", [F, J], {}),
    ("aten.round.decimals", [F * 1.23456], {"decimals": 2}),
    ("aten.round.decimals", [F * 123.456], {"decimals": -1}),
    ("aten.round.decimals", [H * 1.23456], {"decimals": 1}),
    ("aten.round.decimals", [F * 1.5], {"decimals": 0}),
    ("aten.lerp.Scalar", [F, G], {"weight": 0.3}),
    ("aten.lerp.Scalar", [F, G], {"weight": 0.7}),
    ("aten.lerp.Scalar", [F, G], {"weight": 1.0}),
    ("aten.lerp.Scalar", [H, G.half()], {"weight": -2.0}),
    ("aten.lerp.Tensor", [F, G, W], {}),
    ("aten.lerp.Tensor", [H, G.half(), W.half()], {}),
    ("aten.logaddexp", [F, G], {}),
    ("aten.logaddexp", [H, G.half()], {}),
    ("aten.logaddexp2", [F, G], {}),
    ("aten.logaddexp2", [F.double(), G.double()], {}),
    ("aten.sinc", [F], {}),
    ("aten.sinc", [N], {}),
    ("aten.sinc", [H], {}),
    ("aten.logit", [UNIT], {}),
    ("aten.logit", [UNIT], {"eps": 0.1}),
    ("aten.logit", [UNIT.half()], {"eps": 0.0}),
    ("aten.heaviside", [F, G], {}),
    ("aten.heaviside", [N, J[:1]], {}),
    ("aten.copysign.Tensor", [F, G], {}),
    ("aten.copysign.Tensor", [N, F], {}),
    ("aten.copysign.Scalar", [F], {"other": -0.0}),
    ("aten.copysign.Scalar", [N], {"other": 2}),
    ("aten.fmax", [F, G], {}),
    ("aten.fmin", [F, G], {}),
    ("aten.fmax", [N, J], {}),
    ("aten.fmin", [H, G.half()], {}),
    ("aten.hypot", [F, G], {}),
    ("aten.hypot", [F * 1e30, G * 1e-30], {}),
    ("aten.hypot", [F.double() * 1e300, G.double()], {}),
    ("aten.hypot", [F.double() * 1e-300, G.double() * 1e-300], {}),
    ("aten.hypot", [H, G.half()], {}),
    ("aten.angle", [F], {}),
    ("aten.angle", [N], {}),
    ("aten.polar", [F.abs(), G], {}),
    ("aten.sgn", [F], {}),
    ("aten.sgn", [N], {}),
    ("aten.sgn", [torch.complex(F, G)], {}),
    ("aten.chalf", [F], {}),
    ("aten.isfinite", [F], {}),
    ("aten.isfinite", [N], {}),
    ("aten.isfinite", [B], {}),
    ("aten.isposinf", [F], {}),
    ("aten.isposinf", [N], {}),
    ("aten.isneginf", [H], {}),
    ("aten.isreal", [F], {}),
    ("aten.isreal", [B], {}),
    ("aten.nan_to_num", [F], {}),
    ("aten.nan_to_num", [H], {}),
    ("aten.nan_to_num", [F], {"nan": 1.5, "posinf": 100.0, "neginf": -100.0}),
    ("aten.nan_to_num", [N], {"nan": 1.0}),
    ("aten.isclose", [F, F + 1e-6], {}),
    ("aten.isclose", [F, G], {"equal_nan": True}),
    ("aten.isclose", [F, G], {"rtol": 0.0, "atol": 0.0, "equal_nan": True}),
    ("aten.isclose", [F, F * 1.01], {"rtol": 0.02, "atol": 0.0}),
    ("aten.isclose", [N, J], {"rtol": 0.5, "atol": 1.0}),
    ("aten.isclose", [B, B.flip(0)], {}),
]


def _id(case):
    op, tensors, kwargs = case
    dtypes = "-".join(str(t.dtype).replace("torch.", "") for t in tensors)
    extra = ",".join(f"{k}={v}" for k, v in kwargs.items() if k != "names")
    return f"{op}[{dtypes}{',' + extra if extra else ''}]"


# polar stops at aten.complex, which has no core spelling (and no rule).
LEFT = (*KEPT_WHOLE, "aten.complex")


def check_elementwise(op_name, tensors, kwargs, dynamic):
    """The single-op program decomposes to target ops (or `LEFT`), the op itself gone, and
    equals eager."""
    absent = (f'"{op_name}"',)
    return check_decomposition(op_name, tensors, kwargs, dynamic, keep=LEFT, absent=absent)


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_elementwise_decomposition_matches_the_op(case, dynamic):
    check_elementwise(case[0], case[1], dict(case[2]), dynamic)


SCALAR_CASES = [
    ("aten.where.ScalarSelf", lambda x: [x > 0, x], {"self": 2.5, "names": ["condition", "other"]}),
    ("aten.where.ScalarOther", lambda x: [x > 0, x], {"other": -1}),
    ("aten.where.Scalar", lambda x: [x > 0], {"self": 2.5, "other": 1}),
    ("aten.rsub.Tensor", lambda x: [x, x * 3], {"alpha": 2}),
    ("aten.rsub.Scalar", lambda x: [x], {"other": 2.5, "alpha": 2}),
    ("aten.rsub.Scalar", lambda x: [x], {"other": 3, "alpha": 1}),
]


@pytest.mark.parametrize("x", [F, N], ids=["f32", "i64"])
@pytest.mark.parametrize(
    ("op_name", "inputs", "kwargs"), SCALAR_CASES, ids=[c[0] for c in SCALAR_CASES]
)
def test_scalar_where_and_rsub_match_the_op(op_name, inputs, kwargs, x):
    check_elementwise(op_name, inputs(x), kwargs, dynamic=False)


def test_signed_zeros_and_nan_signs_are_exact():
    """-0.0 and the sign of nan survive where the op defines them (compared bit for bit)."""
    x = torch.tensor([0.0, -0.0, 2.0, -3.0, NAN, -NAN])
    y = torch.tensor([-0.0, 0.0, -NAN, NAN, -1.0, 1.0])
    for op_name in ("aten.copysign.Tensor", "aten.floor_divide", "aten.frac"):
        tensors = [x, y] if op_name != "aten.frac" else [x]
        program = single_op_program(op_name, tensors)
        expected = aten_mlir.run_reference(program, *tensors)
        actual = aten_mlir.run_reference(aten_mlir.decompose(program), *tensors)
        assert torch.equal(actual.view(torch.int32), expected.view(torch.int32)), op_name


def test_lerp_is_exact_at_the_ends():
    """Both of ATen's branches: weight 0 gives start and weight 1 gives end exactly."""
    start, end = torch.tensor([1e8, -3.3, 0.1]), torch.tensor([1.0, 7.7, -1e-8])
    for weight, want in ((0.0, start), (1.0, end)):
        program = single_op_program("aten.lerp.Scalar", [start, end], weight=weight)
        assert torch.equal(aten_mlir.run_reference(aten_mlir.decompose(program), start, end), want)


def test_floor_divide_stops_at_core_div_with_floor_mode():
    decomposed = check_elementwise("aten.floor_divide", [N, J], {}, dynamic=False).program
    assert "aten.div.Tensor_mode" in str(decomposed) and '"floor"' in str(decomposed)


def test_opinfo_samples():
    check_opinfo_samples(
        [
            "addcmul",
            "clamp_min",
            "float_power",
            "floor_divide",
            "isclose",
            "lerp",
            "logaddexp",
            "nan_to_num",
            "sinc",
            "square",
            "true_divide",
            "xlogy",
            "hypot",
            "fmax",
            "round.decimals_neg_3",
        ],
        limit=2,
        allow_kept_whole=True,
    )
