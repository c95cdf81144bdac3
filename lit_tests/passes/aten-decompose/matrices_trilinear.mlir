// RUN: aten-opt %s --split-input-file -p 'aten-decompose{only=aten._trilinear}' | FileCheck %s --check-prefix=STEP
// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// nn.Bilinear's forward: x1 [B, I] and x2 [B, J] against the weight [O, I, J], summed over I
// and J; as an einsum it contracts x1 with the weight (a bmm over I), then with x2 (a batched
// bmm over J).
// STEP-LABEL: func.func @bilinear
// STEP-NEXT: "aten.einsum"(%arg0, %arg1, %arg2) {equation = "ac,bcd,ad->ab"{{.*}}} : (tensor<?x5xf32>, tensor<3x5x4xf32>, tensor<?x4xf32>) -> tensor<?x3xf32>
// CHECK-LABEL: func.func @bilinear
// CHECK: "aten.bmm"({{.*}}) : (tensor<1x?x5xf32>, tensor<1x5x12xf32>) -> tensor<1x?x12xf32>
// CHECK: "aten.bmm"({{.*}}) : (tensor<?x3x4xf32>, tensor<?x4x1xf32>) -> tensor<?x3x1xf32>
// CHECK-NOT: "aten._trilinear"
// CHECK-NOT: "aten.einsum"
// CHECK: return
func.func @bilinear(%a: tensor<?x5xf32>, %w: tensor<3x5x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x3xf32> {
  %0 = "aten._trilinear"(%a, %w, %b) {expand1 = array<i64: 1, 3>, expand2 = array<i64: 0>, expand3 = array<i64: 1, 2>, sumdim = array<i64: 2, 3>, unroll_dim = 1 : i64} : (tensor<?x5xf32>, tensor<3x5x4xf32>, tensor<?x4xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Its weight gradient, summed over the batch only: x1 times the output gradient (nothing
// shared is summed: a broadcast mul), then a bmm with x2 over the batch.
// STEP-LABEL: func.func @bilinear_weight_grad
// STEP-NEXT: "aten.einsum"(%arg0, %arg1, %arg2) {equation = "ac,ab,ad->bcd"{{.*}}}
// CHECK-LABEL: func.func @bilinear_weight_grad
// CHECK: "aten.mul.Tensor"({{.*}}) : (tensor<7x5x1xf64>, tensor<7x1x3xf64>) -> tensor<7x5x3xf64>
// CHECK: "aten.bmm"({{.*}}) : (tensor<1x15x7xf64>, tensor<1x7x4xf64>) -> tensor<1x15x4xf64>
// CHECK: "aten.permute"({{.*}}) -> tensor<3x5x4xf64>
// CHECK-NEXT: return
func.func @bilinear_weight_grad(%a: tensor<7x5xf64>, %g: tensor<7x3xf64>, %b: tensor<7x4xf64>) -> tensor<3x5x4xf64> {
  %0 = "aten._trilinear"(%a, %g, %b) {expand1 = array<i64: 1, 3>, expand2 = array<i64: 2, 3>, expand3 = array<i64: 1, 2>, sumdim = array<i64: 0>, unroll_dim = 1 : i64} : (tensor<7x5xf64>, tensor<7x3xf64>, tensor<7x4xf64>) -> tensor<3x5x4xf64>
  return %0 : tensor<3x5x4xf64>
}
