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

// C filled right before the product (a transposed conv's phase): the fill goes to the staging
// buffer, whose kernel then starts from zeros (the fill folded); C is neither filled nor read,
// only written by the copy back.
// CHECK-LABEL: func.func @filled_every_other_column
// CHECK: %[[C:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK-NOT: linalg.fill
// CHECK-NOT: memref.copy %arg2
// CHECK: vector.fma
// CHECK: vector.store {{.+}}, %[[C]]
// CHECK: memref.copy %[[C]], %arg2 : memref<16x32xf32> to memref<16x32xf32, strided<[64, 2], offset: 1>>
// CHECK-NEXT: memref.dealloc %[[C]]
func.func @filled_every_other_column(%a: memref<16x8xf32>, %b: memref<8x32xf32>, %c: memref<16x32xf32, strided<[64, 2], offset: 1>>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x32xf32, strided<[64, 2], offset: 1>>)
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x32xf32>) outs(%c : memref<16x32xf32, strided<[64, 2], offset: 1>>)
  return
}

// -----

// A fill of C with a write in between (a copy into C): C keeps its fill and is read in.
// CHECK-LABEL: func.func @written_after_fill
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%arg2 :
// CHECK: memref.copy %arg3, %arg2
// CHECK: %[[C:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK-NEXT: memref.copy %arg2, %[[C]]
// CHECK: vector.fma
func.func @written_after_fill(%a: memref<16x8xf32>, %b: memref<8x32xf32>, %c: memref<16x32xf32, strided<[64, 2], offset: 1>>, %d: memref<16x32xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<16x32xf32, strided<[64, 2], offset: 1>>)
  memref.copy %d, %c : memref<16x32xf32> to memref<16x32xf32, strided<[64, 2], offset: 1>>
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

// -----

// A read along m, B along k (`a.T @ b.T`): A is copied with k innermost (a transposing generic,
// vector loops later), and the product runs as `x @ W.T`.
#a = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-DAG: #[[T:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @both_transposed
// CHECK: %[[A:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x64xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[T]]], iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<64x16xf32>) outs(%[[A]] : memref<16x64xf32>)
// CHECK: vector.fma
// CHECK: memref.dealloc %[[A]]
// CHECK-NOT: "reduction"
func.func @both_transposed(%a: memref<64x16xf32>, %b: memref<32x64xf32>, %c: memref<16x32xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<64x16xf32>, memref<32x64xf32>) outs(%c : memref<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
