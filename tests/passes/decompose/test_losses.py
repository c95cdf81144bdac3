"""Loss and distance decompositions equal the ops they replace (eager kernels on both sides), for
every reduction, with weights, ignored targets, label smoothing and class-probability targets,
special values, static and `?` dims; they leave only target-set ops. OpInfo samples of the
family decompose and match eager."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set
from tests.support.decomposition import check_decomposition
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program

NAN, INF = float("nan"), float("inf")


def _randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype)


def _classification_cases():
    torch.manual_seed(0)
    x2, x3, x4, x5 = _randn(5, 4), _randn(3, 4, 2), _randn(2, 4, 3, 2), _randn(2, 4, 2, 1, 3)
    t2 = torch.tensor([0, 3, -100, 1, 2])
    t3 = torch.tensor([[0, 1], [3, -100], [2, 2]])
    t4 = torch.randint(0, 4, (2, 3, 2))
    t4[0, 1, 1] = -100
    t5 = torch.randint(0, 4, (2, 2, 1, 3))
    w = torch.rand(4) + 0.5
    probs = torch.softmax(_randn(5, 4), 1)
    xw = ["self", "target", "weight"]
    cases = {}
    for red in (0, 1, 2):
        cases[f"cross_entropy-{red}"] = ("aten.cross_entropy_loss", [x2, t2], {"reduction": red})
        cases[f"cross_entropy-w-{red}"] = (
            "aten.cross_entropy_loss",
            [x3, t3, w],
            {"reduction": red, "names": xw},
        )
        cases[f"cross_entropy-smooth-{red}"] = (
            "aten.cross_entropy_loss",
            [x4, t4, w],
            {"reduction": red, "label_smoothing": 0.2, "names": xw},
        )
        cases[f"cross_entropy-smooth-noweight-{red}"] = (
            "aten.cross_entropy_loss",
            [x2, t2],
            {"reduction": red, "label_smoothing": 0.3},
        )
        cases[f"cross_entropy-probs-{red}"] = (
            "aten.cross_entropy_loss",
            [x2, probs, w],
            {"reduction": red, "label_smoothing": 0.1, "names": xw},
        )
        cases[f"nll_loss_nd-5d-{red}"] = ("aten.nll_loss_nd", [x5, t5], {"reduction": red})
        cases[f"nll_loss_nd-3d-w-{red}"] = (
            "aten.nll_loss_nd",
            [x3, torch.tensor([[0, 1], [3, 2], [2, 2]]), w],
            {"reduction": red, "ignore_index": 2, "names": xw},
        )
        cases[f"nll_loss-w-{red}"] = (
            "aten.nll_loss",
            [x2, t2, w],
            {"reduction": red, "names": xw},
        )
        cases[f"nll_loss2d-{red}"] = ("aten.nll_loss2d", [x4, t4], {"reduction": red})
    cases["cross_entropy-1d"] = ("aten.cross_entropy_loss", [x2[0], torch.tensor(2)], {})
    cases["cross_entropy-1d-smooth"] = (
        "aten.cross_entropy_loss",
        [x2[0], torch.tensor(2)],
        {"label_smoothing": 0.5},
    )
    cases["cross_entropy-probs-1d"] = ("aten.cross_entropy_loss", [x2[0], probs[0]], {})
    cases["nll_loss-all-ignored"] = (
        "aten.nll_loss",
        [x2[:2], torch.tensor([-100, -100])],
        {"reduction": 1},
    )
    cases["nll_loss_forward-1d-none"] = (
        "aten.nll_loss_forward",
        [x2[0], torch.tensor(1), w],
        {"reduction": 0, "ignore_index": -100, "names": xw},
    )
    cases["nll_loss2d_forward"] = (
        "aten.nll_loss2d_forward",
        [x4, t4, w],
        {"reduction": 1, "ignore_index": -100, "names": xw},
    )
    return cases


def _pointwise_cases():
    torch.manual_seed(1)
    x = torch.cat([torch.tensor([NAN, INF, -INF, 0.0, -0.0, 1e-30]), _randn(18) * 3]).reshape(4, 6)
    y = _randn(4, 6)
    p = torch.cat([torch.tensor([0.0, 1.0, 1e-8, 1 - 1e-7]), torch.rand(20)]).reshape(4, 6)
    q = torch.rand(4, 6)
    sign = torch.randint(0, 2, (4, 6)).float() * 2 - 1
    w6 = torch.rand(6)
    pos = torch.rand(4, 6) * 3
    pos[0, :3] = torch.tensor([0.0, 1.0, 2.5])
    cases = {}
    for red in (0, 1, 2):
        r = {"reduction": red}
        cases[f"l1_loss-{red}"] = ("aten.l1_loss", [x, y], r)
        cases[f"mse_loss-{red}"] = ("aten.mse_loss", [x, y], r)
        cases[f"smooth_l1_loss-{red}"] = ("aten.smooth_l1_loss", [x, y], {**r, "beta": 0.7})
        cases[f"huber_loss-{red}"] = ("aten.huber_loss", [x, y], {**r, "delta": 1.5})
        cases[f"soft_margin_loss-{red}"] = ("aten.soft_margin_loss", [x, sign], r)
        cases[f"binary_cross_entropy-{red}"] = (
            "aten.binary_cross_entropy",
            [p, q, w6],
            {**r, "names": ["self", "target", "weight"]},
        )
        cases[f"bce_with_logits-{red}"] = (
            "aten.binary_cross_entropy_with_logits",
            [x, q, w6, w6 * 2],
            {**r, "names": ["self", "target", "weight", "pos_weight"]},
        )
        cases[f"margin_ranking_loss-{red}"] = (
            "aten.margin_ranking_loss",
            [x, y, sign],
            {**r, "margin": 0.3},
        )
        cases[f"hinge_embedding_loss-{red}"] = (
            "aten.hinge_embedding_loss",
            [x, sign],
            {**r, "margin": 0.5},
        )
        cases[f"poisson_nll_loss-{red}"] = (
            "aten.poisson_nll_loss",
            [q, pos],
            {**r, "log_input": False, "full": True, "eps": 1e-8},
        )
        cases[f"kl_div-{red}"] = ("aten.kl_div", [y, pos], r)
    cases["smooth_l1_loss-beta0"] = ("aten.smooth_l1_loss", [x, y], {"reduction": 0, "beta": 0.0})
    cases["binary_cross_entropy-plain"] = ("aten.binary_cross_entropy", [p, q], {"reduction": 0})
    cases["bce_with_logits-plain"] = ("aten.binary_cross_entropy_with_logits", [x, q], {})
    cases["poisson_nll_loss-log"] = (
        "aten.poisson_nll_loss",
        [y, pos],
        {"log_input": True, "full": False, "eps": 1e-8, "reduction": 0},
    )
    cases["kl_div-log-target"] = ("aten.kl_div", [y, x], {"reduction": 0, "log_target": True})
    cases["l1_loss-int"] = (
        "aten.l1_loss",
        [torch.tensor([[3, -2], [0, 7]]), torch.tensor([[1, 1], [1, 1]])],
        {"reduction": 2},
    )
    cases["l1_loss-float64"] = ("aten.l1_loss", [x.double(), y.double()], {"reduction": 1})
    return cases


def _margin_cases():
    x = torch.tensor([[0.1, 0.2, 0.4, 0.8], [NAN, 0.3, -1.0, 2.0], [0.5, 0.5, 0.5, 0.5]])
    t = torch.tensor([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 1, 1, 1]])
    cases = {
        f"multilabel_margin_loss-{r}": ("aten.multilabel_margin_loss", [x, t], {"reduction": r})
        for r in (0, 1, 2)
    }
    cases["multilabel_margin_loss-1d"] = (
        "aten.multilabel_margin_loss",
        [x[0], t[0]],
        {"reduction": 2},
    )
    cases["multilabel_margin_loss-0d"] = (
        "aten.multilabel_margin_loss",
        [torch.tensor(0.3), torch.tensor(0)],
        {"reduction": 1},
    )
    cases["multilabel_margin_loss_forward"] = (
        "aten.multilabel_margin_loss_forward",
        [x, t],
        {"reduction": 1},
    )
    return cases


def _distance_cases():
    torch.manual_seed(2)
    a, b = _randn(3, 5), _randn(3, 5)
    a[0, 0] = NAN
    c = _randn(5)
    z = torch.zeros(3, 5)
    cases = {
        "pairwise_distance": ("aten.pairwise_distance", [a, b], {"p": 2.0, "eps": 1e-6}),
        "pairwise_distance-p1-keepdim": (
            "aten.pairwise_distance",
            [a, c],
            {"p": 1.0, "keepdim": True},
        ),
        "pairwise_distance-inf": ("aten.pairwise_distance", [c, a], {"p": INF}),
        "pairwise_distance-0d": (
            "aten.pairwise_distance",
            [torch.tensor(3.0), torch.tensor(1.0)],
            {},
        ),
        "cosine_similarity": ("aten.cosine_similarity", [a, b], {"dim": 1}),
        "cosine_similarity-zeros": ("aten.cosine_similarity", [z, b], {"dim": 0, "eps": 1e-3}),
        "cosine_similarity-broadcast": ("aten.cosine_similarity", [c, a], {"dim": -1}),
        "cosine_similarity-int": (
            "aten.cosine_similarity",
            [torch.tensor([[1, 2, 3]]), torch.tensor([[2.0, 0.5, -1.0]])],
            {"dim": 1},
        ),
        "cdist": ("aten.cdist", [_randn(2, 4, 3), _randn(2, 30, 3)], {"p": 2.0}),
        "cdist-p1": ("aten.cdist", [_randn(4, 3), _randn(6, 3)], {"p": 1.0}),
        "pdist": ("aten.pdist", [_randn(5, 3)], {"p": 2.0}),
        "dist": ("aten.dist", [a, b], {"p": 3}),
        "dist-inf": ("aten.dist", [c, b], {"p": INF}),
        "dist-0": ("aten.dist", [c, c * 2], {"p": 0}),
    }
    y = torch.tensor([1, -1, 1])
    for r in (0, 1, 2):
        cases[f"cosine_embedding_loss-{r}"] = (
            "aten.cosine_embedding_loss",
            [a, b, y],
            {"margin": 0.2, "reduction": r},
        )
        cases[f"triplet_margin_loss-{r}"] = (
            "aten.triplet_margin_loss",
            [a, b, _randn(3, 5)],
            {"margin": 0.5, "p": 1.5, "swap": True, "reduction": r},
        )
    cases["cosine_embedding_loss-1d"] = (
        "aten.cosine_embedding_loss",
        [c, c * -2, torch.tensor(-1)],
        {"margin": -0.5, "reduction": 0},
    )
    cases["triplet_margin_loss-plain"] = ("aten.triplet_margin_loss", [a, b, _randn(3, 5)], {})
    return cases


CASES = {**_classification_cases(), **_pointwise_cases(), **_margin_cases(), **_distance_cases()}
# The rules that need the class count as a number (label smoothing, multilabel margin's / C).
STATIC_ONLY = {
    n
    for n in CASES
    if n.startswith(("cross_entropy-smooth", "cross_entropy-1d-smooth", "multilabel"))
    or (n.startswith("cross_entropy-probs") and "1d" not in n)
} - {"multilabel_margin_loss-0d"}


def _check(op_name, tensors, kwargs, dynamic=False):
    """`check_decomposition`; the op is gone (names that merely start with it, like the
    `aten.nll_loss_forward` an nll_loss may become, do not count)."""
    decomposed = check_decomposition(op_name, tensors, kwargs, dynamic).program
    assert op_name not in str(decomposed).replace(op_name + "_", ""), str(decomposed)


@pytest.mark.parametrize("case", sorted(CASES))
def test_loss_decomposition_matches_the_op(case):
    _check(*CASES[case])


@pytest.mark.parametrize("case", sorted(set(CASES) - STATIC_ONLY))
def test_loss_decomposition_with_dynamic_dims(case):
    _check(*CASES[case], dynamic=True)


@pytest.mark.parametrize("case", sorted(STATIC_ONLY))
def test_loss_rules_needing_static_classes_leave_dynamic_ops(case):
    """With the class count unknown the op stays (not applicable), and still computes."""
    op_name, tensors, kwargs = CASES[case]
    program = single_op_program(op_name, tensors, dynamic=True, **kwargs)
    decomposed = aten_mlir.decompose(program)
    left = {op.name for op in ops_outside(decomposed.module.operation, target_set())}
    assert left and left <= {op_name, "aten.multilabel_margin_loss_forward"}, left
    torch.testing.assert_close(
        aten_mlir.run_reference(decomposed, *tensors),
        aten_mlir.run_reference(program, *tensors),
        equal_nan=True,
    )


def test_multilabel_margin_loss_of_one_unreduced_row_has_the_ops_type():
    """ATen's meta function types the unreduced loss of a 1-D input [1] (its CPU kernel returns
    []): the decomposition keeps the op's type, with the kernel's value."""
    x, t = torch.tensor([0.1, 0.9, -0.3, 0.2]), torch.tensor([1, 0, -1, 2])
    program = single_op_program("aten.multilabel_margin_loss", [x, t], reduction=0)
    decomposed = aten_mlir.decompose(program)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    assert "tensor<1xf32>" in str(decomposed.module.body.operations[0].type.results[0])
    actual = aten_mlir.run_reference(decomposed, x, t)
    expected = torch.nn.functional.multilabel_margin_loss(x, t, reduction="none")
    torch.testing.assert_close(actual, expected.reshape(1))


def test_classes_may_be_dynamic_when_the_batch_is():
    """Only the class dim must be static for label smoothing: the batch can be `?`."""
    op_name, tensors, kwargs = CASES["cross_entropy-smooth-1"]
    program = single_op_program(op_name, tensors, dynamic=[{0}, {0}, set()], **kwargs)
    decomposed = aten_mlir.decompose(program)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    torch.testing.assert_close(
        aten_mlir.run_reference(decomposed, *tensors), aten_mlir.run_reference(program, *tensors)
    )


# nn.functional.gaussian_nll_loss is left out: torch.export rejects its samples (data-dependent
# checks in the Python function); nn.functional.ctc_loss too (`_ctc_loss` has no fake kernel).
LOSS_OPINFOS = [
    "nn.functional.cross_entropy",
    "nn.functional.nll_loss",
    "nn.functional.binary_cross_entropy",
    "nn.functional.binary_cross_entropy_with_logits",
    "nn.functional.soft_margin_loss",
    "nn.functional.margin_ranking_loss",
    "nn.functional.multilabel_margin_loss",
    "nn.functional.multilabel_soft_margin_loss",
    "nn.functional.triplet_margin_loss",
    "nn.functional.triplet_margin_with_distance_loss",
    "nn.functional.smooth_l1_loss",
    "nn.functional.l1_loss",
    "nn.functional.mse_loss",
    "nn.functional.cosine_embedding_loss",
    "nn.functional.hinge_embedding_loss",
    "nn.functional.huber_loss",
    "nn.functional.poisson_nll_loss",
    "nn.functional.kl_div",
    "nn.functional.pairwise_distance",
    "nn.functional.cosine_similarity",
    "nn.functional.pdist",
    "cdist",
    "dist",
]


def test_loss_opinfo_samples_decompose():
    check_opinfo_samples(LOSS_OPINFOS, limit=1)
