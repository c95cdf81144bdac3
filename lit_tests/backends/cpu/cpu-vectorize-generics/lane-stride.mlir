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
// CHECK: vector.extract_strided_slice %[[EVEN]] {offsets = [0], sizes = [8]
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

// -----

// An index `d floordiv 2` of the lane dim (a 2x2/2 max pool's backward reads grad_output at
// [h / 2, w / 2]): 8 elements (masked load) spread over 16 lanes by one shuffle. The masked
// step at 16 reads element 8 only: lane 16's (its sole live lane's).
// CHECK-LABEL: func.func @spread
// CHECK: %[[EIGHT:.+]] = vector.constant_mask [8] : vector<16xi1>
// CHECK: %[[A:.+]] = vector.maskedload %arg0[%{{.+}}, %c0], %[[EIGHT]]
// CHECK: vector.shuffle %[[A]], %[[A]] [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]
// CHECK: %[[ONE:.+]] = vector.constant_mask [1] : vector<16xi1>
// CHECK: %[[FIRST:.+]] = vector.shuffle %[[ONE]], %{{.+}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 16, 16, 16, 16, 16, 16, 16]
// CHECK: vector.maskedload %arg0[%{{.+}}, %c8], %[[FIRST]]
// CHECK: vector.maskedstore %arg1[%{{.+}}, %c16], %[[ONE]]
#spread_in = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
#spread_out = affine_map<(d0, d1) -> (d0, d1)>
func.func @spread(%x: memref<4x9xf32>, %y: memref<4x17xf32>) {
  linalg.generic {indexing_maps = [#spread_in, #spread_out], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x9xf32>) outs(%y : memref<4x17xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// `d floordiv 4` on a `?` row: the step's first element is its start / 4, four lanes each;
// the masked end reads the elements of live lanes 0, 4, 8, 12.
// CHECK-LABEL: func.func @spread_dynamic
// CHECK: scf.for %[[W:.+]] = %c0 to %{{.+}} step %c16
// CHECK: %[[AT:.+]] = arith.floordivsi %[[W]], %c4 : index
// CHECK: %[[A:.+]] = vector.maskedload %arg0[%{{.+}}, %[[AT]]]
// CHECK: vector.shuffle %[[A]], %[[A]] [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [0, 4, 8, 12, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16]
#spread4_in = affine_map<(d0, d1) -> (d0, d1 floordiv 4)>
#spread4_out = affine_map<(d0, d1) -> (d0, d1)>
func.func @spread_dynamic(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#spread4_in, #spread4_out], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
