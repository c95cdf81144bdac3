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
