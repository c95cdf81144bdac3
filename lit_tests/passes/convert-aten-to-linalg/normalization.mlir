// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// Two-pass statistics (mean, then squared deviations from it), then one normalising generic;
// mean and rstd come back as keepdim views. A dynamic row sums in f64.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<4x?xf32>, %[[W:.+]]: tensor<?xf32>, %[[B:.+]]: tensor<?xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x?xf32>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.+}} ins(%[[SUM]] : tensor<4xf64>)
// CHECK: arith.divf
// CHECK: %[[SQ:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<4x?xf32>, tensor<4xf64>)
// CHECK: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: %[[RSTD:.+]] = linalg.generic {{.+}} ins(%[[SQ]] : tensor<4xf64>)
// CHECK: math.sqrt
// CHECK: %[[OUT:.+]] = linalg.generic {{.+}} ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[W]], %[[B]] : tensor<4x?xf32>, tensor<4xf64>, tensor<4xf64>, tensor<?xf32>, tensor<?xf32>)
// The weight's multiply and the bias add may fuse into an FMA.
// CHECK: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.mulf {{.+}} fastmath<contract>
// CHECK-NEXT: arith.addf {{.+}} fastmath<contract>
// CHECK: tensor.expand_shape
// CHECK: tensor.expand_shape
// CHECK-NOT: aten.
func.func @layer_norm(%x: tensor<4x?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<4x?xf32>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %0:3 = "aten.native_layer_norm"(%x, %w, %b) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: -9223372036854775808>, operandSegmentSizes = array<i32: 1, 0, 1, 1, 0>} : (tensor<4x?xf32>, tensor<?xf32>, tensor<?xf32>) -> (tensor<4x?xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<4x?xf32>, tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// A static f32 row of at most 4096 elements sums in f32: pass 1 x and 2^-64 |x| (its inverse
// the scale), pass 2 the scaled deviations d = x * scale + shift and d^2 (FMAs); the per-row
// mean and rstd undo the scale in f64.
// CHECK-LABEL: func.func @layer_norm_f32
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>
// CHECK: %[[P1:.+]]:2 = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<?x8xf32>) outs(%{{.+}}, %{{.+}} : tensor<?xf32>, tensor<?xf32>)
// CHECK: math.absf
// CHECK-NEXT: arith.mulf {{.+}} fastmath<contract> : f32
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.addf {{.+}} fastmath<contract> : f32
// CHECK: %[[P2:.+]]:2 = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[P1]]#0, %[[P1]]#1 : tensor<?x8xf32>, tensor<?xf32>, tensor<?xf32>) outs(%{{.+}}, %{{.+}} : tensor<?xf32>, tensor<?xf32>)
// CHECK: arith.mulf {{.+}} fastmath<contract> : f32
// CHECK-NEXT: arith.addf {{.+}} fastmath<contract> : f32
// CHECK-NEXT: arith.mulf {{.+}} fastmath<contract> : f32
// CHECK-NEXT: arith.addf {{.+}} fastmath<contract> : f32
// CHECK: %[[MEAN:.+]] = linalg.generic {{.+}} ins(%[[P2]]#0, %[[P1]]#0, %[[P1]]#1 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%{{.+}} : tensor<?xf32>)
// CHECK: %[[RSTD:.+]] = linalg.generic {{.+}} ins(%[[P2]]#0, %[[P2]]#1, %[[P1]]#1 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%{{.+}} : tensor<?xf32>)
// CHECK: math.sqrt {{.+}} : f64
// CHECK: linalg.generic {{.+}} ins(%[[X]], %[[MEAN]], %[[RSTD]] : tensor<?x8xf32>, tensor<?xf32>, tensor<?xf32>)
// CHECK-NOT: aten.
func.func @layer_norm_f32(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %0:3 = "aten.native_layer_norm"(%x) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 8>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<?x8xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}

// -----

// A static input of more than 4 MiB (streamed from memory) keeps f64 sums unless its rows are
// 513-768 wide: f32 sums were slower there at 512 and 896-3072 (normalization_stats.py).
// CHECK-LABEL: func.func @layer_norm_streamed
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<4096x1024xf32>) outs(%{{.+}} : tensor<4096xf64>)
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<4096x768xf32>) outs(%{{.+}}, %{{.+}} : tensor<4096xf32>, tensor<4096xf32>)
// CHECK-NOT: aten.
func.func @layer_norm_streamed(%x: tensor<4096x1024xf32>, %y: tensor<4096x768xf32>) -> (tensor<4096x1024xf32>, tensor<4096x768xf32>) {
  %0:3 = "aten.native_layer_norm"(%x) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 1024>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<4096x1024xf32>) -> (tensor<4096x1024xf32>, tensor<4096x1xf32>, tensor<4096x1xf32>)
  %1:3 = "aten.native_layer_norm"(%y) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 768>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<4096x768xf32>) -> (tensor<4096x768xf32>, tensor<4096x1xf32>, tensor<4096x1xf32>)
  return %0#0, %1#0 : tensor<4096x1024xf32>, tensor<4096x768xf32>
}

// -----

// ...but rows of <= 1024 whose normalized values go into a GELU take the f32 sums anyway
// (the GELU's erf work in the row nest hides the row loads): the two-output f32 pass.
// CHECK-LABEL: func.func @layer_norm_into_gelu
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<4096x1024xf32>) outs(%{{.+}}, %{{.+}} : tensor<4096xf32>, tensor<4096xf32>)
// CHECK-NOT: tensor<4096xf64>
// CHECK: math.erf
// CHECK-NOT: aten.
func.func @layer_norm_into_gelu(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %0:3 = "aten.native_layer_norm"(%x) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 1024>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<4096x1024xf32>) -> (tensor<4096x1024xf32>, tensor<4096x1xf32>, tensor<4096x1xf32>)
  %1 = "aten.gelu"(%0#0) {approximate = "none"} : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %1 : tensor<4096x1024xf32>
}

// -----

// Group norm reduces an (N, G, C/G, HxW) view of the input: no copies.
// CHECK-LABEL: func.func @group_norm
// CHECK: %[[C:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0], [1], [2, 3]] : tensor<2x6x4x5xf32> into tensor<2x6x20xf32>
// CHECK: %[[V:.+]] = tensor.expand_shape %[[C]] {{\[}}[0], [1, 2], [3]] output_shape [2, 3, 2, 20]
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[V]] : tensor<2x3x2x20xf32>)
// CHECK: tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2], [3]] : tensor<2x3x2x20xf32> into tensor<2x6x20xf32>
// CHECK-NOT: aten.
func.func @group_norm(%x: tensor<2x6x4x5xf32>) -> (tensor<2x6x4x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0:3 = "aten.native_group_norm"(%x) {C = 6 : i64, HxW = 20 : i64, N = 2 : i64, eps = 1.000000e-05 : f64, group = 3 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x6x4x5xf32>) -> (tensor<2x6x4x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x6x4x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Training batch norm: statistics over N and the spatial dims, per channel.
// CHECK-LABEL: func.func @batch_norm_training
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[CHAN:.+]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%{{.+}} : tensor<4x3x5xf32>) outs(%{{.+}} : tensor<3xf64>)
// CHECK-NOT: aten.
func.func @batch_norm_training(%x: tensor<4x3x5xf32>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = "aten._native_batch_norm_legit.no_stats"(%x) {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, training = true} : (tensor<4x3x5xf32>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>
}
