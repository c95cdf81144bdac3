// RUN: aten-opt %s --split-input-file --verify-diagnostics -p aten-decompose

// A malformed op (a Tensor[] operand group without operandSegmentSizes) is reported at its
// location by the rule that could not read it, not with a traceback.
func.func @malformed(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'aten.hstack' op decomposition decompose_hstack: ValueError: requires operandSegmentSizes}}
  %0 = "aten.hstack"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
