// RUN: aten-opt %s --split-input-file -p cpu-fuse-row-nests | FileCheck %s

// A softmax's passes over one row: the max, then the exponentials reading it at the same
// row, fuse into one nest; the buffer allocated between them moves above.
// CHECK-LABEL: func.func @rows
// CHECK: memref.alloc() {{.*}} : memref<4xf32>
// CHECK-NEXT: memref.alloc() {{.*}} : memref<4x64xf32>
// CHECK-NEXT: scf.parallel (%[[I:.+]]) =
// CHECK: vector.reduction <maximumf>
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[I]]]
// CHECK: memref.load %{{.+}}[%[[I]]]
// CHECK: math.exp
// CHECK: vector.store %{{.+}}, %{{.+}}[%[[I]], %{{.+}}]
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
func.func @rows(%x: memref<4x64xf32>) -> memref<4x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %ninf = arith.constant dense<0xFF800000> : vector<32xf32>
  %max = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = scf.for %j = %c0 to %c64 step %c32 iter_args(%acc = %ninf) -> (vector<32xf32>) {
      %l = vector.load %x[%i, %j] : memref<4x64xf32>, vector<32xf32>
      %m = arith.maximumf %acc, %l : vector<32xf32>
      scf.yield %m : vector<32xf32>
    }
    %r = vector.reduction <maximumf>, %v : vector<32xf32> into f32
    memref.store %r, %max[%i] : memref<4xf32>
    scf.reduce
  }
  %e = memref.alloc() {alignment = 64 : i64} : memref<4x64xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %m = memref.load %max[%i] : memref<4xf32>
    %b = vector.broadcast %m : f32 to vector<32xf32>
    scf.for %j = %c0 to %c64 step %c32 {
      %l = vector.load %x[%i, %j] : memref<4x64xf32>, vector<32xf32>
      %s = arith.subf %l, %b : vector<32xf32>
      %x1 = math.exp %s : vector<32xf32>
      vector.store %x1, %e[%i, %j] : memref<4x64xf32>, vector<32xf32>
    }
    scf.reduce
  }
  memref.dealloc %max : memref<4xf32>
  return %e : memref<4x64xf32>
}

// -----

// The second nest reads row 0 of what the first writes (another iteration's row): the nests
// stay apart. So do nests writing a caller's buffer, which may alias another argument.
// CHECK-LABEL: func.func @other_row
// CHECK-COUNT-2: scf.parallel
func.func @other_row(%x: memref<4xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %t[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %t[%c0] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<4xf32>
  return
}

// CHECK-LABEL: func.func @argument
// CHECK-COUNT-2: scf.parallel
func.func @argument(%x: memref<4xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %y[%i] : memref<4xf32>
    memref.store %v, %x[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// Dynamic rows: each nest bounds its loop by its own `memref.dim` of the input (no cse ran
// yet); the same dim of one memref is the same bound, and the dims and the dynamic alloc
// between the nests move above the first.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: memref.alloc(%{{.+}}) {{.*}} : memref<?xf32>
// CHECK: memref.alloc(%{{.+}}) {{.*}} : memref<?x64xf32>
// CHECK: scf.parallel (%[[I:.+]]) =
// CHECK: vector.reduction <maximumf>
// CHECK: math.exp
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
func.func @dynamic_rows(%x: memref<?x64xf32>) -> memref<?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %ninf = arith.constant dense<0xFF800000> : vector<32xf32>
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %max = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = scf.for %j = %c0 to %c64 step %c32 iter_args(%acc = %ninf) -> (vector<32xf32>) {
      %l = vector.load %x[%i, %j] : memref<?x64xf32>, vector<32xf32>
      %m = arith.maximumf %acc, %l : vector<32xf32>
      scf.yield %m : vector<32xf32>
    }
    %r = vector.reduction <maximumf>, %v : vector<32xf32> into f32
    memref.store %r, %max[%i] : memref<?xf32>
    scf.reduce
  }
  %n2 = memref.dim %x, %c0 : memref<?x64xf32>
  %e = memref.alloc(%n2) {alignment = 64 : i64} : memref<?x64xf32>
  %n3 = memref.dim %x, %c0 : memref<?x64xf32>
  scf.parallel (%i) = (%c0) to (%n3) step (%c1) {
    %m = memref.load %max[%i] : memref<?xf32>
    %b = vector.broadcast %m : f32 to vector<32xf32>
    scf.for %j = %c0 to %c64 step %c32 {
      %l = vector.load %x[%i, %j] : memref<?x64xf32>, vector<32xf32>
      %s = arith.subf %l, %b : vector<32xf32>
      %x1 = math.exp %s : vector<32xf32>
      vector.store %x1, %e[%i, %j] : memref<?x64xf32>, vector<32xf32>
    }
    scf.reduce
  }
  memref.dealloc %max : memref<?xf32>
  return %e : memref<?x64xf32>
}

// -----

// Bounds that are different dims (rows of one, columns of another) do not fuse.
// CHECK-LABEL: func.func @other_dims
// CHECK: scf.parallel
// CHECK: scf.parallel
func.func @other_dims(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %a[%i] : memref<?xf32>
    scf.reduce
  }
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%m) step (%c1) {
    memref.store %zero, %a[%i] : memref<?xf32>
    scf.reduce
  }
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// Sizes made from one value: a nest bounded by the dim of a buffer alloc(%n), then one bounded
// by the dim of its view expand_shape(.., output_shape [%n, ..]) (different memrefs):
// both dims resolve to %n (sdpa's softmax buffers and scores), so the nests fuse.
// CHECK-LABEL: func.func @sizes_from_one_value
// CHECK: scf.parallel
// CHECK: memref.store
// CHECK: vector.reduction <maximumf>
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
func.func @sizes_from_one_value(%x: memref<?x64xf32>) -> memref<?x1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant dense<0xFF800000> : vector<32xf32>
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %flat = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
  %max = memref.expand_shape %flat [[0, 1]] output_shape [%n, 1] : memref<?xf32> into memref<?x1xf32>
  %n1 = memref.dim %flat, %c0 : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n1) step (%c1) {
    memref.store %zero, %max[%i, %c0] : memref<?x1xf32>
    scf.reduce
  }
  %n2 = memref.dim %max, %c0 : memref<?x1xf32>
  scf.parallel (%i) = (%c0) to (%n2) step (%c1) {
    %v = scf.for %j = %c0 to %c64 step %c32 iter_args(%acc = %ninf) -> (vector<32xf32>) {
      %l = vector.load %x[%i, %j] : memref<?x64xf32>, vector<32xf32>
      %m = arith.maximumf %acc, %l : vector<32xf32>
      scf.yield %m : vector<32xf32>
    }
    %r = vector.reduction <maximumf>, %v : vector<32xf32> into f32
    memref.store %r, %max[%i, %c0] : memref<?x1xf32>
    scf.reduce
  }
  return %max : memref<?x1xf32>
}

// -----

// A dynamic row length: cpu-vectorize-generics builds each nest's tail mask before the nest
// (lane_tail.py); the mask between two nests moves above the first with the other sizes, and
// the nests fuse.
// CHECK-LABEL: func.func @tail_masks
// CHECK: memref.alloc
// CHECK: %[[MASK:.+]] = vector.create_mask %{{.+}} : vector<16xi1>
// CHECK: %[[MASK2:.+]] = vector.create_mask %{{.+}} : vector<16xi1>
// CHECK: scf.parallel
// CHECK: vector.maskedload %{{.+}}, %[[MASK]]
// CHECK: vector.maskedstore %{{.+}}, %[[MASK2]]
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
func.func @tail_masks(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %t = memref.alloc(%rows, %n) {alignment = 64 : i64} : memref<?x?xf32>
  %mask = vector.create_mask %n : vector<16xi1>
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %l = vector.maskedload %x[%i, %c0], %mask, %zero : memref<?x?xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
    %a = arith.addf %l, %l : vector<16xf32>
    vector.maskedstore %t[%i, %c0], %mask, %a : memref<?x?xf32>, vector<16xi1>, vector<16xf32>
    scf.reduce
  }
  %rows2 = memref.dim %x, %c0 : memref<?x?xf32>
  %n2 = memref.dim %y, %c1 : memref<?x?xf32>
  %mask2 = vector.create_mask %n2 : vector<16xi1>
  scf.parallel (%i) = (%c0) to (%rows2) step (%c1) {
    %l = vector.maskedload %t[%i, %c0], %mask2, %zero : memref<?x?xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
    vector.maskedstore %y[%i, %c0], %mask2, %l : memref<?x?xf32>, vector<16xi1>, vector<16xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<?x?xf32>
  return
}

// -----

// Size arithmetic between a layer norm's statistics and its normalisation (the collapsed rows
// of the `?`-row product that reads it, `affine.apply`) moves above the first nest: the two
// nests over the same `?` rows fuse.
// CHECK-LABEL: func.func @size_math_between
// CHECK: affine.apply
// CHECK: memref.alloc
// CHECK: scf.parallel
// CHECK: memref.store
// CHECK: memref.load
// CHECK-NOT: scf.parallel
#rows = affine_map<()[s0, s1] -> (s0 * s1)>
func.func @size_math_between(%x: memref<?x?xf32>) -> (memref<?xf32>, memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c0 : memref<?x?xf32>
  %s = memref.dim %x, %c1 : memref<?x?xf32>
  %t = memref.alloc(%b, %s) {alignment = 64 : i64} : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%b, %s) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %t[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  %m = affine.apply #rows()[%b, %s]
  %flat = memref.alloc(%m) {alignment = 64 : i64} : memref<?xf32>
  %y = memref.alloc(%b, %s) {alignment = 64 : i64} : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%b, %s) step (%c1, %c1) {
    %v = memref.load %t[%i, %j] : memref<?x?xf32>
    memref.store %v, %y[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<?x?xf32>
  return %flat, %y : memref<?xf32>, memref<?x?xf32>
}
