// RUN: aten-opt %s -p triton-sink-loops --split-input-file | FileCheck %s

// Batch norm's per-channel sum over a sequential batch loop: every lane touches only its own
// accumulator, so the batch loop moves inside the channel nest (one launch, not one per n).
// CHECK-LABEL: func.func @channel_sum
// CHECK: scf.parallel (%[[C:.+]]) =
// CHECK:   scf.for %[[N:.+]] = %c0 to %c2
// CHECK:     scf.for %[[H:.+]] = %c0 to %c8
// CHECK:       memref.load %{{.+}}[%[[N]], %[[C]], %[[H]]]
// CHECK:       memref.store %{{.+}}, %{{.+}}[%[[C]]]
// CHECK-NOT: scf.for %{{.+}} = %c0 to %c2
func.func @channel_sum(%x: memref<2x4x8xf32>, %sum: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %n = %c0 to %c2 step %c1 {
    scf.parallel (%c) = (%c0) to (%c4) step (%c1) {
      scf.for %h = %c0 to %c8 step %c1 {
        %v = memref.load %x[%n, %c, %h] : memref<2x4x8xf32>
        %a = memref.load %sum[%c] : memref<4xf32>
        %s = arith.addf %a, %v : f32
        memref.store %s, %sum[%c] : memref<4xf32>
      }
      scf.reduce
    }
  }
  return
}

// -----

// A lane reads the accumulator its neighbour wrote in the previous iteration: the loop stays
// outside (each launch must see the whole previous one).
// CHECK-LABEL: func.func @reads_neighbour
// CHECK: scf.for
// CHECK:   scf.parallel
func.func @reads_neighbour(%acc: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %n = %c0 to %c2 step %c1 {
    scf.parallel (%c) = (%c0) to (%c4) step (%c1) {
      %r = arith.subi %c3, %c : index
      %a = memref.load %acc[%r] : memref<4xf32>
      %b = memref.load %acc[%c] : memref<4xf32>
      %s = arith.addf %a, %b : f32
      memref.store %s, %acc[%c] : memref<4xf32>
      scf.reduce
    }
  }
  return
}

// -----

// The nest's space depends on the loop's iv (a triangle): it cannot move out.
// CHECK-LABEL: func.func @triangle
// CHECK: scf.for %[[N:.+]] =
// CHECK:   scf.parallel (%{{.+}}) = (%c0) to (%[[N]])
func.func @triangle(%out: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  scf.for %n = %c0 to %c4 step %c1 {
    scf.parallel (%c) = (%c0) to (%n) step (%c1) {
      memref.store %one, %out[%n, %c] : memref<4x4xf32>
      scf.reduce
    }
  }
  return
}
