// RUN: aten-opt %s -p "cpu-vectorize-contractions{cpu=sapphirerapids},canonicalize,cse" --split-input-file | FileCheck %s
// RUN: aten-opt %s -p "cpu-vectorize-contractions{cpu=skylake-avx512},canonicalize,cse" --split-input-file | FileCheck %s --check-prefix=FMA

// bf16 `a @ b` on AMX: A (whole 32 x 32 blocks, contiguous along k) is the row operand read in
// place; B is copied to blocked VNNI tiles, two rows of k interleaved 16 columns at a time; the
// (column panel, 32 rows) pairs are an scf.parallel (the thread pool shares them out; one
// panel here, canonicalized away); C's
// 2 x 2 tiles load from C, go through the k tiles in registers and store back to C.
// CHECK-LABEL: func.func @mm
// CHECK: %[[VNNI:.+]] = memref.alloc() : memref<4x2x16x32xbf16>
// CHECK: vector.interleave {{.*}} : vector<16xbf16> -> vector<32xbf16>
// CHECK: vector.store {{.*}}, %[[VNNI]]
// CHECK: scf.parallel (%[[R:.+]]) = (%c0) to (%c64) step (%c32)
// CHECK: scf.for %{{.+}} = %c0 to %c64 step %c32
// CHECK-COUNT-4: amx.tile_load %arg2
// CHECK: scf.for {{.*}} -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK-NEXT: amx.tile_load %arg0[%[[R]]
// CHECK-NEXT: amx.tile_load %arg0
// CHECK: amx.tile_load %[[VNNI]]
// CHECK: amx.tile_load %[[VNNI]]
// CHECK-COUNT-4: amx.tile_mulf
// CHECK: scf.yield
// CHECK-COUNT-4: amx.tile_store %arg2
// CHECK: scf.reduce
// CHECK: memref.dealloc %[[VNNI]]
// CHECK-NOT: linalg.matmul
// FMA-LABEL: func.func @mm
// FMA-NOT: amx.
// FMA: vector.fma
func.func @mm(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// C zero-filled right before the product (a bf16 mm's f32 accumulator): the result tiles start
// as tile_zero instead of loads from C, and the fill is dropped (the tiles write all of C).
// CHECK-LABEL: func.func @mm_zero
// CHECK: %[[C:.+]] = memref.alloc() : memref<64x64xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel
// CHECK-NOT: amx.tile_load %[[C]]
// CHECK-COUNT-4: amx.tile_zero
// CHECK: scf.for
// CHECK-COUNT-4: amx.tile_mulf
// CHECK: scf.yield
// CHECK-COUNT-4: amx.tile_store %[[C]]
// FMA-LABEL: func.func @mm_zero
// FMA-NOT: amx.
// FMA: vector.fma
func.func @mm_zero(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>) -> memref<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  return %c : memref<64x64xf32>
}

// -----

// C zero-filled, then only rounded to a fresh bf16 D (a bf16 mm): the kernel writes D, each
// block's tiles through a 4-tile scratch, rounded 16 lanes at a time; the fill, the rounding
// generic and (after canonicalize) C itself are gone. 64 x 64 is whole blocks of 32: the rows
// are stored unmasked.
// CHECK-LABEL: func.func @mm_rounded
// CHECK: %[[D:.+]] = memref.alloc() : memref<64x64xbf16>
// CHECK-NOT: xf32>
// CHECK: scf.parallel
// CHECK: %[[SCRATCH:.+]] = memref.alloc() : memref<4x16x16xf32>
// CHECK-COUNT-4: amx.tile_zero
// CHECK: amx.tile_mulf
// CHECK: amx.tile_store %[[SCRATCH]]
// CHECK: vector.load %[[SCRATCH]]
// CHECK: arith.truncf %{{.+}} : vector<16xf32> to vector<16xbf16>
// CHECK: vector.store %{{.+}}, %[[D]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
// FMA-LABEL: func.func @mm_rounded
// FMA-NOT: amx.
// FMA: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mm_rounded(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>) -> memref<64x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  %d = memref.alloc() : memref<64x64xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<64x64xf32>) outs(%d : memref<64x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %c : memref<64x64xf32>
  return %d : memref<64x64xbf16>
}

// -----

// A Linear with `?` rows: the weight (contiguous along k, the bigger operand) is the row
// operand, read in place; the `?` rows of x are copied zero-padded to VNNI tiles (16 rows of
// 32 k a step, masked past the rows and k, as 16 x 16 pairs of k transposed); each block's
// result tiles (C transposed, starting as tile_zero) go through a 4-tile scratch and are added
// into C 16 columns at a time, each tile transposed in registers (canonicalize turns the transpose into
// to_elements / from_elements), masked past C's extents.
// (Up to 8 rows run first on another kernel, `narrow_dot`: the checks start at the AMX copy.)
// CHECK-LABEL: func.func @linear
// CHECK: %[[M:.+]] = memref.dim %arg0, %c0 : memref<?x96xbf16>
// CHECK: %[[VNNI:.+]] = memref.alloc(%{{.+}}) : memref<?x3x16x32xbf16>
// CHECK: linalg.fill ins(%{{.+}} : bf16) outs(%[[VNNI]]
// CHECK: scf.for %{{.+}} = %c0 to %[[M]] step %c16
// CHECK: vector.create_mask
// CHECK: vector.maskedload %arg0
// CHECK: vector.store %{{.+}}, %[[VNNI]]
// CHECK: scf.parallel
// CHECK: %[[SCRATCH:.+]] = memref.alloc() : memref<4x16x16xf32>
// CHECK: amx.tile_zero
// CHECK: amx.tile_load %arg1
// CHECK: amx.tile_load %[[VNNI]]
// CHECK: amx.tile_mulf
// CHECK: amx.tile_store %[[SCRATCH]]
// CHECK: vector.load %[[SCRATCH]]
// CHECK: vector.create_mask
// CHECK: vector.maskedload %arg2
// CHECK: vector.maskedstore %arg2
// CHECK: memref.dealloc %[[SCRATCH]]
// CHECK: scf.reduce
// FMA-LABEL: func.func @linear
// FMA-NOT: amx.
// FMA: vector.fma
#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @linear(%x: memref<?x96xbf16>, %w: memref<160x96xbf16>, %y: memref<?x160xf32>) {
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x96xbf16>, memref<160x96xbf16>) outs(%y : memref<?x160xf32>) {
  ^bb0(%p: bf16, %q: bf16, %acc: f32):
    %0 = arith.extf %p : bf16 to f32
    %1 = arith.extf %q : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
