// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// A 1-d pool is a 2-d pool over a height-1 plane (ATen's own route): its flat indices are the 1-d ones.
// CHECK-LABEL: func.func @max_pool1d_with_indices
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"(%{{.+}}) {dim = -2 : i64} : (tensor<?x3x11xf32>) -> tensor<?x3x1x11xf32>
// CHECK-NEXT: [[P:%.+]]:2 = "aten.max_pool2d_with_indices"([[U]]) {ceil_mode = true, dilation = array<i64: 1, 2>, kernel_size = array<i64: 1, 3>, padding = array<i64: 0, 1>, stride = array<i64: 1, 2>}
// CHECK-NEXT: [[V:%.+]] = "aten.squeeze.dims"([[P]]#0) {dim = array<i64: -2>} : (tensor<?x3x1x5xf32>) -> tensor<?x3x5xf32>
// CHECK-NEXT: [[I:%.+]] = "aten.squeeze.dims"([[P]]#1) {dim = array<i64: -2>} : (tensor<?x3x1x5xi64>) -> tensor<?x3x5xi64>
// CHECK-NEXT: return [[V]], [[I]]
func.func @max_pool1d_with_indices(%arg0: tensor<?x3x11xf32>) -> (tensor<?x3x5xf32>, tensor<?x3x5xi64>) {
  %0:2 = "aten.max_pool1d_with_indices"(%arg0) {ceil_mode = true, dilation = array<i64: 2>, kernel_size = array<i64: 3>, padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<?x3x11xf32>) -> (tensor<?x3x5xf32>, tensor<?x3x5xi64>)
  return %0#0, %0#1 : tensor<?x3x5xf32>, tensor<?x3x5xi64>
}

// -----

// max_pool1d stops at max_pool1d_with_indices, which goes on to the 2-d pool; an empty stride is the kernel.
// CHECK-LABEL: func.func @max_pool1d
// CHECK-NEXT: "aten.unsqueeze"
// CHECK-NEXT: "aten.max_pool2d_with_indices"{{.*}}kernel_size = array<i64: 1, 3>, padding = array<i64: 0, 0>, stride = array<i64: 1, 3>}
// CHECK-NOT: "aten.max_pool1d
func.func @max_pool1d(%arg0: tensor<2x3x11xf32>) -> tensor<2x3x3xf32> {
  %0 = "aten.max_pool1d"(%arg0) {ceil_mode = false, dilation = array<i64: 1>, kernel_size = array<i64: 3>, padding = array<i64: 0>, stride = array<i64>} : (tensor<2x3x11xf32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @max_pool2d
// CHECK-NEXT: [[P:%.+]]:2 = "aten.max_pool2d_with_indices"(%{{.+}}) {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 2>, padding = array<i64: 1, 1>, stride = array<i64: 2, 1>} : (tensor<?x?x?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xi64>)
// CHECK-NEXT: return [[P]]#0
func.func @max_pool2d(%arg0: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = "aten.max_pool2d"(%arg0) {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 2>, padding = array<i64: 1, 1>, stride = array<i64: 2, 1>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func.func @max_pool3d
// CHECK-NEXT: [[P:%.+]]:2 = "aten.max_pool3d_with_indices"
// CHECK-NEXT: return [[P]]#0
func.func @max_pool3d(%arg0: tensor<1x2x5x6x7xf32>) -> tensor<1x2x2x3x3xf32> {
  %0 = "aten.max_pool3d"(%arg0) {ceil_mode = false, dilation = array<i64: 1, 1, 1>, kernel_size = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, stride = array<i64>} : (tensor<1x2x5x6x7xf32>) -> tensor<1x2x2x3x3xf32>
  return %0 : tensor<1x2x2x3x3xf32>
}

// -----

// Output 1x1: a mean over the plane, ATen's own shortcut.
// CHECK-LABEL: func.func @adaptive_avg_pool2d_global
// CHECK-NEXT: "aten.mean.dim"(%{{.+}}) {dim = array<i64: -2, -1>, keepdim = true} : (tensor<?x?x?x?xf32>) -> tensor<?x?x1x1xf32>
// CHECK-NOT: adaptive_avg_pool
func.func @adaptive_avg_pool2d_global(%arg0: tensor<?x?x?x?xf32>) -> tensor<?x?x1x1xf32> {
  %0 = "aten.adaptive_avg_pool2d"(%arg0) {output_size = array<i64: 1, 1>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x1x1xf32>
  return %0 : tensor<?x?x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @adaptive_avg_pool2d
// CHECK-NEXT: "aten._adaptive_avg_pool2d"(%{{.+}}) {output_size = array<i64: 3, 4>} : (tensor<?x3x7x9xf32>) -> tensor<?x3x3x4xf32>
func.func @adaptive_avg_pool2d(%arg0: tensor<?x3x7x9xf32>) -> tensor<?x3x3x4xf32> {
  %0 = "aten.adaptive_avg_pool2d"(%arg0) {output_size = array<i64: 3, 4>} : (tensor<?x3x7x9xf32>) -> tensor<?x3x3x4xf32>
  return %0 : tensor<?x3x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @adaptive_avg_pool3d
// CHECK-NEXT: "aten._adaptive_avg_pool3d"(%{{.+}}) {output_size = array<i64: 2, 3, 4>}
func.func @adaptive_avg_pool3d(%arg0: tensor<1x2x5x6x7xf32>) -> tensor<1x2x2x3x4xf32> {
  %0 = "aten.adaptive_avg_pool3d"(%arg0) {output_size = array<i64: 2, 3, 4>} : (tensor<1x2x5x6x7xf32>) -> tensor<1x2x2x3x4xf32>
  return %0 : tensor<1x2x2x3x4xf32>
}

// -----

// adaptive_max_pool1d -> adaptive_max_pool2d over a height-1 plane; 12 / 4 is even: a max pool.
// CHECK-LABEL: func.func @adaptive_max_pool1d
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"(%{{.+}}) {dim = -2 : i64}
// CHECK-NEXT: [[P:%.+]]:2 = "aten.max_pool2d_with_indices"([[U]]) {{.*}}kernel_size = array<i64: 1, 3>, padding = array<i64: 0, 0>, stride = array<i64: 1, 3>}
// CHECK-NEXT: "aten.squeeze.dims"([[P]]#0)
// CHECK-NEXT: "aten.squeeze.dims"([[P]]#1)
func.func @adaptive_max_pool1d(%arg0: tensor<2x3x12xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi64>) {
  %0:2 = "aten.adaptive_max_pool1d"(%arg0) {output_size = array<i64: 4>} : (tensor<2x3x12xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi64>)
  return %0#0, %0#1 : tensor<2x3x4xf32>, tensor<2x3x4xi64>
}

// -----

// Even windows: a max pool with kernel = stride = in / out, whose indices are ATen's.
// CHECK-LABEL: func.func @adaptive_max_pool2d_even
// CHECK-NEXT: [[P:%.+]]:2 = "aten.max_pool2d_with_indices"(%{{.+}}) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 3>, padding = array<i64: 0, 0>, stride = array<i64: 2, 3>} : (tensor<?x?x6x9xf32>)
// CHECK-NEXT: return [[P]]#0, [[P]]#1
func.func @adaptive_max_pool2d_even(%arg0: tensor<?x?x6x9xf32>) -> (tensor<?x?x3x3xf32>, tensor<?x?x3x3xi64>) {
  %0:2 = "aten.adaptive_max_pool2d"(%arg0) {output_size = array<i64: 3, 3>} : (tensor<?x?x6x9xf32>) -> (tensor<?x?x3x3xf32>, tensor<?x?x3x3xi64>)
  return %0#0, %0#1 : tensor<?x?x3x3xf32>, tensor<?x?x3x3xi64>
}

// -----

// Width 5 into 3 windows [0,2) [1,4) [3,5): gathered as 0 1 1 | 1 2 3 | 3 4 4 (the last element
// repeated), max pooled with kernel 3, and the pool's indices mapped back through the gather.
// CHECK-LABEL: func.func @adaptive_max_pool2d_uneven
// CHECK: [[W:%.+]] = "aten.view"({{.*}}) {size = array<i64: 9>} : (tensor<3x3xi64>) -> tensor<9xi64>
// CHECK-NEXT: [[G:%.+]] = "aten.index_select"(%{{.+}}, [[W]]) {dim = 3 : i64} : (tensor<?x3x6x5xf32>, tensor<9xi64>) -> tensor<?x3x6x9xf32>
// CHECK-NEXT: [[P:%.+]]:2 = "aten.max_pool2d_with_indices"([[G]]) {{.*}}kernel_size = array<i64: 2, 3>, padding = array<i64: 0, 0>, stride = array<i64: 2, 3>}
// CHECK-NEXT: [[R:%.+]] = "aten.div.Scalar_mode"([[P]]#1) {other = 9 : i64, rounding_mode = "floor"}
// CHECK-NEXT: [[RS:%.+]] = "aten.mul.Scalar"([[R]]) {other = 5 : i64}
// CHECK-NEXT: [[C:%.+]] = "aten.remainder.Scalar"([[P]]#1) {other = 9 : i64}
// CHECK-NEXT: [[CI:%.+]] = "aten.index.Tensor"([[W]], [[C]])
// CHECK-NEXT: [[I:%.+]] = "aten.add.Tensor"([[RS]], [[CI]])
// CHECK-NEXT: return [[P]]#0, [[I]]
func.func @adaptive_max_pool2d_uneven(%arg0: tensor<?x3x6x5xf32>) -> (tensor<?x3x3x3xf32>, tensor<?x3x3x3xi64>) {
  %0:2 = "aten.adaptive_max_pool2d"(%arg0) {output_size = array<i64: 3, 3>} : (tensor<?x3x6x5xf32>) -> (tensor<?x3x3x3xf32>, tensor<?x3x3x3xi64>)
  return %0#0, %0#1 : tensor<?x3x3x3xf32>, tensor<?x3x3x3xi64>
}

// -----

// `?` spatial dims leave the window sizes unknown: the op stays.
// CHECK-LABEL: func.func @adaptive_max_pool2d_dynamic
// CHECK-NEXT: "aten.adaptive_max_pool2d"
func.func @adaptive_max_pool2d_dynamic(%arg0: tensor<?x?x?x?xf32>) -> (tensor<?x?x3x3xf32>, tensor<?x?x3x3xi64>) {
  %0:2 = "aten.adaptive_max_pool2d"(%arg0) {output_size = array<i64: 3, 3>} : (tensor<?x?x?x?xf32>) -> (tensor<?x?x3x3xf32>, tensor<?x?x3x3xi64>)
  return %0#0, %0#1 : tensor<?x?x3x3xf32>, tensor<?x?x3x3xi64>
}

// -----

// CHECK-LABEL: func.func @adaptive_max_pool3d
// CHECK: "aten.index_select"({{.*}}) {dim = 4 : i64} : (tensor<1x2x4x6x5xf32>, tensor<6xi64>) -> tensor<1x2x4x6x6xf32>
// CHECK-NEXT: "aten.max_pool3d_with_indices"({{.*}}) {{.*}}kernel_size = array<i64: 2, 2, 3>
// CHECK-NOT: aten.adaptive_max_pool3d
func.func @adaptive_max_pool3d(%arg0: tensor<1x2x4x6x5xf32>) -> (tensor<1x2x2x3x2xf32>, tensor<1x2x2x3x2xi64>) {
  %0:2 = "aten.adaptive_max_pool3d"(%arg0) {output_size = array<i64: 2, 3, 2>} : (tensor<1x2x4x6x5xf32>) -> (tensor<1x2x2x3x2xf32>, tensor<1x2x2x3x2xi64>)
  return %0#0, %0#1 : tensor<1x2x2x3x2xf32>, tensor<1x2x2x3x2xi64>
}

// -----

// Unpooling scatters each value to its flat index in its (batch, channel) plane.
// CHECK-LABEL: func.func @max_unpool2d
// CHECK: [[Z:%.+]] = "aten.full"({{.*}}) {dtype = f32, fill_value = 0 : i64{{.*}} -> tensor<?x3x63xf32>
// CHECK: [[S:%.+]] = "aten.view"({{.*}}) -> tensor<?x3x12xf32>
// CHECK: [[I:%.+]] = "aten.view"({{.*}}) -> tensor<?x3x12xi64>
// CHECK-NEXT: [[O:%.+]] = "aten.scatter.src"([[Z]], [[I]], [[S]]) {dim = -1 : i64}
// CHECK-NEXT: "aten.view"([[O]], {{.*}}) -> tensor<?x3x7x9xf32>
func.func @max_unpool2d(%arg0: tensor<?x3x3x4xf32>, %arg1: tensor<?x3x3x4xi64>) -> tensor<?x3x7x9xf32> {
  %0 = "aten.max_unpool2d"(%arg0, %arg1) {output_size = array<i64: 7, 9>} : (tensor<?x3x3x4xf32>, tensor<?x3x3x4xi64>) -> tensor<?x3x7x9xf32>
  return %0 : tensor<?x3x7x9xf32>
}

// -----

// CHECK-LABEL: func.func @max_unpool3d
// CHECK: "aten.full"() {dtype = f32, fill_value = 0 : i64, size = array<i64: 1, 2, 210>}
// CHECK: "aten.scatter.src"
// CHECK-NEXT: "aten.view"({{.*}}) {size = array<i64: 1, 2, 5, 6, 7>}
func.func @max_unpool3d(%arg0: tensor<1x2x2x3x3xf32>, %arg1: tensor<1x2x2x3x3xi64>) -> tensor<1x2x5x6x7xf32> {
  %0 = "aten.max_unpool3d"(%arg0, %arg1) {output_size = array<i64: 5, 6, 7>, padding = array<i64: 0, 0, 0>, stride = array<i64: 2, 2, 2>} : (tensor<1x2x2x3x3xf32>, tensor<1x2x2x3x3xi64>) -> tensor<1x2x5x6x7xf32>
  return %0 : tensor<1x2x5x6x7xf32>
}

// -----

// Window starts from the samples in f32 (random_samples[..., 1] drives the height, [..., 0] the
// width; alpha = (7 - 2) / (3 - 1) = 2.5), every window gathered, then a max pool with kernel =
// stride and its indices mapped back through the gather.
// CHECK-LABEL: func.func @fractional_max_pool2d
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<1x2x7x9xf32>, %[[S:[^ :]+]]: tensor<1x2x2xf32>)
// CHECK-NEXT: [[U:%.+]] = "aten.select.int"(%[[S]]) {dim = -1 : i64, index = 1 : i64}
// CHECK: "aten.mul.Scalar"({{.*}}) {other = 2.500000e+00 : f64} : (tensor<1x2x3xf32>)
// CHECK: "aten._to_copy"({{.*}}) {dtype = i64
// CHECK: "aten.select.int"(%[[S]]) {dim = -1 : i64, index = 0 : i64}
// CHECK: [[I:%.+]] = "aten.view"({{.*}}) {size = array<i64: 1, 2, 48>} : (tensor<1x2x3x2x4x2xi64>)
// CHECK: [[G:%.+]] = "aten.gather"({{.*}}, [[I]]) {dim = 2 : i64
// CHECK-NEXT: [[W:%.+]] = "aten.view"([[G]]) {size = array<i64: 1, 2, 6, 8>}
// CHECK-NEXT: [[P:%.+]]:2 = "aten.max_pool2d_with_indices"([[W]]) {{.*}}kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}
// CHECK-NEXT: [[L:%.+]] = "aten.view"([[P]]#1) {size = array<i64: 1, 2, 12>}
// CHECK-NEXT: [[F:%.+]] = "aten.gather"([[I]], [[L]]) {dim = 2 : i64
// CHECK-NEXT: [[FI:%.+]] = "aten.view"([[F]]) {size = array<i64: 1, 2, 3, 4>}
// CHECK-NEXT: return [[P]]#0, [[FI]]
func.func @fractional_max_pool2d(%arg0: tensor<1x2x7x9xf32>, %arg1: tensor<1x2x2xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xi64>) {
  %0:2 = "aten.fractional_max_pool2d"(%arg0, %arg1) {kernel_size = array<i64: 2, 2>, output_size = array<i64: 3, 4>} : (tensor<1x2x7x9xf32>, tensor<1x2x2xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xi64>)
  return %0#0, %0#1 : tensor<1x2x3x4xf32>, tensor<1x2x3x4xi64>
}
