// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// Values and indices come from one generic over (n, c, oh, ow, kh, kw) on the -inf padded
// input; the first in-bounds element is taken, then greater ones or NaNs (as ATen's kernel).
// CHECK-DAG: #[[READ:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func.func @max_pool
// CHECK-DAG: %[[NEG:.+]] = arith.constant -1 : i64
// CHECK-DAG: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.+]] = linalg.fill ins(%[[NINF]] : f32) {{.+}} -> tensor<2x3x11x10xf32>
// CHECK: %[[IN:.+]] = tensor.insert_slice %{{.+}} into %[[PAD]][0, 0, 1, 1] [2, 3, 9, 8] [1, 1, 1, 1]
// CHECK: %[[V0:.+]] = linalg.fill ins(%[[NINF]] : f32) {{.+}} -> tensor<2x3x5x4xf32>
// CHECK: %[[I0:.+]] = linalg.fill ins(%[[NEG]] : i64) {{.+}} -> tensor<2x3x5x4xi64>
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[READ]], #[[WIN]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[IN]], %{{.+}} : tensor<2x3x11x10xf32>, tensor<3x3xindex>) outs(%[[V0]], %[[I0]] : tensor<2x3x5x4xf32>, tensor<2x3x5x4xi64>)
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: arith.index_cast %{{.+}} : index to i64
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @max_pool(%x: tensor<2x3x9x8xf32>) -> (tensor<2x3x5x4xf32>, tensor<2x3x5x4xi64>) {
  %0:2 = "aten.max_pool2d_with_indices"(%x) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x3x9x8xf32>) -> (tensor<2x3x5x4xf32>, tensor<2x3x5x4xi64>)
  return %0#0, %0#1 : tensor<2x3x5x4xf32>, tensor<2x3x5x4xi64>
}

// -----

// Without the indices, the named max pooling op (NaN-propagating maximumf, as torch).
// CHECK-LABEL: func.func @max_pool_values_only
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK-NOT: linalg.generic
func.func @max_pool_values_only(%x: tensor<2x3x9x8xf32>) -> tensor<2x3x5x4xf32> {
  %0:2 = "aten.max_pool2d_with_indices"(%x) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x3x9x8xf32>) -> (tensor<2x3x5x4xf32>, tensor<2x3x5x4xi64>)
  return %0#0 : tensor<2x3x5x4xf32>
}

// -----

// Unpadded, every window is full: the divisor is the constant k*k.
// CHECK-LABEL: func.func @avg_pool
// CHECK-DAG: %[[FOUR:.+]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[S:.+]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.+}}, %{{.+}} : tensor<2x3x8x8xf32>, tensor<2x2xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[S]] : tensor<2x3x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[V:[^:]+]]: f32
// CHECK-NEXT: arith.divf %[[V]], %[[FOUR]] : f32
func.func @avg_pool(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %0 = "aten.avg_pool2d"(%x) {ceil_mode = false, count_include_pad = true, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

// Adaptive windows [floor(o*I/O), ceil((o+1)*I/O)) are read with clamped tensor.extract and
// masked; the sum is then divided by each window extent.
// CHECK-LABEL: func.func @adaptive
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.divui
// CHECK: tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<2x3x9x7xf32>
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: arith.divf
func.func @adaptive(%x: tensor<2x3x9x7xf32>) -> tensor<2x3x4x3xf32> {
  %0 = "aten._adaptive_avg_pool2d"(%x) {output_size = array<i64: 4, 3>} : (tensor<2x3x9x7xf32>) -> tensor<2x3x4x3xf32>
  return %0 : tensor<2x3x4x3xf32>
}

// -----

// A 2x2/2 max pool's backward (windows tile the plane): a reduction over the indices says
// whether any lies outside its own window; the gradient is gathered ([h / 2, w / 2]: the
// window's index picks its element) over the 6 rows windows cover, row 7 stays zero; the
// scatter's loops (zeros first) run 2 batches when some index strays, else none.
// CHECK-DAG: #[[OWN:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
// CHECK-LABEL: func.func @max_pool_backward_own_windows
// CHECK: %[[FOUND:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%arg2 : tensor<2x3x3x4xi64>) outs(%{{.+}} : tensor<i8>)
// CHECK: %[[FLAG:.+]] = tensor.extract %[[FOUND]][] : tensor<i8>
// CHECK: %[[STRAYS:.+]] = arith.cmpi ne, %[[FLAG]]
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#[[OWN]], #[[OWN]], {{.+}}]} ins(%arg0, %arg2 : tensor<2x3x3x4xf32>, tensor<2x3x3x4xi64>) outs(%{{.+}} : tensor<2x3x6x8xf32>)
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0, 0] [2, 3, 6, 8]
// CHECK: %[[TRIPS:.+]] = arith.select %[[STRAYS]], %c2, %c0 : index
// CHECK: scf.for %{{.+}} = %c0 to %[[TRIPS]]
// CHECK: tensor.insert %cst
// CHECK: scf.for %{{.+}} = %c0 to %[[TRIPS]]
// CHECK: arith.addf
func.func @max_pool_backward_own_windows(%go: tensor<2x3x3x4xf32>, %x: tensor<2x3x7x8xf32>, %i: tensor<2x3x3x4xi64>) -> tensor<2x3x7x8xf32> {
  %0 = "aten.max_pool2d_with_indices_backward"(%go, %x, %i) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x3x3x4xf32>, tensor<2x3x7x8xf32>, tensor<2x3x3x4xi64>) -> tensor<2x3x7x8xf32>
  return %0 : tensor<2x3x7x8xf32>
}
