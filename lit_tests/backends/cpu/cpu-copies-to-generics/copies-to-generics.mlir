// RUN: aten-opt %s -p cpu-copies-to-generics --split-input-file | FileCheck %s

// A copy into a padded buffer's interior (a strided subview) becomes an identity generic,
// which cpu-vectorize-generics then runs as vector loops (memrefCopy would go element by
// element).
// CHECK-LABEL: func.func @into_interior
// CHECK: %[[VIEW:.+]] = memref.subview
// CHECK: linalg.generic {indexing_maps = [#[[ID:.+]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%arg0 : memref<2x3x4x4xf32>) outs(%[[VIEW]] : memref<2x3x4x4xf32, strided<[108, 36, 6, 1], offset: 7>>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK-NOT: memref.copy
func.func @into_interior(%x: memref<2x3x4x4xf32>, %padded: memref<2x3x6x6xf32>) {
  %view = memref.subview %padded[0, 0, 1, 1] [2, 3, 4, 4] [1, 1, 1, 1] : memref<2x3x6x6xf32> to memref<2x3x4x4xf32, strided<[108, 36, 6, 1], offset: 7>>
  memref.copy %x, %view : memref<2x3x4x4xf32> to memref<2x3x4x4xf32, strided<[108, 36, 6, 1], offset: 7>>
  return
}

// -----

// A `?` batch's padded image: the same generic, its sizes read from the operands.
// CHECK-LABEL: func.func @dynamic_interior
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0 : memref<?x3x4x4xf32>) outs(%{{.+}} : memref<?x3x4x4xf32, strided<[108, 36, 6, 1], offset: 7>>)
// CHECK-NOT: memref.copy
func.func @dynamic_interior(%x: memref<?x3x4x4xf32>, %padded: memref<?x3x6x6xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x3x4x4xf32>
  %view = memref.subview %padded[0, 0, 1, 1] [%n, 3, 4, 4] [1, 1, 1, 1] : memref<?x3x6x6xf32> to memref<?x3x4x4xf32, strided<[108, 36, 6, 1], offset: 7>>
  memref.copy %x, %view : memref<?x3x4x4xf32> to memref<?x3x4x4xf32, strided<[108, 36, 6, 1], offset: 7>>
  return
}

// -----

// Contiguous copies stay, static or dynamic: they lower to memcpy. So does rank 0.
// CHECK-LABEL: func.func @stay
// CHECK-COUNT-3: memref.copy
// CHECK-NOT: linalg.generic
func.func @stay(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<?xf32>, %d: memref<?xf32>, %e: memref<f32>, %f: memref<f32>) {
  memref.copy %a, %b : memref<8x8xf32> to memref<8x8xf32>
  memref.copy %c, %d : memref<?xf32> to memref<?xf32>
  memref.copy %e, %f : memref<f32> to memref<f32>
  return
}
