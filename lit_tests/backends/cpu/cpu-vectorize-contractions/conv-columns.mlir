// RUN: aten-opt %s -p cpu-vectorize-contractions --split-input-file | FileCheck %s

// A 7x7 output (49 pixels) on im2col: 8 x 48 register tiles (24 accumulators) over the first
// 48 columns; the last column, copied contiguous along k, as dot products of the filter rows.
// CHECK-LABEL: func.func @columns_past_wide_tiles
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK-DAG: memref.alloc() : memref<1x72xf32>
// CHECK-DAG: memref.alloc() : memref<72x49xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.maskedload %{{.*}} : memref<1x72xf32>
// CHECK: vector.reduction <add>
func.func @columns_past_wide_tiles(%x: memref<1x8x9x9xf32>, %w: memref<16x8x3x3xf32>, %y: memref<1x16x7x7xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x9x9xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x7x7xf32>)
  return
}

// -----

// A copy over 1 MB (K = 147, 112x112 pixels) is made a block of 7 output rows (784 columns) at
// a time, each just before its product.
// CHECK-LABEL: func.func @row_blocks
// CHECK: memref.alloc() : memref<147x784xf32>
// CHECK-NOT: memref<147x12544xf32>
func.func @row_blocks(%x: memref<1x3x229x229xf32>, %w: memref<64x3x7x7xf32>, %y: memref<1x64x112x112xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x229x229xf32>, memref<64x3x7x7xf32>) outs(%y : memref<1x64x112x112xf32>)
  return
}
