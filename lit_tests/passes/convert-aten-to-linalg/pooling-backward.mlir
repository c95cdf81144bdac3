// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// avg_pool3d_backward: each output's share (grad / divisor) once, in a generic over
// grad_output; then a gather, one generic over the input (5 parallel dims) and the
// ceil(k/s) = 2 outputs per dim whose windows can hold an element (3 reduction dims). Every
// window is full (27 elements), so the divisor is a constant.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
// CHECK-LABEL: func.func @avg_pool3d_backward
// CHECK-DAG: %[[K:.+]] = arith.constant 2.700000e+01 : f32
// CHECK: %[[SHARE:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], {{.+}}} ins(%arg0 : tensor<2x3x4x4x5xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[D:.+]] = arith.divf %[[IN]], %[[K]] : f32
// CHECK-NEXT: linalg.yield %[[D]] : f32
// CHECK: %[[ZERO:.+]] = linalg.fill
// CHECK: %[[OFFS:.+]] = tensor.empty() : tensor<2x2x2xindex>
// CHECK: linalg.generic {indexing_maps = [#[[WIN]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[OFFS]] : tensor<2x2x2xindex>) outs(%[[ZERO]] : tensor<2x3x7x8x9xf32>)
// CHECK-NOT: arith.divf
// CHECK: %[[G:.+]] = tensor.extract %[[SHARE]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<2x3x4x4x5xf32>
// CHECK-NEXT: %[[M:.+]] = arith.select %{{.+}}, %[[G]], %{{.+}} : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %{{.+}}, %[[M]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @avg_pool3d_backward(%g: tensor<2x3x4x4x5xf32>, %x: tensor<2x3x7x8x9xf32>) -> tensor<2x3x7x8x9xf32> {
  %0 = "aten.avg_pool3d_backward"(%g, %x) {ceil_mode = false, count_include_pad = true, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : (tensor<2x3x4x4x5xf32>, tensor<2x3x7x8x9xf32>) -> tensor<2x3x7x8x9xf32>
  return %0 : tensor<2x3x7x8x9xf32>
}

// -----

// Unbatched, ceil_mode, padding not counted: the divisor is each window's clipped extent
// product; kernel 3x2x1 at stride 2 reaches 2x1x1 windows.
// CHECK-LABEL: func.func @avg_pool3d_backward_exclude_pad
// CHECK: %[[SHARE:.+]] = linalg.generic {{.+}} ins(%arg0 : tensor<3x4x4x5xf32>)
// CHECK-COUNT-3: arith.maxsi
// CHECK: %[[N:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK-NEXT: %[[F:.+]] = arith.sitofp %[[N]] : i64 to f32
// CHECK-NEXT: arith.divf %{{.+}}, %[[F]] : f32
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.+}} : tensor<2x1x1xindex>) outs(%{{.+}} : tensor<3x7x8x9xf32>)
// CHECK: tensor.extract %[[SHARE]][{{.+}}] : tensor<3x4x4x5xf32>
func.func @avg_pool3d_backward_exclude_pad(%g: tensor<3x4x4x5xf32>, %x: tensor<3x7x8x9xf32>) -> tensor<3x7x8x9xf32> {
  %0 = "aten.avg_pool3d_backward"(%g, %x) {ceil_mode = true, count_include_pad = false, kernel_size = array<i64: 3, 2, 1>, padding = array<i64: 1, 1, 0>, stride = array<i64: 2, 2, 2>} : (tensor<3x4x4x5xf32>, tensor<3x7x8x9xf32>) -> tensor<3x7x8x9xf32>
  return %0 : tensor<3x7x8x9xf32>
}

// -----

// _adaptive_avg_pool3d_backward with a `?` batch: each output's gradient divided by its window
// extents in turn (as ATen's kernel), once; then the gather over the at most 2 windows per dim
// covering an element.
// CHECK-LABEL: func.func @adaptive_avg_pool3d_backward
// CHECK: %[[N:.+]] = tensor.dim %arg1, %{{.+}} : tensor<?x3x7x8x9xf32>
// CHECK: tensor.empty(%[[N]]) : tensor<?x3x7x8x9xf32>
// CHECK: %[[SHARE:.+]] = linalg.generic {{.+}} ins(%arg0 : tensor<?x3x3x5x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[D0:.+]] = arith.divf %[[IN]], %{{.+}} : f32
// CHECK: %[[D1:.+]] = arith.divf %[[D0]], %{{.+}} : f32
// CHECK: %[[D2:.+]] = arith.divf %[[D1]], %{{.+}} : f32
// CHECK-NEXT: linalg.yield %[[D2]] : f32
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.+}} : tensor<2x2x2xindex>) outs(%{{.+}} : tensor<?x3x7x8x9xf32>)
// CHECK-NOT: arith.divf
// CHECK: tensor.extract %[[SHARE]][{{.+}}] : tensor<?x3x3x5x4xf32>
func.func @adaptive_avg_pool3d_backward(%g: tensor<?x3x3x5x4xf32>, %x: tensor<?x3x7x8x9xf32>) -> tensor<?x3x7x8x9xf32> {
  %0 = "aten._adaptive_avg_pool3d_backward"(%g, %x) : (tensor<?x3x3x5x4xf32>, tensor<?x3x7x8x9xf32>) -> tensor<?x3x7x8x9xf32>
  return %0 : tensor<?x3x7x8x9xf32>
}
