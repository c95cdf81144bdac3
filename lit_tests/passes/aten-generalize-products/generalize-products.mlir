// RUN: aten-opt %s -p aten-generalize-products,aten-fold-transposes --split-input-file | FileCheck %s

// A matmul reading a transposed weight becomes one generic that reads the weight through a
// permuted map: no transpose, no copy.
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[Y:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @linear
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[Y]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 :
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NOT: linalg.matmul
func.func @linear(%x: tensor<4x8xf32>, %w: tensor<6x8xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x6xf32>
  %wt = linalg.transpose ins(%w : tensor<6x8xf32>) outs(%e : tensor<8x6xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<4x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<4x8xf32>, tensor<8x6xf32>) outs(%f : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

// Mixed element types (an integer product, a cast) keep the named op.
// CHECK-LABEL: func.func @integers
// CHECK: linalg.matmul
func.func @integers(%a: tensor<4x4xi32>, %b: tensor<4x4xi32>, %c: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %y = linalg.matmul ins(%a, %b : tensor<4x4xi32>, tensor<4x4xi32>) outs(%c : tensor<4x4xi32>) -> tensor<4x4xi32>
  return %y : tensor<4x4xi32>
}

// -----

// bf16 inputs into an f32 accumulator (a bf16 linear layer): the same generic, each input
// widened in the body, the weight read through the permuted map (no transposed copy).
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @bf16_linear
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x8xbf16>, tensor<6x8xbf16>) outs({{.*}} : tensor<4x6xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: bf16, %[[B:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[EA:.+]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT: %[[EB:.+]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[EA]], %[[EB]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NOT: linalg.matmul
func.func @bf16_linear(%x: tensor<4x8xbf16>, %w: tensor<6x8xbf16>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x6xbf16>
  %wt = linalg.transpose ins(%w : tensor<6x8xbf16>) outs(%e : tensor<8x6xbf16>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<4x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<4x8xbf16>, tensor<8x6xbf16>) outs(%f : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

// f16 batched product into f32, dynamic batch and rows.
// CHECK-LABEL: func.func @f16_bmm
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-NEXT: ^bb0(%[[A:.+]]: f16, %[[B:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT: arith.extf %[[A]] : f16 to f32
// CHECK-NEXT: arith.extf %[[B]] : f16 to f32
// CHECK-NOT: linalg.batch_matmul
func.func @f16_bmm(%a: tensor<?x?x8xf16>, %b: tensor<?x8x6xf16>, %c: tensor<?x?x6xf32>) -> tensor<?x?x6xf32> {
  %y = linalg.batch_matmul ins(%a, %b : tensor<?x?x8xf16>, tensor<?x8x6xf16>) outs(%c : tensor<?x?x6xf32>) -> tensor<?x?x6xf32>
  return %y : tensor<?x?x6xf32>
}

// -----

// Inputs of two different types, or a narrow accumulator of wider inputs, keep the named op.
// CHECK-LABEL: func.func @mixed_inputs
// CHECK: linalg.matmul
func.func @mixed_inputs(%a: tensor<4x4xbf16>, %b: tensor<4x4xf16>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<4x4xbf16>, tensor<4x4xf16>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
