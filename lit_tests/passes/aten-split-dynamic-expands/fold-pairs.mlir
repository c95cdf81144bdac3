// RUN: aten-opt %s -p 'aten-split-dynamic-expands{fold-only=true}' --split-input-file | FileCheck %s

// What fusion leaves of a Linear over [b, s, k] with both dims `?`: the bias add in the
// unflattened space, viewed flat and back. The view's sizes are the ones the bias's init was
// made from (through another view's `output_shape`), so the pair folds and the residual add
// reads the bias add directly.
// CHECK-LABEL: func.func @linear_view_back
// CHECK-NOT: collapse_shape
// CHECK: %[[B:.+]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[B]], %arg0
// CHECK: return
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d2)>
func.func @linear_view_back(%x: tensor<?x?x8xf32>, %bias: tensor<8xf32>, %flat: tensor<?x8xf32>) -> tensor<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x8xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x8xf32>
  %v = tensor.expand_shape %flat [[0, 1], [2]] output_shape [%b, %s, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
  %vb = tensor.dim %v, %c0 : tensor<?x?x8xf32>
  %vs = tensor.dim %v, %c1 : tensor<?x?x8xf32>
  %init = tensor.empty(%vb, %vs) : tensor<?x?x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v, %bias : tensor<?x?x8xf32>, tensor<8xf32>) outs(%init : tensor<?x?x8xf32>) {
  ^bb0(%a: f32, %w: f32, %o: f32):
    %r = arith.addf %a, %w : f32
    linalg.yield %r : f32
  } -> tensor<?x?x8xf32>
  %c = tensor.collapse_shape %y [[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
  %e = tensor.expand_shape %c [[0, 1], [2]] output_shape [%b, %s, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
  %init2 = tensor.empty(%b, %s) : tensor<?x?x8xf32>
  %z = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %x : tensor<?x?x8xf32>, tensor<?x?x8xf32>) outs(%init2 : tensor<?x?x8xf32>) {
  ^bb0(%a: f32, %r: f32, %o: f32):
    %t = arith.addf %a, %r : f32
    linalg.yield %t : f32
  } -> tensor<?x?x8xf32>
  return %z : tensor<?x?x8xf32>
}

// -----

// Sizes that cannot be matched: the pair stays (no gather in this mode).
// CHECK-LABEL: func.func @unmatched
// CHECK: %[[C:.+]] = tensor.collapse_shape %arg0
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0, 1], [2]] output_shape [%arg1, %arg2, 8]
// CHECK-NOT: linalg.generic
func.func @unmatched(%y: tensor<?x?x8xf32>, %a: index, %b: index) -> tensor<?x?x8xf32> {
  %c = tensor.collapse_shape %y [[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
  %e = tensor.expand_shape %c [[0, 1], [2]] output_shape [%a, %b, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
  return %e : tensor<?x?x8xf32>
}
