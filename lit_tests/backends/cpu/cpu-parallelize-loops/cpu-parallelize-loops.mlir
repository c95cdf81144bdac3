// RUN: aten-opt %s -p 'cpu-parallelize-loops{min-work=1000}' --split-input-file | FileCheck %s

// An scf.parallel fill: the loop moves into a function of [begin, end) over its outer dim; the
// buffer crosses as its descriptor in the context struct, the constant is cloned.
// CHECK: func.func private @aten_mlir_parallel_for((!llvm.ptr, index, index) -> (), !llvm.ptr, index)
// CHECK-LABEL: func.func @fill
// CHECK: %[[CTX:.+]] = llvm.alloca {{.*}} x !llvm.struct<(struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>)>
// CHECK: %[[D:.+]] = builtin.unrealized_conversion_cast %{{.+}} : memref<64x256xf32> to !llvm.struct
// CHECK: llvm.store %[[D]]
// CHECK: %[[N:.+]] = arith.constant 64 : index
// CHECK: %[[F:.+]] = constant @fill_parallel0
// CHECK: call @aten_mlir_parallel_for(%[[F]], %[[CTX]], %[[N]])
// CHECK-NOT: scf.parallel
// CHECK: return
// CHECK-LABEL: func.func private @fill_parallel0(
// CHECK-SAME: %[[P:.+]]: !llvm.ptr, %[[BEGIN:.+]]: index, %[[END:.+]]: index)
// CHECK: arith.constant 0.0
// CHECK: %[[M:.+]] = builtin.unrealized_conversion_cast {{.*}} to memref<64x256xf32>
// CHECK: %[[LO:.+]] = arith.addi %{{.+}}, %{{.+}} : index
// CHECK: %[[HI:.+]] = arith.minsi
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) = (%[[LO]], %{{.+}}) to (%[[HI]], %{{.+}})
// CHECK: memref.store %{{.+}}, %[[M]]
func.func @fill() -> memref<64x256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64x256xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c256) step (%c1, %c1) {
    memref.store %zero, %a[%i, %j] : memref<64x256xf32>
    scf.reduce
  }
  return %a : memref<64x256xf32>
}

// -----

// Too few trips of the outer dim to share: the two leading dims are flattened, and each share
// picks its (i, j) from the flat index.
// CHECK-LABEL: func.func @rows
// CHECK: %[[N:.+]] = arith.constant 64 : index
// CHECK: call @aten_mlir_parallel_for(%{{.+}}, %{{.+}}, %[[N]])
// CHECK-LABEL: func.func private @rows_parallel0
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step
// CHECK: arith.remui %[[K]]
// CHECK: arith.divui %[[K]]
// CHECK: scf.parallel
func.func @rows(%x: memref<4x16x512xf32>, %y: memref<4x16x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c4, %c16, %c512) step (%c1, %c1, %c1) {
    %v = memref.load %x[%i, %j, %k] : memref<4x16x512xf32>
    memref.store %v, %y[%i, %j, %k] : memref<4x16x512xf32>
    scf.reduce
  }
  return
}

// -----

// A blocked loop whose iterations write disjoint row blocks of C (a tile loop that covers whole
// steps of 8 rows in each block of 64) is outlined; the loop over k blocks inside it stays.
// CHECK-LABEL: func.func @row_blocks
// CHECK: %[[N:.+]] = arith.constant 2 : index
// CHECK: call @aten_mlir_parallel_for(%{{.+}}, %{{.+}}, %[[N]])
// CHECK-LABEL: func.func private @row_blocks_parallel0
// CHECK: scf.for
func.func @row_blocks(%a: memref<128x64xf32>) -> memref<128x64xf32> {
  %c = memref.alloc() : memref<128x64xf32>
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c1 = arith.constant 1 : index
  scf.for %b = %c0 to %c128 step %c64 {
    scf.for %k = %c0 to %c64 step %c8 {
      %lo = arith.maxsi %b, %c0 : index
      %e = arith.addi %b, %c64 : index
      %hi = arith.minsi %e, %c128 : index
      scf.for %i = %lo to %hi step %c8 {
        %i7 = arith.addi %i, %c8 : index
        %last = arith.subi %i7, %c1 : index
        %v = vector.load %a[%last, %k] : memref<128x64xf32>, vector<8xf32>
        %w = vector.load %c[%i, %k] : memref<128x64xf32>, vector<8xf32>
        %s = arith.addf %v, %w : vector<8xf32>
        vector.store %s, %c[%last, %k] : memref<128x64xf32>, vector<8xf32>
      }
    }
  }
  return %c : memref<128x64xf32>
}

// -----

// Every iteration writes one scratch buffer (a packed copy of B): not independent, so the loop
// stays; so does a loop too small to pay for the workers.
// CHECK-LABEL: func.func @scratch
// CHECK-NOT: aten_mlir_parallel_for
// CHECK: scf.for
// CHECK-LABEL: func.func @small
// CHECK-NOT: aten_mlir_parallel_for
// CHECK: scf.parallel
func.func @scratch(%x: memref<64x64xf32>) -> memref<64x64xf32> {
  %y = memref.alloc() : memref<64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %j] : memref<64x64xf32>
      memref.store %v, %t[%j] : memref<64xf32>
    }
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %t[%j] : memref<64xf32>
      memref.store %v, %y[%i, %j] : memref<64x64xf32>
    }
  }
  memref.dealloc %t : memref<64xf32>
  return %y : memref<64x64xf32>
}
func.func @small(%y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %zero, %y[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// One trip of the outer loop (64 rows in one block of 64): the loop over column blocks inside it
// is the one shared.
// CHECK-LABEL: func.func @one_block
// CHECK: scf.for
// CHECK: %[[N:.+]] = arith.constant 16 : index
// CHECK: call @aten_mlir_parallel_for(%{{.+}}, %{{.+}}, %[[N]])
func.func @one_block(%a: memref<64x2048xf32>) -> memref<64x2048xf32> {
  %c = memref.alloc() : memref<64x2048xf32>
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  scf.for %b = %c0 to %c64 step %c64 {
    scf.for %n = %c0 to %c2048 step %c128 {
      scf.for %i = %c0 to %c64 step %c16 {
        scf.for %j = %c0 to %c128 step %c16 {
          %col = arith.addi %n, %j : index
          %v = vector.load %a[%i, %col] : memref<64x2048xf32>, vector<16xf32>
          vector.store %v, %c[%i, %col] : memref<64x2048xf32>, vector<16xf32>
        }
      }
    }
  }
  return %c : memref<64x2048xf32>
}

// -----

// Dynamic batch and rows: both leading dims are flattened (a batch of 1 still shares its rows);
// the share count is their trips' product at run time, and each share splits its flat index
// by the second dim's runtime trips.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[B:.+]] = arith.ceildivsi
// CHECK: %[[S:.+]] = arith.ceildivsi
// CHECK: %[[N:.+]] = arith.muli %[[B]], %[[S]] : index
// CHECK: call @aten_mlir_parallel_for(%{{.+}}, %{{.+}}, %[[N]])
// CHECK-LABEL: func.func private @dynamic_rows_parallel0
// CHECK: arith.ceildivsi
// CHECK: %[[T:.+]] = arith.ceildivsi
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step
// CHECK: arith.remui %[[K]], %[[T]]
// CHECK: arith.divui %[[K]], %[[T]]
// CHECK: scf.parallel
func.func @dynamic_rows(%x: memref<?x?x512xf32>, %y: memref<?x?x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %b = memref.dim %x, %c0 : memref<?x?x512xf32>
  %s = memref.dim %x, %c1 : memref<?x?x512xf32>
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%b, %s, %c512) step (%c1, %c1, %c1) {
    %v = memref.load %x[%i, %j, %k] : memref<?x?x512xf32>
    memref.store %v, %y[%i, %j, %k] : memref<?x?x512xf32>
    scf.reduce
  }
  return
}

// -----

// A flat vector loop over a dynamic number of elements: too little work at DYNAMIC_TRIPS, but
// maybe plenty at run time; it is outlined, and the call decides: the pool when there are
// enough shares for min-work, else the outlined loop called on this thread over all of them.
// CHECK-LABEL: func.func @flat_dynamic
// CHECK: %[[N:.+]] = arith.ceildivsi
// CHECK: %[[BIG:.+]] = arith.cmpi uge, %[[N]], %{{.+}} : index
// CHECK: scf.if %[[BIG]] {
// CHECK: call @aten_mlir_parallel_for(%{{.+}}, %{{.+}}, %[[N]])
// CHECK: } else {
// CHECK: call @flat_dynamic_parallel0(%{{.+}}, %{{.+}}, %[[N]])
func.func @flat_dynamic(%x: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %y = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c32 {
    %v = vector.load %x[%i] : memref<?xf32>, vector<32xf32>
    vector.store %v, %y[%i] : memref<?xf32>, vector<32xf32>
  }
  return %y : memref<?xf32>
}

// -----

// Index vectors read from the function: LLVM has no index type (a `vector<16xindex>` field made
// mlir-translate assert). The broadcast of the `?` width is rebuilt inside from the width,
// which crosses once as i64; other index vectors cross as vectors of i64.
// CHECK-LABEL: func.func @index_vectors
// CHECK: llvm.alloca {{.*}} x !llvm.struct<(i64, vector<16xi64>, struct<
// CHECK: arith.index_cast %{{.+}} : vector<16xindex> to vector<16xi64>
// CHECK-LABEL: func.func private @index_vectors_parallel0
// CHECK: %[[W:.+]] = arith.index_cast %{{.+}} : i64 to index
// CHECK: %[[U:.+]] = arith.index_cast %{{.+}} : vector<16xi64> to vector<16xindex>
// CHECK: %[[S:.+]] = vector.broadcast %[[W]] : index to vector<16xindex>
// CHECK: scf.parallel
// CHECK: %[[B:.+]] = arith.addi %{{.+}}, %[[S]] : vector<16xindex>
// CHECK: arith.addi %[[B]], %[[U]] : vector<16xindex>
func.func @index_vectors(%x: memref<64x?xindex>, %w: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %s = vector.broadcast %w : index to vector<16xindex>
  %t = vector.step : vector<16xindex>
  %u = arith.muli %t, %s : vector<16xindex>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %j = %c0 to %w step %c16 {
      %a = vector.broadcast %j : index to vector<16xindex>
      %b = arith.addi %a, %s : vector<16xindex>
      %c = arith.addi %b, %u : vector<16xindex>
      vector.store %c, %x[%i, %j] : memref<64x?xindex>, vector<16xindex>
    }
    scf.reduce
  }
  return
}
