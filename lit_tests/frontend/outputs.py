# RUN: %PYTHON %s | FileCheck %s
"""Several outputs and nested output pytrees: tensors become `@main` results in flattened order;
non-tensor leaves (`None`, ints) stay in the signature and come back in place."""

import torch
from torch.utils._pytree import tree_flatten

import aten_mlir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def import_module(module, *args):
    program = aten_mlir.import_program(torch.export.export(module, args))
    aten_mlir.verify_module(program.module)
    return program


def same_pytree(got, want) -> bool:
    got_leaves, got_spec = tree_flatten(got)
    want_leaves, want_spec = tree_flatten(want)
    return got_spec == want_spec and all(
        torch.equal(a, b) if isinstance(a, torch.Tensor) else a == b
        for a, b in zip(got_leaves, want_leaves, strict=True)
    )


class TwoOutputs(torch.nn.Module):
    def forward(self, x, y):
        return x + y, x - y


# CHECK-LABEL: TEST: test_tuple_of_two
@run
def test_tuple_of_two():
    x, y = torch.randn(3), torch.randn(3)
    program = import_module(TwoOutputs(), x, y)
    # CHECK: -> (tensor<3xf32> {aten.user_output = "add"}, tensor<3xf32> {aten.user_output = "sub"})
    # CHECK: [[ADD:%.+]] = "aten.add.Tensor"
    # CHECK-NEXT: [[SUB:%.+]] = "aten.sub.Tensor"
    # CHECK-NEXT: return [[ADD]], [[SUB]] : tensor<3xf32>, tensor<3xf32>
    print(program)
    # CHECK: ok
    same = same_pytree(aten_mlir.run_reference(program, x, y), TwoOutputs()(x, y))
    print("ok" if same else "MISMATCH")


class Nested(torch.nn.Module):
    def forward(self, x, y):
        return {"sum": x + y, "rest": [x * y, (x.neg(), None, 3)]}, x


# CHECK-LABEL: TEST: test_nested_pytree
@run
def test_nested_pytree():
    x, y = torch.randn(2), torch.randn(2)
    program = import_module(Nested(), x, y)
    # The input `x` returned as is is a result like any other.
    # CHECK: func.func @main([[X:%arg[0-9]+]]: tensor<2xf32> {aten.user_input = "x"},
    # CHECK-SAME: [[Y:%arg[0-9]+]]: tensor<2xf32> {aten.user_input = "y"})
    # CHECK-SAME: -> (tensor<2xf32> {aten.user_output = "add"}, tensor<2xf32>
    # CHECK-SAME: {aten.user_output = "mul"}, tensor<2xf32> {aten.user_output = "neg"},
    # CHECK-SAME: tensor<2xf32> {aten.user_output = "x"})
    # CHECK: return {{%[^ ,)]+}}, {{%[^ ,)]+}}, {{%[^ ,)]+}}, [[X]] :
    print(program)
    # CHECK: constant outputs: {3: None, 4: 3}
    print("constant outputs:", program.signature.constant_outputs)
    got = aten_mlir.run_reference(program, x, y)
    # CHECK-NEXT: ['rest', 'sum'] None 3
    print(sorted(got[0]), got[0]["rest"][1][1], got[0]["rest"][1][2])
    # CHECK-NEXT: ok
    print("ok" if same_pytree(got, Nested()(x, y)) else "MISMATCH")


class ConstantsAroundMutation(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        self.steps.add_(1)
        return None, x.relu(), 5


# CHECK-LABEL: TEST: test_constant_outputs_with_mutation
@run
def test_constant_outputs_with_mutation():
    x = torch.randn(4)
    program = import_module(ConstantsAroundMutation(), x)
    # CHECK: -> (tensor<4xf32> {aten.user_output = "relu"}, tensor<i64>
    # CHECK-SAME: {aten.mutated_buffer = "steps"})
    print(program)
    got = aten_mlir.run_reference(program, x)
    # CHECK: None True 5 steps = 1
    print(got[0], torch.equal(got[1], x.relu()), got[2], "steps =", program.state["steps"].item())
