// RUN: aten-opt %s -p aten-clone-broadcast-producers | FileCheck %s
// RUN: aten-opt %s -p aten-clone-broadcast-producers,linalg-fuse-elementwise-ops | FileCheck %s --check-prefix=FUSED

// A layer norm's mean (sum / n per row), read by the variance and by the normalization through
// broadcasts: each reader gets its own copy, and fusion then folds one into each.
// CHECK-LABEL: func.func @mean(
// CHECK-COUNT-2: arith.divf
// CHECK-NOT: arith.divf
// FUSED-LABEL: func.func @mean(
// FUSED-COUNT-2: arith.divf
// FUSED-NOT: ins(%{{[^ ]+}} : tensor<4xf32>) outs

// A producer read once, or read whole (no broadcast) by one of its readers, stays as it is.
// CHECK-LABEL: func.func @whole(
// CHECK: arith.divf
// CHECK-NOT: arith.divf
// FUSED-LABEL: func.func @whole(
#row = affine_map<(d0, d1) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @mean(%x: tensor<4x8xf32>, %sum: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %n = arith.constant 8.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sum : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%s: f32, %o: f32):
    %d = arith.divf %s, %n : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %var = linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %mean : tensor<4x8xf32>, tensor<4xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %c = arith.subf %v, %m : f32
    %q = arith.mulf %c, %c : f32
    %a = arith.addf %o, %q : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %centered = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<4x8xf32>, tensor<4xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %c = arith.subf %v, %m : f32
    linalg.yield %c : f32
  } -> tensor<4x8xf32>
  return %var, %centered : tensor<4xf32>, tensor<4x8xf32>
}

func.func @whole(%sum: tensor<4xf32>, %x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %n = arith.constant 8.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sum : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%s: f32, %o: f32):
    %d = arith.divf %s, %n : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  %twice = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%mean : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%m: f32, %o: f32):
    %t = arith.addf %m, %m : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %centered = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<4x8xf32>, tensor<4xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %c = arith.subf %v, %m : f32
    linalg.yield %c : f32
  } -> tensor<4x8xf32>
  return %twice, %centered : tensor<4xf32>, tensor<4x8xf32>
}
