// RUN: aten-opt %s -p aten-fold-transposes --split-input-file | FileCheck %s

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

// -----

// Dynamic attention scores: the output's sequence size is read off the transposed K (through
// the batch folding's collapse_shape); it becomes a dim of K itself, so the transpose goes.
// CHECK-LABEL: func.func @scores
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[S:.+]] = tensor.dim %arg1, %c1
// CHECK: tensor.empty(%{{.+}}, %{{.+}}, %[[S]])
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 :
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, d, j)>
#o = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
func.func @scores(%q: tensor<?x4x?x16xf32>, %k: tensor<?x?x4x16xf32>) -> tensor<?x4x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %q, %c0 : tensor<?x4x?x16xf32>
  %s = tensor.dim %q, %c2 : tensor<?x4x?x16xf32>
  %e = tensor.empty(%b, %s) : tensor<?x4x16x?xf32>
  %kt = linalg.transpose ins(%k : tensor<?x?x4x16xf32>) outs(%e : tensor<?x4x16x?xf32>) permutation = [0, 2, 3, 1]
  %c = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<?x4x16x?xf32> into tensor<?x16x?xf32>
  %n = tensor.dim %c, %c2 : tensor<?x16x?xf32>
  %o = tensor.empty(%b, %s, %n) : tensor<?x4x?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%o : tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  %r = linalg.generic {indexing_maps = [#q, #k, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kt : tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>) outs(%f : tensor<?x4x?x?xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %m = arith.mulf %a, %x : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<?x4x?x?xf32>
  return %r : tensor<?x4x?x?xf32>
}
