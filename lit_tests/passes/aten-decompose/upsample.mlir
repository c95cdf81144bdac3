// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s
// RUN: aten-opt %s --split-input-file -p 'aten-decompose{only=aten._upsample_bicubic2d_aa.vec,aten._upsample_bilinear2d_aa.vec,aten._upsample_nearest_exact1d.vec,aten._upsample_nearest_exact2d.vec,aten._upsample_nearest_exact3d.vec,aten.channel_shuffle,aten.grid_sampler,aten.upsample_bicubic2d.vec,aten.upsample_linear1d.vec,aten.upsample_nearest1d.vec,aten.upsample_nearest3d.vec,aten.upsample_trilinear3d.vec}' | FileCheck %s --check-prefix=STEP

// CHECK-LABEL: func.func @nearest1d_vec
// CHECK: "aten.arange.start_step"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.floor"
// CHECK: "aten._to_copy"
// CHECK: "aten.clamp"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten.upsample_nearest1d.vec"
// CHECK: return
// STEP-LABEL: func.func @nearest1d_vec
// STEP-NOT: "aten.upsample_nearest1d.vec"
// STEP: "aten.upsample_nearest1d"
// STEP: return
func.func @nearest1d_vec(%arg0: tensor<?x3x5xf32>) -> tensor<?x3x8xf32> {
  %0 = "aten.upsample_nearest1d.vec"(%arg0) {scale_factors = array<f64: 1.700000e+00>} : (tensor<?x3x5xf32>) -> tensor<?x3x8xf32>
  return %0 : tensor<?x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @nearest1d
// CHECK: "aten.arange.start_step"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.floor"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten.upsample_nearest1d"
// CHECK: return
func.func @nearest1d(%arg0: tensor<2x3x5xf32>) -> tensor<2x3x8xf32> {
  %0 = "aten.upsample_nearest1d"(%arg0) {output_size = array<i64: 8>} : (tensor<2x3x5xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @nearest2d
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten.upsample_nearest2d"
// CHECK: return
func.func @nearest2d(%arg0: tensor<1x2x3x5xf32>) -> tensor<1x2x6x4xf32> {
  %0 = "aten.upsample_nearest2d"(%arg0) {output_size = array<i64: 6, 4>, scales_h = 2.000000e+00 : f64} : (tensor<1x2x3x5xf32>) -> tensor<1x2x6x4xf32>
  return %0 : tensor<1x2x6x4xf32>
}

// -----

// CHECK-LABEL: func.func @nearest3d_vec
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten.upsample_nearest3d.vec"
// CHECK: return
// STEP-LABEL: func.func @nearest3d_vec
// STEP-NOT: "aten.upsample_nearest3d.vec"
// STEP: "aten.upsample_nearest3d"
// STEP: return
func.func @nearest3d_vec(%arg0: tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x4x15xf32> {
  %0 = "aten.upsample_nearest3d.vec"(%arg0) {scale_factors = array<f64: 2.000000e+00, 1.000000e+00, 3.000000e+00>} : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x4x15xf32>
  return %0 : tensor<1x2x6x4x15xf32>
}

// -----

// CHECK-LABEL: func.func @nearest3d
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten.upsample_nearest3d"
// CHECK: return
func.func @nearest3d(%arg0: tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x4x2xf32> {
  %0 = "aten.upsample_nearest3d"(%arg0) {output_size = array<i64: 6, 4, 2>} : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x4x2xf32>
  return %0 : tensor<1x2x6x4x2xf32>
}

// -----

// CHECK-LABEL: func.func @nearest_exact1d_vec
// CHECK: "aten.floor"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten._upsample_nearest_exact1d.vec"
// CHECK: return
// STEP-LABEL: func.func @nearest_exact1d_vec
// STEP-NOT: "aten._upsample_nearest_exact1d.vec"
// STEP: "aten._upsample_nearest_exact1d"
// STEP: return
func.func @nearest_exact1d_vec(%arg0: tensor<2x3x5xf32>) -> tensor<2x3x8xf32> {
  %0 = "aten._upsample_nearest_exact1d.vec"(%arg0) {output_size = array<i64: 8>} : (tensor<2x3x5xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @nearest_exact1d
// CHECK: "aten._to_copy"
// CHECK: "aten.add.Scalar"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.sub.Scalar"
// CHECK: "aten._to_copy"
// CHECK: "aten.clamp"
// CHECK: "aten.add.Scalar"
// CHECK: "aten.floor"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten._upsample_nearest_exact1d"
// CHECK: return
func.func @nearest_exact1d(%arg0: tensor<2x3x5xf32>) -> tensor<2x3x8xf32> {
  %0 = "aten._upsample_nearest_exact1d"(%arg0) {output_size = array<i64: 8>} : (tensor<2x3x5xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @nearest_exact2d_vec
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten._upsample_nearest_exact2d.vec"
// CHECK: return
// STEP-LABEL: func.func @nearest_exact2d_vec
// STEP-NOT: "aten._upsample_nearest_exact2d.vec"
// STEP: "aten._upsample_nearest_exact2d"
// STEP: return
func.func @nearest_exact2d_vec(%arg0: tensor<1x2x3x5xf32>) -> tensor<1x2x4x7xf32> {
  %0 = "aten._upsample_nearest_exact2d.vec"(%arg0) {output_size = array<i64: 4, 7>} : (tensor<1x2x3x5xf32>) -> tensor<1x2x4x7xf32>
  return %0 : tensor<1x2x4x7xf32>
}

// -----

// CHECK-LABEL: func.func @nearest_exact2d
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten._upsample_nearest_exact2d"
// CHECK: return
func.func @nearest_exact2d(%arg0: tensor<1x2x3x5xf32>) -> tensor<1x2x4x7xf32> {
  %0 = "aten._upsample_nearest_exact2d"(%arg0) {output_size = array<i64: 4, 7>} : (tensor<1x2x3x5xf32>) -> tensor<1x2x4x7xf32>
  return %0 : tensor<1x2x4x7xf32>
}

// -----

// CHECK-LABEL: func.func @nearest_exact3d_vec
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten._upsample_nearest_exact3d.vec"
// CHECK: return
// STEP-LABEL: func.func @nearest_exact3d_vec
// STEP-NOT: "aten._upsample_nearest_exact3d.vec"
// STEP: "aten._upsample_nearest_exact3d"
// STEP: return
func.func @nearest_exact3d_vec(%arg0: tensor<1x2x3x4x5xf32>) -> tensor<1x2x2x2x2xf32> {
  %0 = "aten._upsample_nearest_exact3d.vec"(%arg0) {output_size = array<i64: 2, 2, 2>} : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @nearest_exact3d
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK: "aten.index_select"
// CHECK-NOT: "aten._upsample_nearest_exact3d"
// CHECK: return
func.func @nearest_exact3d(%arg0: tensor<1x2x3x4x5xf32>) -> tensor<1x2x2x2x2xf32> {
  %0 = "aten._upsample_nearest_exact3d"(%arg0) {output_size = array<i64: 2, 2, 2>} : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @linear1d_vec
// CHECK: "aten.index_select"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.index_select"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK-NOT: "aten.upsample_linear1d.vec"
// CHECK: return
// STEP-LABEL: func.func @linear1d_vec
// STEP-NOT: "aten.upsample_linear1d.vec"
// STEP: "aten.upsample_linear1d"
// STEP: return
func.func @linear1d_vec(%arg0: tensor<2x3x5xf32>) -> tensor<2x3x8xf32> {
  %0 = "aten.upsample_linear1d.vec"(%arg0) {align_corners = true, output_size = array<i64: 8>} : (tensor<2x3x5xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @linear1d
// CHECK: "aten.floor"
// CHECK: "aten.sub.Tensor"
// CHECK: "aten.clamp"
// CHECK: "aten.index_select"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.index_select"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK-NOT: "aten.upsample_linear1d"
// CHECK: return
func.func @linear1d(%arg0: tensor<2x3x5xf32>) -> tensor<2x3x8xf32> {
  %0 = "aten.upsample_linear1d"(%arg0) {align_corners = false, output_size = array<i64: 8>} : (tensor<2x3x5xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @bilinear2d
// CHECK: "aten.index_select"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.index_select"
// CHECK: "aten.add.Tensor"
// CHECK-NOT: "aten.upsample_bilinear2d"
// CHECK: return
func.func @bilinear2d(%arg0: tensor<1x2x3x5xf32>) -> tensor<1x2x6x4xf32> {
  %0 = "aten.upsample_bilinear2d"(%arg0) {align_corners = false, output_size = array<i64: 6, 4>, scales_h = 2.000000e+00 : f64} : (tensor<1x2x3x5xf32>) -> tensor<1x2x6x4xf32>
  return %0 : tensor<1x2x6x4xf32>
}

// -----

// CHECK-LABEL: func.func @trilinear3d_vec
// CHECK: "aten.add.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK-NOT: "aten.upsample_trilinear3d.vec"
// CHECK: return
// STEP-LABEL: func.func @trilinear3d_vec
// STEP-NOT: "aten.upsample_trilinear3d.vec"
// STEP: "aten.upsample_trilinear3d"
// STEP: return
func.func @trilinear3d_vec(%arg0: tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x4x2xf32> {
  %0 = "aten.upsample_trilinear3d.vec"(%arg0) {align_corners = false, output_size = array<i64: 6, 4, 2>} : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x4x2xf32>
  return %0 : tensor<1x2x6x4x2xf32>
}

// -----

// CHECK-LABEL: func.func @trilinear3d
// CHECK: "aten.add.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK-NOT: "aten.upsample_trilinear3d"
// CHECK: return
func.func @trilinear3d(%arg0: tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x4x2xf32> {
  %0 = "aten.upsample_trilinear3d"(%arg0) {align_corners = true, output_size = array<i64: 6, 4, 2>} : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x4x2xf32>
  return %0 : tensor<1x2x6x4x2xf32>
}

// -----

// CHECK-LABEL: func.func @bicubic2d_vec
// CHECK: "aten.index_select"
// CHECK-NOT: "aten.upsample_bicubic2d.vec"
// CHECK: return
// STEP-LABEL: func.func @bicubic2d_vec
// STEP-NOT: "aten.upsample_bicubic2d.vec"
// STEP: "aten.upsample_bicubic2d"
// STEP: return
func.func @bicubic2d_vec(%arg0: tensor<1x2x3x5xf32>) -> tensor<1x2x6x4xf32> {
  %0 = "aten.upsample_bicubic2d.vec"(%arg0) {align_corners = false, output_size = array<i64: 6, 4>} : (tensor<1x2x3x5xf32>) -> tensor<1x2x6x4xf32>
  return %0 : tensor<1x2x6x4xf32>
}

// -----

// CHECK-LABEL: func.func @bicubic2d
// CHECK: "aten.index_select"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK-NOT: "aten.upsample_bicubic2d"
// CHECK: return
func.func @bicubic2d(%arg0: tensor<1x2x3x5xf32>) -> tensor<1x2x6x4xf32> {
  %0 = "aten.upsample_bicubic2d"(%arg0) {align_corners = false, output_size = array<i64: 6, 4>} : (tensor<1x2x3x5xf32>) -> tensor<1x2x6x4xf32>
  return %0 : tensor<1x2x6x4xf32>
}

// -----

// CHECK-LABEL: func.func @bilinear2d_aa_vec
// CHECK: "aten.index_select"
// CHECK-NOT: "aten._upsample_bilinear2d_aa.vec"
// CHECK: return
// STEP-LABEL: func.func @bilinear2d_aa_vec
// STEP-NOT: "aten._upsample_bilinear2d_aa.vec"
// STEP: "aten._upsample_bilinear2d_aa"
// STEP: return
func.func @bilinear2d_aa_vec(%arg0: tensor<1x2x6x5xf32>) -> tensor<1x2x3x5xf32> {
  %0 = "aten._upsample_bilinear2d_aa.vec"(%arg0) {align_corners = false, output_size = array<i64: 3, 5>} : (tensor<1x2x6x5xf32>) -> tensor<1x2x3x5xf32>
  return %0 : tensor<1x2x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @bilinear2d_aa
// CHECK: "aten.abs"
// CHECK: "aten.where.self"
// CHECK: "aten.div.Tensor"
// CHECK: "aten.index_select"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.where.self"
// CHECK-NOT: "aten._upsample_bilinear2d_aa"
// CHECK: return
func.func @bilinear2d_aa(%arg0: tensor<1x2x6x5xf32>) -> tensor<1x2x3x5xf32> {
  %0 = "aten._upsample_bilinear2d_aa"(%arg0) {align_corners = false, output_size = array<i64: 3, 5>} : (tensor<1x2x6x5xf32>) -> tensor<1x2x3x5xf32>
  return %0 : tensor<1x2x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @bicubic2d_aa_vec
// CHECK: "aten.index_select"
// CHECK-NOT: "aten._upsample_bicubic2d_aa.vec"
// CHECK: return
// STEP-LABEL: func.func @bicubic2d_aa_vec
// STEP-NOT: "aten._upsample_bicubic2d_aa.vec"
// STEP: "aten._upsample_bicubic2d_aa"
// STEP: return
func.func @bicubic2d_aa_vec(%arg0: tensor<1x2x6x5xf32>) -> tensor<1x2x3x5xf32> {
  %0 = "aten._upsample_bicubic2d_aa.vec"(%arg0) {align_corners = false, output_size = array<i64: 3, 5>} : (tensor<1x2x6x5xf32>) -> tensor<1x2x3x5xf32>
  return %0 : tensor<1x2x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @bicubic2d_aa
// CHECK: "aten.abs"
// CHECK: "aten.where.self"
// CHECK: "aten.div.Tensor"
// CHECK: "aten.index_select"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.where.self"
// CHECK-NOT: "aten._upsample_bicubic2d_aa"
// CHECK: return
func.func @bicubic2d_aa(%arg0: tensor<1x2x6x5xf32>) -> tensor<1x2x3x5xf32> {
  %0 = "aten._upsample_bicubic2d_aa"(%arg0) {align_corners = false, output_size = array<i64: 3, 5>} : (tensor<1x2x6x5xf32>) -> tensor<1x2x3x5xf32>
  return %0 : tensor<1x2x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @grid_sampler
// CHECK: "aten.grid_sampler_2d"
// CHECK-NOT: "aten.grid_sampler"
// CHECK: return
// STEP-LABEL: func.func @grid_sampler
// STEP-NOT: "aten.grid_sampler"
// STEP: "aten.grid_sampler_2d"
// STEP: return
func.func @grid_sampler(%arg0: tensor<1x2x3x4xf32>, %arg1: tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32> {
  %0 = "aten.grid_sampler"(%arg0, %arg1) {align_corners = false, interpolation_mode = 0 : i64, padding_mode = 0 : i64} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}

// -----

// CHECK-LABEL: func.func @grid_sampler_5d
// CHECK: "aten.select.int"
// CHECK: "aten.round"
// CHECK: "aten.index.Tensor"
// CHECK: "aten.where.self"
// CHECK: "aten.permute"
// CHECK-NOT: "aten.grid_sampler"
// CHECK: return
// STEP-LABEL: func.func @grid_sampler_5d
// STEP-NOT: "aten.grid_sampler"
// STEP: "aten.grid_sampler_3d"
// STEP: return
func.func @grid_sampler_5d(%arg0: tensor<1x2x3x4x5xf32>, %arg1: tensor<1x5x6x2x3xf32>) -> tensor<1x2x5x6x2xf32> {
  %0 = "aten.grid_sampler"(%arg0, %arg1) {align_corners = false, interpolation_mode = 1 : i64, padding_mode = 1 : i64} : (tensor<1x2x3x4x5xf32>, tensor<1x5x6x2x3xf32>) -> tensor<1x2x5x6x2xf32>
  return %0 : tensor<1x2x5x6x2xf32>
}

// -----

// CHECK-LABEL: func.func @grid_sampler_3d
// CHECK: "aten.fmod.Scalar"
// CHECK: "aten.floor"
// CHECK: "aten.index.Tensor"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.where.self"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.permute"
// CHECK-NOT: "aten.grid_sampler_3d"
// CHECK: return
func.func @grid_sampler_3d(%arg0: tensor<1x2x3x4x5xf32>, %arg1: tensor<1x5x6x2x3xf32>) -> tensor<1x2x5x6x2xf32> {
  %0 = "aten.grid_sampler_3d"(%arg0, %arg1) {align_corners = true, interpolation_mode = 0 : i64, padding_mode = 2 : i64} : (tensor<1x2x3x4x5xf32>, tensor<1x5x6x2x3xf32>) -> tensor<1x2x5x6x2xf32>
  return %0 : tensor<1x2x5x6x2xf32>
}

// -----

// CHECK-LABEL: func.func @affine_grid_generator
// CHECK: "aten.arange.start_step"
// CHECK: "aten.where.self"
// CHECK: "aten.cat"
// CHECK: "aten.expand"
// CHECK: "aten.permute"
// CHECK: "aten.bmm"
// CHECK: "aten.view"
// CHECK-NOT: "aten.affine_grid_generator"
// CHECK: return
func.func @affine_grid_generator(%arg0: tensor<2x2x3xf32>) -> tensor<2x4x5x2xf32> {
  %0 = "aten.affine_grid_generator"(%arg0) {align_corners = false, size = array<i64: 2, 3, 4, 5>} : (tensor<2x2x3xf32>) -> tensor<2x4x5x2xf32>
  return %0 : tensor<2x4x5x2xf32>
}

// -----

// CHECK-LABEL: func.func @pixel_shuffle
// CHECK: "aten.view"
// CHECK: "aten.permute"
// CHECK: "aten.clone"
// CHECK: "aten.view"
// CHECK-NOT: "aten.pixel_shuffle"
// CHECK: return
func.func @pixel_shuffle(%arg0: tensor<?x8x3x5xf32>) -> tensor<?x2x6x10xf32> {
  %0 = "aten.pixel_shuffle"(%arg0) {upscale_factor = 2 : i64} : (tensor<?x8x3x5xf32>) -> tensor<?x2x6x10xf32>
  return %0 : tensor<?x2x6x10xf32>
}

// -----

// CHECK-LABEL: func.func @pixel_unshuffle
// CHECK: "aten.view"
// CHECK: "aten.permute"
// CHECK: "aten.clone"
// CHECK: "aten.view"
// CHECK-NOT: "aten.pixel_unshuffle"
// CHECK: return
func.func @pixel_unshuffle(%arg0: tensor<?x2x6x4xf32>) -> tensor<?x8x3x2xf32> {
  %0 = "aten.pixel_unshuffle"(%arg0) {downscale_factor = 2 : i64} : (tensor<?x2x6x4xf32>) -> tensor<?x8x3x2xf32>
  return %0 : tensor<?x8x3x2xf32>
}

// -----

// CHECK-LABEL: func.func @channel_shuffle
// CHECK: "aten.view"
// CHECK: "aten.permute"
// CHECK: "aten.clone"
// CHECK: "aten.view"
// CHECK-NOT: "aten.channel_shuffle"
// CHECK: return
// STEP-LABEL: func.func @channel_shuffle
// STEP-NOT: "aten.channel_shuffle"
// STEP: "aten.native_channel_shuffle"
// STEP: return
func.func @channel_shuffle(%arg0: tensor<?x8x?xf32>) -> tensor<?x8x?xf32> {
  %0 = "aten.channel_shuffle"(%arg0) {groups = 4 : i64} : (tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
  return %0 : tensor<?x8x?xf32>
}

// -----

// CHECK-LABEL: func.func @native_channel_shuffle
// CHECK: "aten.view"
// CHECK: "aten.permute"
// CHECK: "aten.clone"
// CHECK: "aten.view"
// CHECK-NOT: "aten.native_channel_shuffle"
// CHECK: return
func.func @native_channel_shuffle(%arg0: tensor<2x8x3xf32>) -> tensor<2x8x3xf32> {
  %0 = "aten.native_channel_shuffle"(%arg0) {groups = 2 : i64} : (tensor<2x8x3xf32>) -> tensor<2x8x3xf32>
  return %0 : tensor<2x8x3xf32>
}
