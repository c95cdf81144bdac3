// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// A `?` output size from a scale factor: floor(in * scale) in a 0-d generic; the source index
// is ATen's nearest_idx (floor(o * 1/scale), the ratio-1 copy and the ratio-2 shift).
// CHECK-LABEL: func.func @nearest_scale
// CHECK: %[[DIM:.+]] = tensor.dim %arg0, %c2
// CHECK: %[[SIZE:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<index>)
// CHECK: arith.fptosi %{{.+}} : f64 to i64
// CHECK: %[[OH:.+]] = tensor.extract %[[SIZE]][] : tensor<index>
// CHECK: tensor.empty(%[[OH]]) : tensor<1x2x?x7xf32>
// CHECK: linalg.generic
// CHECK: math.floor
// CHECK: arith.cmpi eq, %[[OH]], %[[DIM]]
// CHECK: arith.shrui
// CHECK: tensor.extract %arg0
// CHECK-NOT: aten.
func.func @nearest_scale(%x: tensor<1x2x?x5xf32>) -> tensor<1x2x?x7xf32> {
  %0 = "aten.upsample_nearest2d.vec"(%x) {scale_factors = array<f64: 2.000000e+00, 1.500000e+00>} : (tensor<1x2x?x5xf32>) -> tensor<1x2x?x7xf32>
  return %0 : tensor<1x2x?x7xf32>
}

// -----

// Bilinear: two source rows and columns, weights clamped to [0, 1], rows combined as ATen's
// Interpolate<2> does.
// CHECK-LABEL: func.func @bilinear_align
// CHECK: linalg.generic
// CHECK-COUNT-2: math.floor
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK: linalg.yield
// CHECK-NOT: aten.
func.func @bilinear_align(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x5x7xf32> {
  %0 = "aten.upsample_bilinear2d.vec"(%x) {align_corners = true, output_size = array<i64: 5, 7>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x5x7xf32>
  return %0 : tensor<1x2x5x7xf32>
}

// -----

// grid_sampler_2d reads the grid's x and y through constant-index maps; border padding clips
// (a NaN coordinate to 0, as eager's vectorised kernel: maxnumf).
// CHECK-DAG: #[[GX:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, 0)>
// CHECK-DAG: #[[GY:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, 1)>
// CHECK-LABEL: func.func @grid_sampler
// CHECK: linalg.generic {indexing_maps = [#[[GX]], #[[GY]], #{{.+}}]
// CHECK: arith.maxnumf
// CHECK: arith.minimumf
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK-NOT: aten.
func.func @grid_sampler(%x: tensor<1x2x3x4xf32>, %g: tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32> {
  %0 = "aten.grid_sampler_2d"(%x, %g) {align_corners = false, interpolation_mode = 0 : i64, padding_mode = 1 : i64} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}

// -----

// Bicubic: 16 taps (4 x 4 reads), cubic coefficients with A = -0.75.
// CHECK-LABEL: func.func @grid_sampler_bicubic
// CHECK: linalg.generic
// CHECK: math.floor
// CHECK: math.floor
// CHECK-COUNT-16: tensor.extract %arg0
// CHECK-NOT: aten.
func.func @grid_sampler_bicubic(%x: tensor<1x2x3x4xf32>, %g: tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32> {
  %0 = "aten.grid_sampler_2d"(%x, %g) {align_corners = false, interpolation_mode = 2 : i64, padding_mode = 0 : i64} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}
