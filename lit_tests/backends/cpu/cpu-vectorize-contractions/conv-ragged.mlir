// RUN: aten-opt %s -p cpu-vectorize-contractions --split-input-file | FileCheck %s

// ResNet's 64->64 3x3 on 56x56: rows of 56 = 32 + 24 leave the direct kernel a masked tile per
// row, so with K = 576 it runs on the im2col copy, 14 output rows (784 columns) a block.
// CHECK-LABEL: func.func @ragged_rows
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: memref.alloc() : memref<576x784xf32>
// CHECK: vector.fma
func.func @ragged_rows(%x: memref<1x64x58x58xf32>, %w: memref<64x64x3x3xf32>, %y: memref<1x64x56x56xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x64x58x58xf32>, memref<64x64x3x3xf32>) outs(%y : memref<1x64x56x56xf32>)
  return
}

// -----

// Rows of 32 are whole 2-vector tiles: the direct kernel, no copy.
// CHECK-LABEL: func.func @whole_rows
// CHECK-NOT: memref<576x
// CHECK: vector.fma
func.func @whole_rows(%x: memref<1x64x34x34xf32>, %w: memref<64x64x3x3xf32>, %y: memref<1x64x32x32xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x64x34x34xf32>, memref<64x64x3x3xf32>) outs(%y : memref<1x64x32x32xf32>)
  return
}
