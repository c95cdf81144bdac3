"""`run_reference`: input checking against the compiled types, state written back (mutated
buffers into `program.state`, mutated user inputs into the caller's tensors) and outputs returned
in the module's pytree, constants included."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim
from torch.utils._pytree import tree_flatten

import aten_mlir


def import_module(module, *args, **kwargs):
    return aten_mlir.import_program(torch.export.export(module, args, **kwargs))


class Affine(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x, bias):
        return self.fc(x) + bias


@pytest.fixture(scope="module")
def affine():
    return import_module(Affine(), torch.randn(2, 4), torch.randn(3))


def test_correct_inputs_run(affine):
    x, bias = torch.randn(2, 4), torch.randn(3)
    module = Affine()
    module.load_state_dict(affine.state)
    torch.testing.assert_close(aten_mlir.run_reference(affine, x, bias), module(x, bias))


@pytest.mark.parametrize(
    "inputs, message",
    [
        ((torch.randn(2, 4),), r"expected 2 user inputs, got 1"),
        ((torch.randn(2, 4), torch.randn(3), torch.randn(3)), r"expected 2 user inputs, got 3"),
        ((torch.randn(2, 4, dtype=torch.float64), torch.randn(3)), r"float64"),
        ((torch.randn(2, 4), torch.ones(3, dtype=torch.int64)), r"int64"),
        ((torch.randn(3, 4), torch.randn(3)), r"\[3, 4\]"),
        ((torch.randn(2, 4, 1), torch.randn(3)), r"\[2, 4, 1\]"),
        ((torch.randn(2, 4), torch.randn(())), r"\[\]"),
        ((torch.randn(2, 4), [1.0, 2.0, 3.0]), r"must be a tensor"),
    ],
    ids=["too_few", "too_many", "dtype", "int_dtype", "static_dim", "rank", "rank0", "list"],
)
def test_bad_inputs_are_value_errors(affine, inputs, message):
    with pytest.raises(ValueError, match=message):
        aten_mlir.run_reference(affine, *inputs)


def test_bad_input_is_named_by_its_argument_name(affine):
    """The program has two parameters before `x`: the message names `x` and `bias` as the
    module's forward does."""
    with pytest.raises(ValueError, match=r"input 'x': expected tensor<2x4xf32>"):
        aten_mlir.run_reference(affine, torch.randn(2, 4, dtype=torch.float64), torch.randn(3))
    with pytest.raises(ValueError, match=r"input 'bias': expected tensor<3xf32>"):
        aten_mlir.run_reference(affine, torch.randn(2, 4), torch.randn(4))


def test_a_result_of_another_shape_than_declared_is_an_error():
    """`?` in an operand lets a static result type pass the verifier (it cannot refute it), but
    the kernel's result must still be what the IR declares, not flow on as another shape."""
    program = aten_mlir.Program.from_text(
        "func.func @main(%x: tensor<?x3xf32>) -> tensor<2x3xf32> {\n"
        '  %0 = "aten.relu"(%x) : (tensor<?x3xf32>) -> tensor<2x3xf32>\n'
        "  return %0 : tensor<2x3xf32>\n}",
        "t.mlir",
    )
    aten_mlir.verify_module(program.module)
    x = torch.randn(2, 3)
    torch.testing.assert_close(aten_mlir.run_reference(program, x), x.relu())
    with pytest.raises(aten_mlir.ReferenceError, match=r"t.mlir:2:.*aten.relu.*declared"):
        aten_mlir.run_reference(program, torch.randn(5, 3))


class Rows(torch.nn.Module):
    def forward(self, x):
        return x.sum(dim=0) * x.shape[0]


def test_dynamic_dims_accept_any_size_static_ones_do_not():
    program = import_module(Rows(), torch.randn(4, 3), dynamic_shapes={"x": {0: Dim("n")}})
    for rows in (2, 5, 9):
        x = torch.randn(rows, 3)
        torch.testing.assert_close(aten_mlir.run_reference(program, x), Rows()(x))
    with pytest.raises(ValueError, match=r"\[5, 4\]"):
        aten_mlir.run_reference(program, torch.randn(5, 4))


class RunningStats(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(3))
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))
        self.register_buffer("scale", torch.full((3,), 2.0))

    def forward(self, x):
        self.total.add_(x)
        self.calls.add_(1)
        return self.total * self.scale


def test_mutated_buffers_are_written_back_into_state():
    program = import_module(RunningStats(), torch.randn(3))
    scale_before = program.state["scale"]
    eager = RunningStats()
    for _ in range(3):
        x = torch.randn(3)
        torch.testing.assert_close(aten_mlir.run_reference(program, x), eager(x))
    torch.testing.assert_close(program.state["total"], eager.total)
    assert program.state["calls"].item() == 3
    assert program.state["scale"] is scale_before  # not mutated: left alone


class MutatesInputs(torch.nn.Module):
    def forward(self, a, b, c):
        a.mul_(2)
        c.add_(a)
        return b + 1


def test_mutated_user_inputs_are_written_into_the_callers_tensors():
    a, b, c = torch.ones(3), torch.ones(3), torch.zeros(3)
    program = import_module(MutatesInputs(), a.clone(), b.clone(), c.clone())
    roles = [(s.role, s.name) for s in program.signature.outputs]
    assert [r for r, _ in roles] == ["user_output", "mutated_input", "mutated_input"]
    assert [n for _, n in roles[1:]] == ["a", "c"]
    a_ptr, c_ptr = a.data_ptr(), c.data_ptr()
    out = aten_mlir.run_reference(program, a, b, c)
    assert out.tolist() == [2.0, 2.0, 2.0]
    assert a.tolist() == [2.0, 2.0, 2.0] and c.tolist() == [2.0, 2.0, 2.0]
    assert b.tolist() == [1.0, 1.0, 1.0]
    assert (a.data_ptr(), c.data_ptr()) == (a_ptr, c_ptr)  # in place, as eager
    aten_mlir.run_reference(program, a, b, c)
    assert a.tolist() == [4.0, 4.0, 4.0] and c.tolist() == [6.0, 6.0, 6.0]


class ConstantLeaves(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("seen", torch.zeros(()))

    def forward(self, x):
        self.seen.add_(1)
        return 1.5, x + 1, (None, x * 2, 7), {"flag": True, "sum": x.sum(), "none": None}


def test_constant_outputs_come_back_in_their_pytree_positions():
    x = torch.randn(3)
    program = import_module(ConstantLeaves(), x)
    got, want = aten_mlir.run_reference(program, x), ConstantLeaves()(x)
    got_leaves, got_spec = tree_flatten(got)
    want_leaves, want_spec = tree_flatten(want)
    assert got_spec == want_spec
    assert len(got_leaves) == len(want_leaves) == 8
    for g, w in zip(got_leaves, want_leaves, strict=True):
        if isinstance(w, torch.Tensor):
            torch.testing.assert_close(g, w)
        else:
            assert g == w and type(g) is type(w)
    assert program.state["seen"].item() == 1.0


class ReturnsOnlyInputs(torch.nn.Module):
    def forward(self, x, y):
        return y, x, y


def test_outputs_that_are_inputs():
    x, y = torch.randn(2), torch.randn(3)
    program = import_module(ReturnsOnlyInputs(), x, y)
    got = aten_mlir.run_reference(program, x, y)
    assert [t.tolist() for t in got] == [y.tolist(), x.tolist(), y.tolist()]
