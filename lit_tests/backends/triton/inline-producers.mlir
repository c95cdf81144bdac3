// RUN: aten-opt %s -p triton-inline-producers --split-input-file | FileCheck %s

// A head split (a transposing copy) read by a scaling nest: the copy's load moves into the
// reader at the reader's indices, and the copy nest goes.
// CHECK-LABEL: func.func @transpose_then_scale
// CHECK: scf.parallel (%[[I:.+]], %[[J:.+]]) =
// CHECK-NEXT: %[[X:.+]] = memref.load %arg0[%[[J]], %[[I]]]
// CHECK-NEXT: arith.mulf %[[X]]
// CHECK-NOT: scf.parallel
func.func @transpose_then_scale(%x: memref<8x4xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<4x8xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%j, %i] : memref<8x4xf32>
    memref.store %v, %t[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %t[%i, %j] : memref<4x8xf32>
    %s = arith.mulf %v, %cst : f32
    memref.store %s, %out[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<4x8xf32>
  return
}

// -----

// The source is overwritten between the copy and its reader: the reader must see the copy.
// CHECK-LABEL: func.func @source_overwritten
// CHECK: memref.store %{{.+}}, %alloc[
// CHECK: memref.store %cst, %arg0[
// CHECK: memref.load %alloc[
func.func @source_overwritten(%x: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cst = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %t[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %cst, %x[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %t[%i] : memref<4xf32>
    memref.store %v, %out[%i] : memref<4xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<4xf32>
  return
}

// -----

// An embedding lookup (an index read from memory) read by two nests stays materialized:
// repeated in both it would gather the rows twice.
// CHECK-LABEL: func.func @gather_stays
// CHECK: memref.load %arg1[
// CHECK: memref.store %{{.+}}, %alloc[
// CHECK: memref.load %alloc[
// CHECK: memref.load %alloc[
func.func @gather_stays(%table: memref<10x4xf32>, %ids: memref<3xindex>, %out: memref<3x4xf32>,
                        %out2: memref<3x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<3x4xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c4) step (%c1, %c1) {
    %id = memref.load %ids[%i] : memref<3xindex>
    %v = memref.load %table[%id, %j] : memref<10x4xf32>
    memref.store %v, %t[%i, %j] : memref<3x4xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c4) step (%c1, %c1) {
    %v = memref.load %t[%i, %j] : memref<3x4xf32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %out[%i, %j] : memref<3x4xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c4) step (%c1, %c1) {
    %v = memref.load %t[%i, %j] : memref<3x4xf32>
    %s = arith.mulf %v, %v : f32
    memref.store %s, %out2[%i, %j] : memref<3x4xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<3x4xf32>
  return
}

// -----

// The same lookup read by one nest (an embedding and its layer norm): it moves into that
// kernel, which then reads the table's rows itself.
// CHECK-LABEL: func.func @gather_into_one_reader
// CHECK: scf.parallel
// CHECK:   %[[ID:.+]] = memref.load %arg1[
// CHECK:   memref.load %arg0[%[[ID]],
// CHECK-NOT: memref.load %alloc
func.func @gather_into_one_reader(%table: memref<10x4xf32>, %ids: memref<3xindex>,
                                  %out: memref<3x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<3x4xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c4) step (%c1, %c1) {
    %id = memref.load %ids[%i] : memref<3xindex>
    %v = memref.load %table[%id, %j] : memref<10x4xf32>
    memref.store %v, %t[%i, %j] : memref<3x4xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c4) step (%c1, %c1) {
    %v = memref.load %t[%i, %j] : memref<3x4xf32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %out[%i, %j] : memref<3x4xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<3x4xf32>
  return
}

// -----

// A GQA repeat_kv: the copy writes (b, kv, 2, d); the reader sees (b, heads, d) through a
// collapse. The collapse's index splits into (h / 2, h % 2) at the reader, and the copy goes.
// CHECK-LABEL: func.func @repeat_kv_through_collapse
// CHECK: scf.parallel (%[[B:.+]], %[[H:.+]], %[[D:.+]]) =
// CHECK:   %[[KV:.+]] = arith.divui %[[H]], %c2
// CHECK:   memref.load %arg0[%[[B]], %[[KV]], %[[D]]]
// CHECK-NOT: scf.parallel
func.func @repeat_kv_through_collapse(%k: memref<2x3x8xf32>) -> memref<2x6x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<2x3x2x8xf32>
  scf.parallel (%b, %h, %r, %d) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c2, %c8) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %k[%b, %h, %d] : memref<2x3x8xf32>
    memref.store %v, %t[%b, %h, %r, %d] : memref<2x3x2x8xf32>
    scf.reduce
  }
  %heads = memref.collapse_shape %t [[0], [1, 2], [3]] : memref<2x3x2x8xf32> into memref<2x6x8xf32>
  %out = memref.alloc() : memref<2x6x8xf32>
  scf.parallel (%b, %h, %d) = (%c0, %c0, %c0) to (%c2, %c6, %c8) step (%c1, %c1, %c1) {
    %v = memref.load %heads[%b, %h, %d] : memref<2x6x8xf32>
    %s = arith.mulf %v, %cst : f32
    memref.store %s, %out[%b, %h, %d] : memref<2x6x8xf32>
    scf.reduce
  }
  return %out : memref<2x6x8xf32>
}

// -----

// An accumulator's init read by a reduction loop that updates it: the loop's next iteration
// reads the update, not the init, so nothing is inlined.
// CHECK-LABEL: func.func @accumulator_init_stays
// CHECK: memref.store %cst, %alloc[
// CHECK: scf.for
// CHECK:   memref.load %alloc[
func.func @accumulator_init_stays(%x: memref<4x8xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %cst, %acc[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %a = memref.load %acc[%i] : memref<4xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[%i] : memref<4xf32>
    }
    %r = memref.load %acc[%i] : memref<4xf32>
    memref.store %r, %out[%i] : memref<4xf32>
    scf.reduce
  }
  memref.dealloc %acc : memref<4xf32>
  return
}

// -----

// A reused buffer: the second nest overwrites all of it before the last nest reads it. The
// first reader gets the producer's computation; the last keeps reading the buffer (it holds
// the second nest's values) and the producer goes.
// CHECK-LABEL: func.func @reused_buffer
// CHECK: scf.parallel
// CHECK:   %[[X:.+]] = memref.load %arg0[
// CHECK:   arith.negf %[[X]]
// CHECK:   memref.store %{{.+}}, %arg1[
// CHECK: scf.parallel
// CHECK:   memref.store %{{.+}}, %alloc[
// CHECK: scf.parallel
// CHECK:   memref.load %alloc[
// CHECK-NOT: scf.parallel
func.func @reused_buffer(%x: memref<4xf32>, %a: memref<4xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    %n = arith.negf %v : f32
    memref.store %n, %t[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %t[%i] : memref<4xf32>
    memref.store %v, %a[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    %e = math.exp %v : f32
    memref.store %e, %t[%i] : memref<4xf32>
    scf.reduce
  }
  call @sink(%t) : (memref<4xf32>) -> ()
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %t[%i] : memref<4xf32>
    memref.store %v, %b[%i] : memref<4xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<4xf32>
  return
}
func.func private @sink(memref<4xf32>)
