// RUN: aten-opt %s --split-input-file -p aten-reuse-dead-inputs | FileCheck %s

// The scale of a product's result writes over it: nothing reads the product afterwards, and
// its buffer is one this function allocates.
// CHECK-LABEL: func.func @scale_over_product
// CHECK: %[[P:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<4x8xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[P]] : tensor<4x8xf32>) outs(%[[P]] : tensor<4x8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @scale_over_product(%x: tensor<4x3xf32>, %y: tensor<3x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %s = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<4x3xf32>, tensor<3x8xf32>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %m = arith.mulf %u, %v : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%u: f32, %o: f32):
    %m = arith.mulf %u, %s : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %q : tensor<4x8xf32>
}

// -----

// A reader before the op is fine (a softmax's sum reads the exponentials before they are
// normalised); a reader after it, or a caller's argument, keeps the fresh buffer.
// CHECK-LABEL: func.func @readers
// CHECK: %[[E:.+]] = linalg.generic {{.+}} ins(%[[X:.+]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK: %[[N:.+]] = linalg.generic {{.+}} ins(%[[E]] : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: %[[F:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {{.+}} ins(%[[N]] : tensor<4x8xf32>) outs(%[[F]] : tensor<4x8xf32>)
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @readers(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%u: f32, %o: f32):
    %m = math.exp %u : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %r0 = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %a = arith.addf %o, %u : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%e : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%u: f32, %o: f32):
    %m = arith.mulf %u, %u : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%n : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%u: f32, %o: f32):
    %m = arith.negf %u : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %n, %sum, %t : tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>
}
