// RUN: aten-opt %s -p aten-split-contraction-prologue --split-input-file | FileCheck %s

// The operand computed in the body (x * scale) becomes its own elementwise generic over
// (rows, k); the product is then a plain out + a * b contraction, which tl.dot can take.
// CHECK-LABEL: func.func @scaled_linear
// CHECK: %[[X:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} outs(%{{.+}} : tensor<4x8xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[X]], %arg2 : tensor<4x8xf32>, tensor<8x16xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#s = affine_map<(d0, d1, d2) -> (d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @scaled_linear(%x: tensor<4x8xf32>, %scale: tensor<4xf32>, %w: tensor<8x16xf32>, %init: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.generic {indexing_maps = [#a, #s, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %scale, %w : tensor<4x8xf32>, tensor<4xf32>, tensor<8x16xf32>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%p: f32, %k: f32, %q: f32, %acc: f32):
    %n = arith.mulf %p, %k : f32
    %m = arith.mulf %n, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// A bf16 product with a fused prologue (a bias add rounded to bf16, then widened for the
// product): the prologue is materialized in bf16, not as an f32 copy, and the product widens
// it in its body, the mixed-type form the CPU contraction kernels take.
// CHECK-LABEL: func.func @bf16_prologue
// CHECK: %[[X:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} outs(%{{.+}} : tensor<4x8xbf16>)
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[X]], %arg2 : tensor<4x8xbf16>, tensor<8x16xbf16>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: bf16, %[[B:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[EA:.+]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT: %[[EB:.+]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[EA]], %[[EB]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#s = affine_map<(d0, d1, d2) -> (d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @bf16_prologue(%x: tensor<4x8xbf16>, %bias: tensor<8xbf16>, %w: tensor<8x16xbf16>, %init: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.generic {indexing_maps = [#a, #s, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %bias, %w : tensor<4x8xbf16>, tensor<8xbf16>, tensor<8x16xbf16>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%p: bf16, %k: bf16, %q: bf16, %acc: f32):
    %pe = arith.extf %p : bf16 to f32
    %ke = arith.extf %k : bf16 to f32
    %n = arith.addf %pe, %ke : f32
    %t = arith.truncf %n : f32 to bf16
    %te = arith.extf %t : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %m = arith.mulf %te, %qe : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// A decode step's x[1, 1, 8] @ W.T with the reshapes folded in by expansion: k is (d3, d4),
// d3 of extent 1. The prologue (tanh) is still split out, over (d0, d3, d4), rather than run
// once per output column; a second reduction of extent > 1 would stay fused.
// CHECK-LABEL: func.func @unit_reduction
// CHECK: %[[X:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]{{.*}} outs(%{{.+}} : tensor<1x1x8xf32>)
// CHECK: math.tanh
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]{{.*}} ins(%[[X]], %arg1 : tensor<1x1x8xf32>, tensor<1x16x1x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-LABEL: func.func @long_second_reduction
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
#x = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3, d4)>
#o = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
func.func @unit_reduction(%x: tensor<1x1x8xf32>, %w: tensor<1x16x1x8xf32>, %init: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<1x1x8xf32>, tensor<1x16x1x8xf32>) outs(%init : tensor<1x1x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %t = math.tanh %a : f32
    %m = arith.mulf %t, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x16xf32>
  return %r : tensor<1x1x16xf32>
}
func.func @long_second_reduction(%x: tensor<1x2x8xf32>, %w: tensor<1x16x2x8xf32>, %init: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<1x2x8xf32>, tensor<1x16x2x8xf32>) outs(%init : tensor<1x1x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %t = math.tanh %a : f32
    %m = arith.mulf %t, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x16xf32>
  return %r : tensor<1x1x16xf32>
}
