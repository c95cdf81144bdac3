// RUN: aten-opt %s -p aten-clamp-data-indices | FileCheck %s

// A coordinate read from a tensor is clamped to the dim it indexes; one from a loop or a
// constant is not.
// CHECK-LABEL: func.func @take
// CHECK: %[[RAW:.+]] = tensor.extract %{{.+}}[%[[J:.+]]] : tensor<4xi64>
// CHECK: %[[I:.+]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK: %[[C:.+]] = tensor.dim %[[X:.+]], %{{.+}} : tensor<?x3xf32>
// CHECK: %[[LAST:.+]] = arith.subi %[[C]], %{{.+}} : index
// CHECK: %[[LO:.+]] = arith.minsi %[[I]], %[[LAST]] : index
// CHECK: %[[OK:.+]] = arith.maxsi %[[LO]], %{{.+}} : index
// CHECK: tensor.extract %[[X]][%[[OK]], %[[J]]] : tensor<?x3xf32>
func.func @take(%x: tensor<?x3xf32>, %idx: tensor<4xi64>, %j: index) -> f32 {
  %raw = tensor.extract %idx[%j] : tensor<4xi64>
  %i = arith.index_cast %raw : i64 to index
  %v = tensor.extract %x[%i, %j] : tensor<?x3xf32>
  return %v : f32
}

// A scatter's destination coordinate (tensor.insert), wrapped when negative: the wrapped value
// is what is clamped, against the static size.
// CHECK-LABEL: func.func @put
// CHECK: %[[W:.+]] = arith.select
// CHECK: %[[LO:.+]] = arith.minsi %[[W]], %{{.+}} : index
// CHECK: %[[OK:.+]] = arith.maxsi %[[LO]], %{{.+}} : index
// CHECK: tensor.insert %{{.+}} into %{{.+}}[%[[OK]]] : tensor<5xf32>
func.func @put(%x: tensor<5xf32>, %raw: i64, %v: f32) -> tensor<5xf32> {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %i = arith.index_cast %raw : i64 to index
  %neg = arith.cmpi slt, %i, %c0 : index
  %up = arith.addi %i, %c5 : index
  %w = arith.select %neg, %up, %i : index
  %r = tensor.insert %v into %x[%w] : tensor<5xf32>
  return %r : tensor<5xf32>
}

// CHECK-LABEL: func.func @loop_coordinates
// CHECK-NOT: arith.minsi
func.func @loop_coordinates(%x: tensor<5xf32>, %j: index) -> f32 {
  %v = tensor.extract %x[%j] : tensor<5xf32>
  return %v : f32
}
