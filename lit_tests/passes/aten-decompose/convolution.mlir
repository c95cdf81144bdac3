// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s
// conv1d -> convolution with the batch dim kept `?`.
// CHECK-LABEL: func.func @conv1d
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x4x9xf32>, %[[W:[^ :]+]]: tensor<6x2x3xf32>, %[[B:[^ :]+]]: tensor<6xf32>)
// CHECK-NEXT: [[C:%.+]] = "aten.convolution"(%[[X]], %[[W]], %[[B]]) {dilation = array<i64: 1>, groups = 2 : i64, {{.*}}output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 2>, transposed = false} : {{.*}} -> tensor<?x6x5xf32>
// CHECK-NEXT: return [[C]]
func.func @conv1d(%x: tensor<?x4x9xf32>, %w: tensor<6x2x3xf32>, %b: tensor<6xf32>) -> tensor<?x6x5xf32> {
  %0 = "aten.conv1d"(%x, %w, %b) {dilation = array<i64: 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<?x4x9xf32>, tensor<6x2x3xf32>, tensor<6xf32>) -> tensor<?x6x5xf32>
  return %0 : tensor<?x6x5xf32>
}

// -----

// An unbatched input gets the batch dim ATen's batchify adds.
// CHECK-LABEL: func.func @conv1d_unbatched
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"(%{{.+}}) {dim = 0 : i64} : (tensor<4x9xf32>) -> tensor<1x4x9xf32>
// CHECK-NEXT: [[C:%.+]] = "aten.convolution"([[U]], %{{.+}}) {{.*}} -> tensor<1x6x10xf32>
// CHECK-NEXT: [[S:%.+]] = "aten.squeeze.dims"([[C]]) {dim = array<i64: 0>} : (tensor<1x6x10xf32>) -> tensor<6x10xf32>
// CHECK-NEXT: return [[S]]
func.func @conv1d_unbatched(%x: tensor<4x9xf32>, %w: tensor<6x2x2xf32>) -> tensor<6x10xf32> {
  %0 = "aten.conv1d"(%x, %w) {dilation = array<i64: 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>, padding = array<i64: 1>, stride = array<i64: 1>} : (tensor<4x9xf32>, tensor<6x2x2xf32>) -> tensor<6x10xf32>
  return %0 : tensor<6x10xf32>
}

// -----

// CHECK-LABEL: func.func @conv2d
// CHECK-NEXT: "aten.convolution"{{.*}}output_padding = array<i64: 0, 0>, padding = array<i64: 1, 0>, stride = array<i64: 1, 2>, transposed = false}
// CHECK-NOT: aten.conv2d
func.func @conv2d(%x: tensor<2x4x7x8xf32>, %w: tensor<6x4x2x3xf32>) -> tensor<2x6x8x3xf32> {
  %0 = "aten.conv2d"(%x, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>, padding = array<i64: 1, 0>, stride = array<i64: 1, 2>} : (tensor<2x4x7x8xf32>, tensor<6x4x2x3xf32>) -> tensor<2x6x8x3xf32>
  return %0 : tensor<2x6x8x3xf32>
}

// -----

// One-element int lists broadcast to every spatial dim.
// CHECK-LABEL: func.func @conv3d
// CHECK-NEXT: "aten.convolution"{{.*}}dilation = array<i64: 1, 1, 1>{{.*}}padding = array<i64: 1, 1, 1>, stride = array<i64: 1, 1, 1>, transposed = false}
// CHECK-NOT: aten.conv3d
func.func @conv3d(%x: tensor<1x2x5x6x4xf32>, %w: tensor<2x2x2x3x2xf32>) -> tensor<1x2x6x6x5xf32> {
  %0 = "aten.conv3d"(%x, %w) {dilation = array<i64: 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>, padding = array<i64: 1>, stride = array<i64: 1>} : (tensor<1x2x5x6x4xf32>, tensor<2x2x2x3x2xf32>) -> tensor<1x2x6x6x5xf32>
  return %0 : tensor<1x2x6x6x5xf32>
}

// -----

// 'same' with an even kernel: total padding 1, the odd element on the right, as ATen.
// CHECK-LABEL: func.func @conv1d_same_even_kernel
// CHECK-NEXT: [[P:%.+]] = "aten.constant_pad_nd"(%{{.+}}) {pad = array<i64: 0, 1>, value = 0 : i64} : (tensor<?x4x9xf32>) -> tensor<?x4x10xf32>
// CHECK-NEXT: "aten.convolution"([[P]], %{{.+}}) {{.*}}padding = array<i64: 0>{{.*}} -> tensor<?x6x9xf32>
// CHECK-NOT: aten.conv1d.padding
func.func @conv1d_same_even_kernel(%x: tensor<?x4x9xf32>, %w: tensor<6x2x2xf32>) -> tensor<?x6x9xf32> {
  %0 = "aten.conv1d.padding"(%x, %w) {dilation = array<i64: 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>, padding = "same", stride = array<i64: 1>} : (tensor<?x4x9xf32>, tensor<6x2x2xf32>) -> tensor<?x6x9xf32>
  return %0 : tensor<?x6x9xf32>
}

// -----

// 'same' with symmetric padding: dilation * (kernel - 1) / 2 per side, no pad op.
// CHECK-LABEL: func.func @conv2d_same_odd_kernel
// CHECK-NOT: aten.constant_pad_nd
// CHECK: "aten.convolution"{{.*}}padding = array<i64: 1, 2>
func.func @conv2d_same_odd_kernel(%x: tensor<2x4x7x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<2x6x7x8xf32> {
  %0 = "aten.conv2d.padding"(%x, %w) {dilation = array<i64: 1, 2>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>, padding = "same", stride = array<i64: 1, 1>} : (tensor<2x4x7x8xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x7x8xf32>
  return %0 : tensor<2x6x7x8xf32>
}

// -----

// CHECK-LABEL: func.func @conv3d_valid
// CHECK-NEXT: "aten.convolution"{{.*}}padding = array<i64: 0, 0, 0>
// CHECK-NOT: aten.conv3d.padding
func.func @conv3d_valid(%x: tensor<1x2x5x6x4xf32>, %w: tensor<2x2x2x3x2xf32>) -> tensor<1x2x4x4x3xf32> {
  %0 = "aten.conv3d.padding"(%x, %w) {dilation = array<i64: 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>, padding = "valid", stride = array<i64: 1>} : (tensor<1x2x5x6x4xf32>, tensor<2x2x2x3x2xf32>) -> tensor<1x2x4x4x3xf32>
  return %0 : tensor<1x2x4x4x3xf32>
}

// -----

// 'same' needs the kernel size: with a `?` kernel dim the op stays.
// CHECK-LABEL: func.func @conv1d_same_dynamic_kernel
// CHECK-NEXT: "aten.conv1d.padding"
func.func @conv1d_same_dynamic_kernel(%x: tensor<2x4x9xf32>, %w: tensor<6x2x?xf32>) -> tensor<2x6x9xf32> {
  %0 = "aten.conv1d.padding"(%x, %w) {dilation = array<i64: 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>, padding = "same", stride = array<i64: 1>} : (tensor<2x4x9xf32>, tensor<6x2x?xf32>) -> tensor<2x6x9xf32>
  return %0 : tensor<2x6x9xf32>
}

// -----

// CHECK-LABEL: func.func @conv_transpose1d
// CHECK-NEXT: "aten.convolution"{{.*}}output_padding = array<i64: 1>, padding = array<i64: 1>, stride = array<i64: 2>, transposed = true} : {{.*}} -> tensor<?x3x18xf32>
func.func @conv_transpose1d(%x: tensor<?x4x9xf32>, %w: tensor<4x3x3xf32>) -> tensor<?x3x18xf32> {
  %0 = "aten.conv_transpose1d"(%x, %w) {dilation = array<i64: 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 1>, padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<?x4x9xf32>, tensor<4x3x3xf32>) -> tensor<?x3x18xf32>
  return %0 : tensor<?x3x18xf32>
}

// -----

// CHECK-LABEL: func.func @conv_transpose2d
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<2x4x7x8xf32>, %[[W:[^ :]+]]: tensor<4x2x3x2xf32>, %[[B:[^ :]+]]: tensor<4xf32>)
// CHECK-NEXT: "aten.convolution"(%[[X]], %[[W]], %[[B]]) {{.*}}groups = 2 : i64{{.*}}output_padding = array<i64: 1, 0>, padding = array<i64: 1, 0>, stride = array<i64: 2, 1>, transposed = true}
func.func @conv_transpose2d(%x: tensor<2x4x7x8xf32>, %w: tensor<4x2x3x2xf32>, %b: tensor<4xf32>) -> tensor<2x4x14x9xf32> {
  %0 = "aten.conv_transpose2d.input"(%x, %w, %b) {dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, output_padding = array<i64: 1, 0>, padding = array<i64: 1, 0>, stride = array<i64: 2, 1>} : (tensor<2x4x7x8xf32>, tensor<4x2x3x2xf32>, tensor<4xf32>) -> tensor<2x4x14x9xf32>
  return %0 : tensor<2x4x14x9xf32>
}

// -----

// CHECK-LABEL: func.func @conv_transpose3d
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"
// CHECK-NEXT: [[C:%.+]] = "aten.convolution"([[U]], %{{.+}}) {dilation = array<i64: 2, 2, 2>{{.*}}transposed = true}
// CHECK-NEXT: "aten.squeeze.dims"([[C]])
func.func @conv_transpose3d(%x: tensor<2x5x6x4xf32>, %w: tensor<2x3x2x2x2xf32>) -> tensor<3x7x8x6xf32> {
  %0 = "aten.conv_transpose3d.input"(%x, %w) {dilation = array<i64: 2>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 0>, padding = array<i64: 0>, stride = array<i64: 1>} : (tensor<2x5x6x4xf32>, tensor<2x3x2x2x2xf32>) -> tensor<3x7x8x6xf32>
  return %0 : tensor<3x7x8x6xf32>
}

// -----

// im2col gathers the blocks with index.Tensor: rows [ki * dh + i * sh], cols [kj * dw + j * sw].
// CHECK-LABEL: func.func @im2col
// CHECK: [[P:%.+]] = "aten.constant_pad_nd"(%{{.+}}) {pad = array<i64: 1, 1, 1, 1>, value = 0 : i64} : (tensor<?x3x6x7xf32>) -> tensor<?x3x8x9xf32>
// CHECK: "aten.arange.start_step"() {dtype = i64, end = 8 : i64, start = 0 : i64, step = 2 : i64}
// CHECK: "aten.arange.start_step"() {dtype = i64, end = 6 : i64, start = 0 : i64, step = 2 : i64}
// CHECK: [[R:%.+]] = "aten.view"({{.*}}) {size = array<i64: 2, 1, 4, 1>}
// CHECK: [[K:%.+]] = "aten.view"({{.*}}) {size = array<i64: 3, 1, 5>}
// CHECK: [[G:%.+]] = "aten.index.Tensor"([[P]], [[R]], [[K]]) {{.*}} -> tensor<?x3x2x3x4x5xf32>
// CHECK: "aten.view"([[G]], {{.*}}) -> tensor<?x18x12xf32>
// CHECK-NOT: aten.im2col
func.func @im2col(%x: tensor<?x3x6x7xf32>) -> tensor<?x18x12xf32> {
  %0 = "aten.im2col"(%x) {dilation = array<i64: 1, 2>, kernel_size = array<i64: 2, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 1>} : (tensor<?x3x6x7xf32>) -> tensor<?x18x12xf32>
  return %0 : tensor<?x18x12xf32>
}

// -----

// A `?` spatial dim leaves the number of blocks unknown: the op stays.
// CHECK-LABEL: func.func @im2col_dynamic_width
// CHECK-NEXT: "aten.im2col"
func.func @im2col_dynamic_width(%x: tensor<2x3x6x?xf32>) -> tensor<2x12x?xf32> {
  %0 = "aten.im2col"(%x) {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x3x6x?xf32>) -> tensor<2x12x?xf32>
  return %0 : tensor<2x12x?xf32>
}
