// RUN: aten-opt %s -p 'cpu-vectorize-generics{lanes=16 reduction-lanes=32},canonicalize' --split-input-file | FileCheck %s

// A `?` row's masked step (lane_tail.py) loads and stores unmasked pieces of 8, 4, 2 lanes
// and one element, each when its bit of the rest count is set: on Zen 5 the next row's first
// load waits ~20 cycles behind a runtime-masked store it overlaps, and a wide load over the
// previous nest's narrower piece stores waits for them to reach the cache. A stored piece is
// the low half of what is left; the loaded vector is put together from the smallest piece up
// (the piece, then what is below it). The conditions and offsets are computed once, outside
// the row loop; an elementwise row then needs no mask at all.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[REM:.+]] = arith.remui %[[N:.+]], %c16 : index
// CHECK: %[[MAIN:.+]] = arith.subi %[[N]], %[[REM]] : index
// CHECK: %[[LEFT:.+]] = arith.subi %[[N]], %[[MAIN]] : index
// CHECK-NOT: vector.create_mask
// CHECK: %[[B8:.+]] = arith.andi %[[LEFT]], %c8 : index
// CHECK: %[[HAS8:.+]] = arith.cmpi ne, %[[B8]], %c0 : index
// CHECK: %[[B4:.+]] = arith.andi %[[LEFT]], %c4 : index
// CHECK: %[[HAS4:.+]] = arith.cmpi ne, %[[B4]], %c0 : index
// CHECK: %[[AT2:.+]] = arith.addi %[[B8]], %[[B4]] : index
// CHECK: %[[B2:.+]] = arith.andi %[[LEFT]], %c2 : index
// CHECK: %[[HAS2:.+]] = arith.cmpi ne, %[[B2]], %c0 : index
// CHECK: %[[AT1:.+]] = arith.addi %[[AT2]], %[[B2]] : index
// CHECK: %[[B1:.+]] = arith.andi %[[LEFT]], %c1 : index
// CHECK: %[[HAS1:.+]] = arith.cmpi ne, %[[B1]], %c0 : index
// CHECK: scf.parallel (%[[R:.+]]) =
// CHECK: scf.for
// CHECK: vector.store %{{.+}}, %arg2[%[[R]], %{{.+}}] : memref<?x?xf32>, vector<16xf32>
// CHECK: %[[L1:.+]] = scf.if %[[HAS1]] -> (vector<2xf32>) {
// CHECK-NEXT: %[[J1:.+]] = arith.addi %[[MAIN]], %[[AT1]] : index
// CHECK-NEXT: vector.load %arg0[%[[R]], %[[J1]]] : memref<?x?xf32>, vector<1xf32>
// CHECK: %[[L2:.+]] = scf.if %[[HAS2]] -> (vector<4xf32>) {
// CHECK-NEXT: %[[J2:.+]] = arith.addi %[[MAIN]], %[[AT2]] : index
// CHECK-NEXT: %[[P2:.+]] = vector.load %arg0[%[[R]], %[[J2]]] : memref<?x?xf32>, vector<2xf32>
// CHECK-NEXT: vector.shuffle %[[P2]], %[[L1]] [0, 1, 2, 3]
// CHECK: } else {
// CHECK-NEXT: vector.shuffle %[[L1]], %{{.+}} [0, 1, 2, 3]
// CHECK: %[[L4:.+]] = scf.if %[[HAS4]] -> (vector<8xf32>) {
// CHECK: vector.load %arg0[%[[R]], %{{.+}}] : memref<?x?xf32>, vector<4xf32>
// CHECK: %[[L8:.+]] = scf.if %[[HAS8]] -> (vector<16xf32>) {
// CHECK-NEXT: %[[P8:.+]] = vector.load %arg0[%[[R]], %[[MAIN]]] : memref<?x?xf32>, vector<8xf32>
// CHECK-NEXT: vector.shuffle %[[P8]], %[[L4]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// CHECK: %[[V:.+]] = arith.mulf %[[L8]]
// CHECK-NEXT: %[[LO8:.+]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [8]
// CHECK-NEXT: %[[HI8:.+]] = vector.extract_strided_slice %[[V]] {offsets = [8], sizes = [8]
// CHECK-NEXT: scf.if %[[HAS8]] {
// CHECK-NEXT: vector.store %[[LO8]], %arg2[%[[R]], %[[MAIN]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: %[[REST8:.+]] = arith.select %[[HAS8]], %[[HI8]], %[[LO8]] : vector<8xf32>
// CHECK-NEXT: %[[LO4:.+]] = vector.extract_strided_slice %[[REST8]] {offsets = [0], sizes = [4]
// CHECK: scf.if %[[HAS4]] {
// CHECK-NEXT: %[[I4:.+]] = arith.addi %[[MAIN]], %[[B8]] : index
// CHECK-NEXT: vector.store %[[LO4]], %arg2[%[[R]], %[[I4]]] : memref<?x?xf32>, vector<4xf32>
// CHECK: scf.if %[[HAS2]] {
// CHECK-NEXT: %[[I2:.+]] = arith.addi %[[MAIN]], %[[AT2]] : index
// CHECK-NEXT: vector.store %{{.+}}, %arg2[%[[R]], %[[I2]]] : memref<?x?xf32>, vector<2xf32>
// CHECK: %[[REST2:.+]] = arith.select %[[HAS2]], %{{.+}}, %{{.+}} : vector<2xf32>
// CHECK-NEXT: scf.if %[[HAS1]] {
// CHECK-NEXT: %[[I1:.+]] = arith.addi %[[MAIN]], %[[AT1]] : index
// CHECK-NEXT: %[[LAST:.+]] = vector.extract %[[REST2]][0] : f32 from vector<2xf32>
// CHECK-NEXT: memref.store %[[LAST]], %arg2[%[[R]], %[[I1]]] : memref<?x?xf32>
// CHECK-NOT: vector.maskedstore
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @dynamic_rows(%x: memref<?x?xf32>, %s: memref<?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  }
  return
}

// -----

// bf16 values are stored narrow: pieces of 8 (16 bytes), 4, 2 and one element.
// CHECK-LABEL: func.func @dynamic_bf16
// CHECK: vector.load %{{.+}} : memref<?xbf16>, vector<8xbf16>
// CHECK: vector.store %{{.+}} : memref<?xbf16>, vector<8xbf16>
// CHECK: vector.store %{{.+}} : memref<?xbf16>, vector<4xbf16>
// CHECK: vector.store %{{.+}} : memref<?xbf16>, vector<2xbf16>
// CHECK: memref.store %{{.+}} : memref<?xbf16>
// CHECK-NOT: vector.masked
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_bf16(%x: memref<?x?xbf16>, %y: memref<?x?xbf16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xbf16>) outs(%y : memref<?x?xbf16>) {
  ^bb0(%in: bf16, %o: bf16):
    %s = arith.mulf %in, %in : bf16
    linalg.yield %s : bf16
  }
  return
}

// -----

// A static row's last step keeps its constant-mask store (LLVM makes plain stores of it).
// CHECK-LABEL: func.func @static_rows
// CHECK: %[[MASK:.+]] = vector.constant_mask [3] : vector<16xi1>
// CHECK: vector.maskedstore %arg2[%{{.+}}, %c32], %[[MASK]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @static_rows(%x: memref<4x35xf32>, %s: memref<4xf32>, %y: memref<4x35xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<4x35xf32>, memref<4xf32>) outs(%y : memref<4x35xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  }
  return
}
