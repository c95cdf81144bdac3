// RUN: aten-opt %s --split-input-file --verify-diagnostics -p 'aten-verify{target=core}'
// RUN: not aten-opt %s --split-input-file --verify-diagnostics -p 'aten-verify{target=core allow=aten.linear}' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALLOW
// RUN: not aten-opt %s -p 'aten-verify{target=everything}' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: aten-opt: error: aten-verify: option 'target' must be one of all, core, got 'everything'

// target=core also rejects well-formed ops outside the core ATen opset (torch.Tag.core);
// `allow` lists ops accepted anyway.
// ALLOW-NOT: unexpected
func.func @not_core(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> tensor<2x3xf32> {
  // ALLOW: :[[@LINE+1]]:6: error: expected error "'aten.linear' op is not in the core ATen opset" was not produced
  // expected-error@+1 {{'aten.linear' op is not in the core ATen opset}}
  %0 = "aten.linear"(%x, %w) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @core(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.add.Tensor"(%a, %a) {alpha = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "aten.relu"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// An op the dialect does not know is reported once, by the schema check.
func.func @unknown(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'aten.frobnicate' op is not an op of the aten dialect}}
  %0 = "aten.frobnicate"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
