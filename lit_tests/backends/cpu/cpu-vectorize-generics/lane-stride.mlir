// RUN: aten-opt %s -p 'cpu-vectorize-generics{lanes=16 reduction-lanes=32},canonicalize' --split-input-file | FileCheck %s

// A strided convolution's window copy, y[n, kw, ow] = x[n, ow * 2 + kw] (ow: 16 lanes): two
// contiguous chunks and one even-lane shuffle per step. The second chunk's last element is no
// lane's (lane 15 reads element 30 of the 32): it is masked off, as it may lie past the row
// (kw = 2, ow = 15 reads x[n, 32], the row's last element).
// CHECK-LABEL: func.func @window_copy
// CHECK: scf.parallel (%[[N:.+]], %[[KW:.+]]) =
// CHECK: %[[A:.+]] = vector.load %arg0[%[[N]], %[[KW]]] : memref<4x33xf32>, vector<16xf32>
// CHECK: %[[AT:.+]] = arith.addi %[[KW]], %c16
// CHECK: %[[LIVE:.+]] = vector.constant_mask [15] : vector<16xi1>
// CHECK: %[[B:.+]] = vector.maskedload %arg0[%[[N]], %[[AT]]], %[[LIVE]]
// CHECK: %[[EVEN:.+]] = vector.shuffle %[[A]], %[[B]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<16xf32>, vector<16xf32>
// CHECK: vector.store %[[EVEN]], %arg1[%[[N]], %[[KW]], %c0] : memref<4x3x16xf32>, vector<16xf32>
// CHECK-NOT: memref.load
#x = affine_map<(d0, d1, d2) -> (d0, d2 * 2 + d1)>
#y = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @window_copy(%x: memref<4x33xf32>, %y: memref<4x3x16xf32>) {
  linalg.generic {indexing_maps = [#x, #y], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<4x33xf32>) outs(%y : memref<4x3x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A `?` row: its end is one masked step, whose chunk masks keep only the elements the live
// lanes read (lane j: element 2 j), so nothing past the last read element is touched.
// CHECK-LABEL: func.func @dynamic_row
// CHECK: %[[MASK:.+]] = vector.create_mask %{{.+}} : vector<16xi1>
// CHECK: scf.for
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK: scf.if
// CHECK: %[[M0:.+]] = vector.shuffle %[[MASK]], %{{.+}} [0, 16, 1, 16, 2, 16, 3, 16, 4, 16, 5, 16, 6, 16, 7, 16] : vector<16xi1>, vector<16xi1>
// CHECK: %[[C0:.+]] = vector.maskedload %arg0[%{{.+}}, %{{.+}}], %[[M0]]
// CHECK: %[[M1:.+]] = vector.shuffle %[[MASK]], %{{.+}} [8, 16, 9, 16, 10, 16, 11, 16, 12, 16, 13, 16, 14, 16, 15, 16]
// CHECK: %[[C1:.+]] = vector.maskedload %arg0[%{{.+}}, %{{.+}}], %[[M1]]
// CHECK: %[[EVEN:.+]] = vector.shuffle %[[C0]], %[[C1]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK: vector.maskedstore %arg1[%{{.+}}, %{{.+}}], %[[MASK]], %[[EVEN]]
#in = affine_map<(d0, d1) -> (d0, d1 * 2 + 1)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_row(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// Stride 3: three chunks, the first two joined, every third element kept; the last chunk's
// two elements past lane 15's are masked off.
// CHECK-LABEL: func.func @stride_three
// CHECK: %[[A:.+]] = vector.load %arg0[%{{.+}}, %c0] : memref<4x49xf32>, vector<16xf32>
// CHECK: %[[B:.+]] = vector.load %arg0[%{{.+}}, %c16] : memref<4x49xf32>, vector<16xf32>
// CHECK: %[[LIVE:.+]] = vector.constant_mask [14] : vector<16xi1>
// CHECK: %[[C:.+]] = vector.maskedload %arg0[%{{.+}}, %c32], %[[LIVE]]
// CHECK: %[[AB:.+]] = vector.shuffle %[[A]], %[[B]] [0, 1, 2, {{.*}}, 31] : vector<16xf32>, vector<16xf32>
// CHECK: vector.shuffle %[[AB]], %[[C]] [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45] : vector<32xf32>, vector<16xf32>
#in = affine_map<(d0, d1) -> (d0, d1 * 3)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @stride_three(%x: memref<4x49xf32>, %y: memref<4x17xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x49xf32>) outs(%y : memref<4x17xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A strided read of the buffer the op writes stays for the scalar loops: a step's lanes read
// and write in another order than the scalar loop, which then may see other values.
// CHECK-LABEL: func.func @in_place
// CHECK: linalg.generic
#in = affine_map<(d0) -> (d0 * 2)>
#out = affine_map<(d0) -> (d0)>
func.func @in_place(%x: memref<64xf32>) {
  %half = memref.subview %x[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%half : memref<32xf32, strided<[1]>>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}
