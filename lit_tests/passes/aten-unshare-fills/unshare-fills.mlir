// RUN: aten-opt %s -p aten-unshare-fills --split-input-file | FileCheck %s

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

// -----

// Two padded images of one shape share a CSE'd border fill and a CSE'd slice of it, each
// interior computed into that slice (destination-passing style) and inserted back. Each gets
// its own fill and its own slice of it, right before the copy that writes the interior:
// bufferization then writes the interiors in place, with no copy of a whole padded buffer.
// CHECK-LABEL: func.func @two_pads
// CHECK: %[[F1:.+]] = linalg.fill
// CHECK-NEXT: %[[S1:.+]] = tensor.extract_slice %[[F1]][0, 1] [4, 8] [1, 1]
// CHECK-NEXT: %[[C1:.+]] = linalg.copy ins(%arg0 {{.*}} outs(%[[S1]] :
// CHECK-NEXT: tensor.insert_slice %[[C1]] into %[[F1]][0, 1]
// CHECK: %[[F2:.+]] = linalg.fill
// CHECK-NEXT: %[[S2:.+]] = tensor.extract_slice %[[F2]][0, 1] [4, 8] [1, 1]
// CHECK-NEXT: %[[C2:.+]] = linalg.copy ins(%arg1 {{.*}} outs(%[[S2]] :
// CHECK-NEXT: tensor.insert_slice %[[C2]] into %[[F2]][0, 1]
// CHECK-NOT: linalg.fill
// CHECK-NOT: tensor.extract_slice
func.func @two_pads(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x10xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x10xf32>) -> tensor<4x10xf32>
  %slice = tensor.extract_slice %fill[0, 1] [4, 8] [1, 1] : tensor<4x10xf32> to tensor<4x8xf32>
  %ca = linalg.copy ins(%a : tensor<4x8xf32>) outs(%slice : tensor<4x8xf32>) -> tensor<4x8xf32>
  %pa = tensor.insert_slice %ca into %fill[0, 1] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x10xf32>
  %cb = linalg.copy ins(%b : tensor<4x8xf32>) outs(%slice : tensor<4x8xf32>) -> tensor<4x8xf32>
  %pb = tensor.insert_slice %cb into %fill[0, 1] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x10xf32>
  return %pa, %pb : tensor<4x10xf32>, tensor<4x10xf32>
}
