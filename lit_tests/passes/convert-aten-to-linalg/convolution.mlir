// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// Padding is an identity linalg.generic copy into the interior of a zero-filled tensor
// (bufferizes in place, runs as vector loops; one fill, the form triton-fold-padding reads);
// the bias is broadcast into the accumulator the named convolution adds to.
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x3x8x8xf32>, %[[W:[^ :]+]]: tensor<4x3x3x3xf32>, %[[B:[^ :]+]]: tensor<4xf32>)
// CHECK: %[[Z:.+]] = linalg.fill {{.+}} -> tensor<?x3x10x10xf32>
// CHECK: %[[IN:.+]] = tensor.extract_slice %[[Z]][0, 0, 1, 1] [%{{.+}}, 3, 8, 8] [1, 1, 1, 1]
// CHECK: %[[C:.+]] = linalg.generic {{.+}} ins(%[[X]] : tensor<?x3x8x8xf32>) outs(%[[IN]] : tensor<?x3x8x8xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: %[[P:.+]] = tensor.insert_slice %[[C]] into %[[Z]][0, 0, 1, 1]
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[BIAS]], {{.+}}]{{.+}} ins(%[[B]] : tensor<4xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[W]] : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%[[ACC]] : tensor<?x4x4x4xf32>)
func.func @conv2d(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<?x4x4x4xf32> {
  %0 = "aten.convolution"(%x, %w, %b) {dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

// Groups: channel dims split into (group, channel) views for one generic (the CPU kernels take
// it; the named grouped op had none). Loops n g f oh ow c kh kw.
// CHECK-DAG: #[[IMG:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
// CHECK-DAG: #[[KER:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-LABEL: func.func @grouped
// CHECK-DAG: %[[XG:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 8, 8]
// CHECK-DAG: %[[WG:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// CHECK: %[[O:.+]] = linalg.generic {indexing_maps = [#[[IMG]], #[[KER]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XG]], %[[WG]] : tensor<2x2x2x8x8xf32>, tensor<2x3x2x3x3xf32>) outs(%{{.+}} : tensor<2x2x3x6x6xf32>)
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[O]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x2x3x6x6xf32> into tensor<2x6x6x6xf32>
// CHECK: return %[[R]]
func.func @grouped(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x6x6xf32> {
  %0 = "aten.convolution"(%x, %w) {dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x6x6xf32>
  return %0 : tensor<2x6x6x6xf32>
}

// -----

// Transposed, stride 2: one stride-1 convolution per output phase (convolution_phases.py).
// Phase 0 (even columns) is reached by tap 1 alone, phase 1 by taps 2 and 0 (read downward, so
// the sub-kernel is flipped); each phase is written into every other output column. A 1d conv
// runs as the 2d conv of a unit-height image (views in and out). Every phase is written, so
// the result starts empty (no zero fill). One padded copy of x (one column past its end, which
// phase 1 reads) serves both phases through views. The phases are as wide as each other: one
// copy interleaves them (out[w] = phase[w % 2][w / 2]) instead of a strided copy each.
// CHECK-DAG: #[[TAP1:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3 * -2 + 1)>
// CHECK-DAG: #[[TAPS20:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3 * -2 + 2)>
// CHECK-DAG: #[[HALF:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2 floordiv 2)>
// CHECK-DAG: #[[SAME:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: linalg.fill {{.+}} -> tensor<2x3x10xf32>
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0] [2, 4, 5] [1, 1, 1] : tensor<2x4x5xf32> into tensor<2x4x6xf32>
// CHECK: linalg.generic {indexing_maps = [#[[TAP1]],
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.+}}, %{{.+}} : tensor<2x4x1x5xf32>, tensor<3x4x1x1xf32>)
// CHECK: %[[P0:.+]] = tensor.collapse_shape %{{.+}} : tensor<2x3x1x5xf32> into tensor<2x3x5xf32>
// CHECK: %[[Y:.+]] = tensor.empty() : tensor<2x3x10xf32>
// CHECK-NOT: tensor.empty() : tensor<2x4x6xf32>
// CHECK: linalg.generic {indexing_maps = [#[[TAPS20]],
// CHECK: linalg.conv_2d_nchw_fchw {{.+}} ins(%{{.+}}, %{{.+}} : tensor<2x4x1x6xf32>, tensor<3x4x1x2xf32>)
// CHECK: %[[P1:.+]] = tensor.collapse_shape %{{.+}} : tensor<2x3x1x5xf32> into tensor<2x3x5xf32>
// CHECK: %[[OUT:.+]] = linalg.generic {indexing_maps = [#[[HALF]], #[[HALF]], #[[SAME]]], {{.+}} ins(%[[P0]], %[[P1]] : {{.+}}) outs(%[[Y]] : tensor<2x3x10xf32>)
// CHECK: %[[W:.+]] = linalg.index 2
// CHECK: %[[W64:.+]] = arith.index_cast %[[W]] : index to i64
// CHECK: %[[ODD:.+]] = arith.andi %[[W64]], %{{.+}} : i64
// CHECK: %[[EVEN:.+]] = arith.cmpi eq, %[[ODD]], %{{.+}} : i64
// CHECK: arith.select %[[EVEN]], %{{.+}}, %{{.+}} : f32
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[OUT]]
// CHECK-NOT: conv_1d
func.func @transposed(%x: tensor<2x4x5xf32>, %w: tensor<4x3x3xf32>) -> tensor<2x3x10xf32> {
  %0 = "aten.convolution"(%x, %w) {dilation = array<i64: 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 1>, padding = array<i64: 1>, stride = array<i64: 2>, transposed = true} : (tensor<2x4x5xf32>, tensor<4x3x3xf32>) -> tensor<2x3x10xf32>
  return %0 : tensor<2x3x10xf32>
}

// -----

// Transposed, stride 1: the convolution of the input padded by d(k-1) - p with the kernel
// flipped, in/out channels swapped.
// CHECK-DAG: #[[FLIP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, -d3 + 2)>
// CHECK-LABEL: func.func @transposed_stride_1
// CHECK: %[[Z:.+]] = linalg.fill {{.+}} -> tensor<2x4x7xf32>
// CHECK: tensor.insert_slice %{{.+}} into %[[Z]][0, 0, 1] [2, 4, 5] [1, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[FLIP]],
// CHECK: linalg.conv_2d_nchw_fchw {{.+}} ins(%{{.+}}, %{{.+}} : tensor<2x4x1x7xf32>, tensor<3x4x1x3xf32>)
func.func @transposed_stride_1(%x: tensor<2x4x5xf32>, %w: tensor<4x3x3xf32>) -> tensor<2x3x5xf32> {
  %0 = "aten.convolution"(%x, %w) {dilation = array<i64: 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 1>, transposed = true} : (tensor<2x4x5xf32>, tensor<4x3x3xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A 1x1 stride-1 conv of one image over >= 512 pixels is the product W[F, C] @ X[C, H*W] on
// views (one product over all pixels; a named op, so elementwise fusion leaves it a product).
// CHECK-LABEL: func.func @pointwise_as_matmul
// CHECK-DAG: %[[X2:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2, 3]] : tensor<1x16x24x24xf32> into tensor<16x576xf32>
// CHECK-DAG: %[[W2:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2, 3]] : tensor<8x16x1x1xf32> into tensor<8x16xf32>
// CHECK-DAG: %[[O2:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2, 3]] : tensor<1x8x24x24xf32> into tensor<8x576xf32>
// CHECK: %[[M:.+]] = linalg.matmul ins(%[[W2]], %[[X2]] : tensor<8x16xf32>, tensor<16x576xf32>) outs(%[[O2]] : tensor<8x576xf32>)
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 8, 24, 24]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @pointwise_as_matmul(%x: tensor<1x16x24x24xf32>, %w: tensor<8x16x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x24x24xf32> {
  %0 = "aten.convolution"(%x, %w, %b) {dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x16x24x24xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<1x8x24x24xf32>
  return %0 : tensor<1x8x24x24xf32>
}

// -----

// ... a batch of images (or a `?` one), a stride, or few pixels keep the named conv.
// CHECK-LABEL: func.func @pointwise_kept
// CHECK-NOT: linalg.matmul
// CHECK: linalg.conv_2d_nchw_fchw {{.+}} tensor<2x16x24x24xf32>, tensor<8x16x1x1xf32>
// CHECK-NOT: linalg.matmul
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} {{.+}} tensor<1x16x24x24xf32>, tensor<8x16x1x1xf32>
// CHECK-NOT: linalg.matmul
// CHECK: linalg.conv_2d_nchw_fchw {{.+}} tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>
func.func @pointwise_kept(%x: tensor<2x16x24x24xf32>, %x1: tensor<1x16x24x24xf32>, %s: tensor<1x16x14x14xf32>, %w: tensor<8x16x1x1xf32>) -> (tensor<2x8x24x24xf32>, tensor<1x8x12x12xf32>, tensor<1x8x14x14xf32>) {
  %0 = "aten.convolution"(%x, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<2x16x24x24xf32>, tensor<8x16x1x1xf32>) -> tensor<2x8x24x24xf32>
  %1 = "aten.convolution"(%x1, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x16x24x24xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x12x12xf32>
  %2 = "aten.convolution"(%s, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x14x14xf32>
  return %0, %1, %2 : tensor<2x8x24x24xf32>, tensor<1x8x12x12xf32>, tensor<1x8x14x14xf32>
}
