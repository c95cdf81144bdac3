// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// A negative pad crops first (extract_slice), the positive ones place the crop in a fill.
// CHECK-LABEL: func.func @constant_pad
// CHECK-DAG: %[[V:.+]] = arith.constant 1.500000e+00 : f32
// CHECK-DAG: %[[CROP:.+]] = tensor.extract_slice %{{.+}}[0, 1] [3, 3] [1, 1] : tensor<3x4xf32> to tensor<3x3xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%[[V]] : f32) outs(%{{.+}} : tensor<5x4xf32>)
// CHECK: %[[W:.+]] = tensor.extract_slice %[[F]][2, 0] [3, 3] [1, 1]
// CHECK: %[[C:.+]] = linalg.copy {{.+}} ins(%[[CROP]] : tensor<3x3xf32>) outs(%[[W]] : tensor<3x3xf32>)
// CHECK: tensor.insert_slice %[[C]] into %[[F]][2, 0] [3, 3] [1, 1]
func.func @constant_pad(%x: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = "aten.constant_pad_nd"(%x) {pad = array<i64: -1, 1, 2, 0>, value = 1.5 : f64} : (tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// Reflection: out index i - 2, mirrored at 0 and at size - 1.
// CHECK-LABEL: func.func @reflect
// CHECK: %[[D:.+]] = tensor.dim %{{.+}}, %{{.+}} : tensor<2x?xf32>
// CHECK: linalg.generic
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[S:.+]] = arith.subi %[[J]], %{{.+}} : index
// CHECK: arith.cmpi slt, %[[S]]
// CHECK: %[[LAST:.+]] = arith.subi %[[D]], %{{.+}} : index
// CHECK: arith.cmpi sgt, %{{.+}}, %[[LAST]]
// CHECK: tensor.extract
func.func @reflect(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = "aten.reflection_pad1d"(%x) {padding = array<i64: 2, 1>} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
