// RUN: aten-opt %s -p triton-merge-slabs --split-input-file | FileCheck %s

// rotate_half: -x[:, 4:] into the first half of a buffer (a nest), x[:, :4] into the second
// (a copy). One nest fills the buffer, each half computed at indices clamped into its piece.
// CHECK-LABEL: func.func @rotate_half
// CHECK-NOT: memref.copy
// CHECK: scf.parallel (%[[I:.+]], %[[J:.+]]) =
// CHECK-DAG: %[[D1:.+]] = arith.minsi %[[J]], %c3
// CHECK-DAG: %[[A:.+]] = memref.load %{{.+}}[%[[I]], %[[D1]]] : memref<2x4xf32, strided<[8, 1], offset: 4>>
// CHECK-DAG: %[[NEG:.+]] = arith.negf %[[A]]
// CHECK-DAG: %[[LO:.+]] = arith.maxsi %[[J]], %c4
// CHECK-DAG: %[[SUB:.+]] = arith.subi %[[LO]], %c4
// CHECK-DAG: %[[D2:.+]] = arith.minsi %[[SUB]], %c3
// CHECK-DAG: %[[B:.+]] = memref.load %{{.+}}[%[[I]], %[[D2]]] : memref<2x4xf32, strided<[8, 1]>>
// CHECK-DAG: %[[IN:.+]] = arith.cmpi ult, %[[J]], %c4
// CHECK: %[[V:.+]] = arith.select %[[IN]], %[[NEG]], %[[B]]
// CHECK: memref.store %[[V]], %alloc[%[[I]], %[[J]]] : memref<2x8xf32>
func.func @rotate_half(%x: memref<2x8xf32>, %o: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %lo = memref.subview %x[0, 0] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1]>>
  %hi = memref.subview %x[0, 4] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  %t = memref.alloc() : memref<2x8xf32>
  %first = memref.subview %t[0, 0] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1]>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c4) step (%c1, %c1) {
    %v = memref.load %hi[%i, %j] : memref<2x4xf32, strided<[8, 1], offset: 4>>
    %n = arith.negf %v : f32
    memref.store %n, %first[%i, %j] : memref<2x4xf32, strided<[8, 1]>>
    scf.reduce
  }
  %second = memref.subview %t[0, 4] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  memref.copy %lo, %second : memref<2x4xf32, strided<[8, 1]>> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
    %v = memref.load %t[%i, %j] : memref<2x8xf32>
    memref.store %v, %o[%i, %j] : memref<2x8xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<2x8xf32>
  return
}

// -----

// The first half is read before the second is written: the pieces stay apart.
// CHECK-LABEL: func.func @read_in_between
// CHECK: memref.copy
func.func @read_in_between(%x: memref<2x8xf32>, %o: memref<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %lo = memref.subview %x[0, 0] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1]>>
  %hi = memref.subview %x[0, 4] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  %t = memref.alloc() : memref<2x8xf32>
  %first = memref.subview %t[0, 0] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1]>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c4) step (%c1, %c1) {
    %v = memref.load %hi[%i, %j] : memref<2x4xf32, strided<[8, 1], offset: 4>>
    memref.store %v, %first[%i, %j] : memref<2x4xf32, strided<[8, 1]>>
    scf.reduce
  }
  memref.copy %first, %o : memref<2x4xf32, strided<[8, 1]>> to memref<2x4xf32>
  %second = memref.subview %t[0, 4] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  memref.copy %lo, %second : memref<2x4xf32, strided<[8, 1]>> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  memref.dealloc %t : memref<2x8xf32>
  return
}

// -----

// A buffer reused for a second cat (the next layer's): each cat becomes its own nest.
// CHECK-LABEL: func.func @reused_buffer
// CHECK-NOT: memref.copy
// CHECK: arith.select
// CHECK: memref.store %{{.+}}, %alloc[
// CHECK: memref.load %alloc[
// CHECK: arith.select
// CHECK: memref.store %{{.+}}, %alloc[
// CHECK: memref.load %alloc[
func.func @reused_buffer(%x: memref<2x8xf32>, %y: memref<2x8xf32>, %o: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %t = memref.alloc() : memref<2x8xf32>
  %first = memref.subview %t[0, 0] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1]>>
  %second = memref.subview %t[0, 4] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  %xlo = memref.subview %x[0, 0] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1]>>
  %xhi = memref.subview %x[0, 4] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  memref.copy %xhi, %first : memref<2x4xf32, strided<[8, 1], offset: 4>> to memref<2x4xf32, strided<[8, 1]>>
  memref.copy %xlo, %second : memref<2x4xf32, strided<[8, 1]>> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
    %v = memref.load %t[%i, %j] : memref<2x8xf32>
    memref.store %v, %o[%i, %j] : memref<2x8xf32>
    scf.reduce
  }
  %ylo = memref.subview %y[0, 0] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1]>>
  %yhi = memref.subview %y[0, 4] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  memref.copy %yhi, %first : memref<2x4xf32, strided<[8, 1], offset: 4>> to memref<2x4xf32, strided<[8, 1]>>
  memref.copy %ylo, %second : memref<2x4xf32, strided<[8, 1]>> to memref<2x4xf32, strided<[8, 1], offset: 4>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
    %v = memref.load %t[%i, %j] : memref<2x8xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %o[%i, %j] : memref<2x8xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<2x8xf32>
  return
}
