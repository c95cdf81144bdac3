// RUN: aten-opt %s -p 'aten-outline-repeated-blocks{min-period=2}' | FileCheck %s
// RUN: aten-opt %s -p 'aten-outline-repeated-blocks{min-period=2},duplicate-function-elimination' | FileCheck %s --check-prefix=DFE

// Three layers of (x * w) + x: each becomes a call taking the running value and its weight,
// in order of first use; the shared empty tensor is cloned into each function, not passed.
// CHECK-LABEL: func.func @layers(
// CHECK-SAME: %[[X:.+]]: tensor<8xf32>, %[[W0:.+]]: tensor<8xf32>, %[[W1:.+]]: tensor<8xf32>, %[[W2:.+]]: tensor<8xf32>
// CHECK: %[[R0:.+]] = call @layers_block0(%[[X]], %[[W0]]) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[R1:.+]] = call @layers_block1(%[[R0]], %[[W1]])
// CHECK-NEXT: %[[R2:.+]] = call @layers_block2(%[[R1]], %[[W2]])
// CHECK-NEXT: return %[[R2]]
// Too short a run to be worth a call (min-period 2, two ops): nothing changes.
// CHECK-LABEL: func.func @once(
// CHECK-NOT: call
// CHECK: func.func private @layers_block0(%[[A:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>) -> tensor<8xf32> attributes {aten.glue}
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[M:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : {{.*}}) outs(%[[E]] :
// CHECK: linalg.generic {{.*}} ins(%[[M]], %[[A]] : {{.*}}) outs(%[[E]] :
// CHECK: func.func private @layers_block1(
// CHECK: func.func private @layers_block2(
// DFE-LABEL: func.func @layers(
// DFE: call @layers_block0(
// DFE-NEXT: call @layers_block0(
// DFE-NEXT: call @layers_block0(
// DFE-NOT: func.func private @layers_block1

// The signature only proposes blocks: the third layer adds 2.0 rather than 1.0 inside its
// body, so duplicate-function-elimination keeps its function apart (the first two merge).
// DFE-LABEL: func.func @almost(
// DFE: call @almost_block0(
// DFE-NEXT: call @almost_block0(
// DFE-NEXT: call @almost_block2(
// DFE: func.func private @almost_block0(
// DFE: arith.constant 1.000000e+00
// DFE: func.func private @almost_block2(
// DFE: arith.constant 2.000000e+00

#map = affine_map<(d0) -> (d0)>
func.func @layers(%x: tensor<8xf32>, %w0: tensor<8xf32>, %w1: tensor<8xf32>, %w2: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%x, %w0 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %b0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%a0, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %a1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%b0, %w1 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %b1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%a1, %b0 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %a2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%b1, %w2 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %b2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%a2, %b1 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %b2 : tensor<8xf32>
}

func.func @almost(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.mulf %p, %p : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %b0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %s = arith.addf %p, %c : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %a1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%b0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.mulf %p, %p : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %b1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a1 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %s = arith.addf %p, %c : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %a2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%b1 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.mulf %p, %p : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %b2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a2 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %c = arith.constant 2.0 : f32
    %s = arith.addf %p, %c : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %b2 : tensor<8xf32>
}

func.func @once(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.mulf %p, %p : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %b0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %p : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %b0 : tensor<8xf32>
}
