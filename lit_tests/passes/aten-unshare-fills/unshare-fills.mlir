// RUN: aten-opt %s -p aten-unshare-fills | FileCheck %s

// Two sums accumulating into one CSE'd zero get a fill each (bufferization would copy it),
// right before each: a fill left ahead of the first sum would be computed by its kernel.
// CHECK-LABEL: func.func @two_sums
// CHECK: %[[E1:.+]] = tensor.empty
// CHECK-NEXT: %[[F1:.+]] = linalg.fill {{.*}} outs(%[[E1]] :
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[F1]] :
// CHECK: %[[E2:.+]] = tensor.empty
// CHECK-NEXT: %[[F2:.+]] = linalg.fill {{.*}} outs(%[[E2]] :
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[F2]] :
// CHECK-NOT: linalg.fill
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @two_sums(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x8xf32>) outs(%fill : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]} ins(%b : tensor<4x8xf32>) outs(%fill : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s1, %s2 : tensor<4xf32>, tensor<4xf32>
}
