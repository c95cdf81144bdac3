// RUN: aten-opt %s -p aten-fold-transposes | FileCheck %s

// The transposed weight is read through a permuted map: no copy.
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @linear
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[W]], #{{.+}}]{{.*}} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<16x8xf32>)
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @linear(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %init: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %wt = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %wt : tensor<4x8xf32>, tensor<8x16xf32>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
