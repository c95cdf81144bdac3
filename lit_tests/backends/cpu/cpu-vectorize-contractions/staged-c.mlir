// RUN: aten-opt %s -p "cpu-vectorize-contractions{cpu=skylake-avx512}" --split-input-file | FileCheck %s

// A product into every other column of a buffer (the zero-dilated input of a transposed conv):
// C is copied into a contiguous buffer, the FMA kernel accumulates there, and the result is
// copied back; no scalar product is left.
// CHECK-LABEL: func.func @into_every_other_column
// CHECK: %[[C:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK-NEXT: memref.copy %arg2, %[[C]] : memref<16x32xf32, strided<[64, 2], offset: 1>> to memref<16x32xf32>
// CHECK: vector.fma
// CHECK: vector.store {{.+}}, %[[C]]
// CHECK: memref.copy %[[C]], %arg2 : memref<16x32xf32> to memref<16x32xf32, strided<[64, 2], offset: 1>>
// CHECK-NEXT: memref.dealloc %[[C]]
// CHECK-NOT: linalg.matmul
func.func @into_every_other_column(%a: memref<16x8xf32>, %b: memref<8x32xf32>, %c: memref<16x32xf32, strided<[64, 2], offset: 1>>) {
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x32xf32>) outs(%c : memref<16x32xf32, strided<[64, 2], offset: 1>>)
  return
}

// -----

// A `?` C: the staging buffer takes its sizes from C.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[N:.+]] = memref.dim %arg2, %c0
// CHECK: memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x32xf32>
// CHECK: vector.fma
// CHECK-NOT: linalg.matmul
func.func @dynamic(%a: memref<?x8xf32>, %b: memref<8x32xf32>, %c: memref<?x32xf32, strided<[64, 2], offset: 1>>) {
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x32xf32>) outs(%c : memref<?x32xf32, strided<[64, 2], offset: 1>>)
  return
}
