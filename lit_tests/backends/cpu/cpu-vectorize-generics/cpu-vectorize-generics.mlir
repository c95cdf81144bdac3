// RUN: aten-opt %s -p 'cpu-vectorize-generics{lanes=16 reduction-lanes=32},canonicalize' --split-input-file | FileCheck %s

// Options pinned: 16 lanes per elementwise step, 32 per reduction step.

// A row sum accumulated in f64 (softmax's denominator): a vector accumulator carried by the
// lane loop, the 100 % 32 = 4 leftover elements in one masked step whose dead lanes add the
// neutral -0.0, one reassociated horizontal reduction into the output per row.
// CHECK-LABEL: func.func @row_sum
// CHECK-DAG: %[[NEUTRAL:.+]] = arith.constant dense<-0.000000e+00> : vector<32xf64>
// CHECK: scf.parallel (%[[ROW:.+]]) =
// CHECK: %[[ACC:.+]] = scf.for %[[I:.+]] = %{{.+}} to %c96 step %c32 iter_args(%[[A:.+]] = %[[NEUTRAL]]) -> (vector<32xf64>)
// CHECK-NEXT: %[[X:.+]] = vector.load %arg0[%[[ROW]], %[[I]]] : memref<8x100xf32>, vector<32xf32>
// CHECK-NEXT: %[[E:.+]] = arith.extf %[[X]] : vector<32xf32> to vector<32xf64>
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[A]], %[[E]] : vector<32xf64>
// CHECK-NEXT: scf.yield %[[S]]
// CHECK: %[[MASK:.+]] = vector.constant_mask [4] : vector<32xi1>
// CHECK: %[[T:.+]] = vector.maskedload %arg0[%[[ROW]], %c96], %[[MASK]]
// CHECK: %[[TE:.+]] = arith.extf %[[T]]
// CHECK: %[[LIVE:.+]] = arith.select %[[MASK]], %[[TE]], %[[NEUTRAL]]
// CHECK: %[[ALL:.+]] = arith.addf %[[ACC]], %[[LIVE]] : vector<32xf64>
// CHECK: %[[OLD:.+]] = memref.load %arg1[%[[ROW]]]
// CHECK: %[[TOTAL:.+]] = vector.reduction <add>, %[[ALL]], %[[OLD]] fastmath<reassoc> : vector<32xf64> into f64
// CHECK: memref.store %[[TOTAL]], %arg1[%[[ROW]]]
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%x: memref<8x100xf32>, %out: memref<8xf64>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x100xf32>) outs(%out : memref<8xf64>) {
  ^bb0(%in: f32, %acc: f64):
    %e = arith.extf %in : f32 to f64
    %s = arith.addf %acc, %e : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Layer norm's normalization: rsqrt(var / n + eps) depends on the row only, so it is computed
// once per row as a scalar and broadcast; the weight (indexed by the lane dim) is a vector load.
// CHECK-LABEL: func.func @normalize
// CHECK: scf.parallel (%[[R:.+]]) =
// CHECK: %[[MEAN:.+]] = memref.load %arg1[%[[R]]]
// CHECK: %[[VAR:.+]] = memref.load %arg2[%[[R]]]
// CHECK: %[[SQRT:.+]] = math.sqrt %{{.+}} : f32
// CHECK: %[[INV:.+]] = arith.divf %{{.+}}, %[[SQRT]] : f32
// CHECK-DAG: %[[VMEAN:.+]] = vector.broadcast %[[MEAN]] : f32 to vector<16xf32>
// CHECK-DAG: %[[VINV:.+]] = vector.broadcast %[[INV]] : f32 to vector<16xf32>
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %c64 step %c16 {
// CHECK-NEXT: %[[X:.+]] = vector.load %arg0[%[[R]], %[[I]]]
// CHECK-NEXT: %[[W:.+]] = vector.load %arg3[%[[I]]]
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[X]], %[[VMEAN]] : vector<16xf32>
// CHECK-NEXT: %[[N:.+]] = arith.mulf %[[D]], %[[VINV]] : vector<16xf32>
// CHECK-NEXT: %[[Y:.+]] = arith.mulf %[[N]], %[[W]] : vector<16xf32>
// CHECK-NEXT: vector.store %[[Y]], %arg4[%[[R]], %[[I]]]
// CHECK-NOT: vector.maskedload
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @normalize(%x: memref<4x64xf32>, %mean: memref<4xf32>, %var: memref<4xf32>,
                     %w: memref<64xf32>, %out: memref<4x64xf32>) {
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#id, #row, #row, #col, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %var, %w : memref<4x64xf32>, memref<4xf32>, memref<4xf32>, memref<64xf32>)
      outs(%out : memref<4x64xf32>) {
  ^bb0(%xi: f32, %m: f32, %v: f32, %wi: f32, %o: f32):
    %vn = arith.divf %v, %n : f32
    %ve = arith.addf %vn, %eps : f32
    %sq = math.sqrt %ve : f32
    %inv = arith.divf %one, %sq : f32
    %d = arith.subf %xi, %m : f32
    %nm = arith.mulf %d, %inv : f32
    %y = arith.mulf %nm, %wi : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// Sum over the leading dim: the contiguous dim is parallel, so it is the lane dim and the
// reduction dim an outer loop; the output row is read and written as vectors (summation order
// per element unchanged).
// CHECK-LABEL: func.func @column_sum
// CHECK: scf.for %[[K:.+]] = %c0 to %c10 step %c1 {
// CHECK: scf.for %[[J:.+]] = %c0 to %c48 step %c16 {
// CHECK-NEXT: %[[X:.+]] = vector.load %arg0[%[[K]], %[[J]]] : memref<10x48xf32>, vector<16xf32>
// CHECK-NEXT: %[[O:.+]] = vector.load %arg1[%[[J]]] : memref<48xf32>, vector<16xf32>
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[O]], %[[X]] : vector<16xf32>
// CHECK-NEXT: vector.store %[[S]], %arg1[%[[J]]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @column_sum(%x: memref<10x48xf32>, %out: memref<48xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<10x48xf32>) outs(%out : memref<48xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Trailing dims every operand reads contiguously fold into one lane dim (NCHW, 7x7 images:
// steps along 49 elements, not rows of 7); the per-channel scale is a scalar per image.
// CHECK-LABEL: func.func @nchw_scale
// CHECK-DAG: %[[X:.+]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : memref<2x3x7x7xf32> into memref<2x3x49xf32>
// CHECK-DAG: %[[O:.+]] = memref.collapse_shape %arg2 {{\[}}[0], [1], [2, 3]] : memref<2x3x7x7xf32> into memref<2x3x49xf32>
// CHECK: scf.parallel (%[[N:.+]], %[[C:.+]]) =
// CHECK: memref.load %arg1[%[[C]]]
// CHECK: scf.for %{{.+}} = %c0 to %c48 step %c16
// CHECK: vector.constant_mask [1] : vector<16xi1>
// CHECK: vector.maskedstore %[[O]][%[[N]], %[[C]], %c48]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @nchw_scale(%x: memref<2x3x7x7xf32>, %s: memref<3xf32>, %out: memref<2x3x7x7xf32>) {
  linalg.generic {indexing_maps = [#id, #ch, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : memref<2x3x7x7xf32>, memref<3xf32>) outs(%out : memref<2x3x7x7xf32>) {
  ^bb0(%xi: f32, %si: f32, %o: f32):
    %y = arith.mulf %xi, %si : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// Dynamic sizes: the lane loop stops at the last whole step; the rest runs as halving unmasked
// steps (here one of 16 when n & 16) and one masked 16-lane step (lane_tail.py). Every bound,
// condition and the mask are computed once, before the row loop; the row's reads happen only
// for rows with elements.
// CHECK-LABEL: func.func @dynamic_max
// CHECK: %[[N:.+]] = memref.dim %arg0, %c1
// CHECK: %[[NONEMPTY:.+]] = arith.cmpi ugt, %[[N]], %c0
// CHECK: %[[REM:.+]] = arith.remui %[[N]], %c32
// CHECK: %[[MAIN:.+]] = arith.subi %[[N]], %[[REM]]
// CHECK: %[[BIT:.+]] = arith.andi %[[N]], %c16
// CHECK: %[[HALF:.+]] = arith.cmpi ne, %[[BIT]], %c0
// CHECK: %[[LAST:.+]] = arith.addi %[[MAIN]], %[[BIT]]
// CHECK: %[[LEFT:.+]] = arith.subi %[[N]], %[[LAST]]
// CHECK: %[[MASK:.+]] = vector.create_mask %[[LEFT]] : vector<16xi1>
// CHECK: %[[PARTIAL:.+]] = arith.cmpi ugt, %[[LEFT]], %c0
// Each narrower step has its own slice of the 32 lanes (16-lane step the first half, the
// masked step the second). When the main loop ran, each combines into its slice of the loop's
// lanes; when it did not, each starts from -inf, so the combine folds away.
// CHECK: %[[MAINRUNS:.+]] = arith.cmpi ugt, %[[MAIN]], %c0
// CHECK: scf.parallel
// CHECK-NEXT: scf.if %[[NONEMPTY]]
// CHECK: %[[ACC:.+]] = scf.for %{{.+}} = %c0 to %[[MAIN]] step %c32 iter_args
// CHECK: arith.maximumf {{.+}} : vector<32xf32>
// CHECK: scf.if %[[MAINRUNS]] -> (vector<32xf32>)
// CHECK-NEXT: %[[WITHHALF:.+]] = scf.if %[[HALF]] -> (vector<32xf32>)
// CHECK-NEXT: %[[LOW:.+]] = vector.extract_strided_slice %[[ACC]] {offsets = [0], sizes = [16]
// CHECK-NEXT: vector.load %arg0[%{{.+}}, %[[MAIN]]] : memref<?x?xf32>, vector<16xf32>
// CHECK-NEXT: %[[MAX:.+]] = arith.maximumf %[[LOW]], %{{.+}} : vector<16xf32>
// CHECK-NEXT: vector.insert_strided_slice %[[MAX]], %[[ACC]] {offsets = [0]
// CHECK: scf.if %[[PARTIAL]] -> (vector<32xf32>)
// CHECK-NEXT: vector.extract_strided_slice %[[WITHHALF]] {offsets = [16], sizes = [16]
// The masked step reads its elements as unmasked pieces (8, 4, 2, 1 lanes: lane-tail-stores.mlir);
// the mask then picks the live lanes for the max.
// CHECK-NEXT: scf.if %{{.+}} -> (vector<2xf32>)
// CHECK-NOT: vector.maskedload
// CHECK: vector.load %arg0[%{{.+}}, %[[LAST]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: arith.select %[[MASK]], %{{.+}} : vector<16xi1>, vector<16xf32>
// CHECK: } else {
// CHECK: %[[FIRST:.+]] = scf.if %[[HALF]] -> (vector<16xf32>)
// CHECK-NEXT: %[[LOADED:.+]] = vector.load %arg0[%{{.+}}, %[[MAIN]]] : memref<?x?xf32>, vector<16xf32>
// CHECK-NEXT: scf.yield %[[LOADED]]
// CHECK: vector.insert_strided_slice %[[FIRST]], %{{.+}} {offsets = [0]
// The lanes' max as i32 keys ordered as the floats (NaN checked apart): float_extrema.py
// CHECK: vector.reduction <maxsi>
// CHECK: arith.cmpf uno
// CHECK: vector.reduction <or>
// CHECK: arith.maximumf {{.+}} : f32
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @dynamic_max(%x: memref<?x?xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Half-precision lanes are reduced in f32 (exact for max; LLVM's x86 backend cannot legalize
// `vector.reduce.fmaximum` of <64 x bfloat>).
// CHECK-LABEL: func.func @bf16_max
// CHECK: %[[ACC:.+]] = scf.for {{.+}} -> (vector<32xbf16>)
// CHECK: %[[WIDE:.+]] = arith.extf %[[ACC]] : vector<32xbf16> to vector<32xf32>
// CHECK: %[[OLD:.+]] = arith.extf %{{.+}} : bf16 to f32
// CHECK: %[[KEYS:.+]] = arith.bitcast %[[WIDE]] : vector<32xf32> to vector<32xi32>
// CHECK: vector.reduction <maxsi>
// CHECK: %[[MAX:.+]] = arith.maximumf %[[OLD]], %{{.+}} : f32
// CHECK: arith.truncf %[[MAX]] : f32 to bf16
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @bf16_max(%x: memref<4x128xbf16>, %out: memref<4xbf16>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x128xbf16>) outs(%out : memref<4xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %m = arith.maximumf %acc, %in : bf16
    linalg.yield %m : bf16
  }
  return
}

// -----

// A row shorter than a step uses the power of two that covers it: one masked step of 8.
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: scf.for
// CHECK: %[[MASK:.+]] = vector.constant_mask [6] : vector<8xi1>
// CHECK: vector.maskedload %arg0[%{{.+}}, %c0], %[[MASK]]
// CHECK: vector.reduction <add>, {{.+}} : vector<8xf32> into f32
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @short_rows(%x: memref<3x6xf32>, %out: memref<3xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x6xf32>) outs(%out : memref<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Loads in the body: a row picked by a per-row index (an embedding) is read as vectors at the
// lane index; a load at per-row indices is hoisted with the other per-row values.
// CHECK-LABEL: func.func @embedding
// CHECK: scf.parallel (%[[R:.+]]) =
// CHECK: %[[ID:.+]] = memref.load %arg0[%[[R]]] : memref<8xi64>
// CHECK: %[[ROW:.+]] = arith.index_cast %[[ID]] : i64 to index
// CHECK: %[[S:.+]] = memref.load %arg2[%[[ROW]]] : memref<50xf32>
// CHECK: %[[VS:.+]] = vector.broadcast %[[S]]
// CHECK: scf.for %[[I:.+]] = %c0 to %c64 step %c16 {
// CHECK-NEXT: %[[E:.+]] = vector.load %arg1[%[[ROW]], %[[I]]] : memref<50x64xf32>, vector<16xf32>
// CHECK-NEXT: %[[Y:.+]] = arith.mulf %[[E]], %[[VS]] : vector<16xf32>
// CHECK-NEXT: vector.store %[[Y]], %arg3[%[[R]], %[[I]]]
#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @embedding(%ids: memref<8xi64>, %table: memref<50x64xf32>, %scale: memref<50xf32>,
                     %out: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ids : memref<8xi64>) outs(%out : memref<8x64xf32>) {
  ^bb0(%i: i64, %o: f32):
    %col = linalg.index 1 : index
    %row = arith.index_cast %i : i64 to index
    %e = memref.load %table[%row, %col] : memref<50x64xf32>
    %s = memref.load %scale[%row] : memref<50xf32>
    %y = arith.mulf %e, %s : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// Left alone: a gather (the lanes' column comes from a lane-wise index), and a load from the
// buffer the op writes.
// CHECK-LABEL: func.func @loads_left_alone
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: vector.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @loads_left_alone(%ids: memref<8x64xi64>, %table: memref<8x100xf32>,
                            %out: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ids : memref<8x64xi64>) outs(%out : memref<8x64xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = linalg.index 0 : index
    %c = arith.index_cast %i : i64 to index
    %e = memref.load %table[%r, %c] : memref<8x100xf32>
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ids : memref<8x64xi64>) outs(%out : memref<8x64xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = linalg.index 0 : index
    %c = linalg.index 1 : index
    %e = memref.load %out[%r, %c] : memref<8x64xf32>
    %d = arith.addf %e, %e : f32
    linalg.yield %d : f32
  }
  return
}

// -----

// Integer division in a masked step divides dead lanes by 1, not by the masked load's zeros.
// CHECK-LABEL: func.func @int_div
// CHECK-DAG: %[[ONE:.+]] = arith.constant dense<1> : vector<16xi32>
// CHECK: %[[MASK:.+]] = vector.constant_mask [4] : vector<16xi1>
// CHECK: %[[B:.+]] = vector.maskedload %arg1[%c16], %[[MASK]]
// CHECK: %[[SAFE:.+]] = arith.select %[[MASK]], %[[B]], %[[ONE]]
// CHECK: arith.divsi %{{.+}}, %[[SAFE]] : vector<16xi32>
#id = affine_map<(d0) -> (d0)>
func.func @int_div(%a: memref<20xi32>, %b: memref<20xi32>, %out: memref<20xi32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<20xi32>, memref<20xi32>) outs(%out : memref<20xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %q = arith.divsi %x, %y : i32
    linalg.yield %q : i32
  }
  return
}

// -----

// Ops that become libm calls (f64 erf here) are applied per lane: `convert-math-to-libm`
// unrolls vectors only after `convert-vector-to-llvm` ran.
// CHECK-LABEL: func.func @erf_f64
// CHECK: scf.for
// CHECK: %[[V:.+]] = vector.load
// CHECK: %[[L0:.+]] = vector.extract %[[V]][0] : f64 from vector<16xf64>
// CHECK-NEXT: math.erf %[[L0]] : f64
// CHECK: vector.from_elements {{.+}} : vector<16xf64>
#id = affine_map<(d0) -> (d0)>
func.func @erf_f64(%a: memref<32xf64>, %out: memref<32xf64>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<32xf64>) outs(%out : memref<32xf64>) {
  ^bb0(%x: f64, %o: f64):
    %e = math.erf %x : f64
    linalg.yield %e : f64
  }
  return
}

// -----

// Left for convert-linalg-to-parallel-loops: a contraction (out + a * b over a reduction dim),
// an argmax-like body (the output is not combined by one associative op), i1 elements (LLVM
// packs <N x i1> into bits), a transposed read (no dim is contiguous for every operand), and a
// row shorter than MIN_LANE_EXTENT.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: vector.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>,
                      %x: memref<4x8xf32>, %v: memref<4xf32>, %i: memref<4xi64>,
                      %m: memref<4x8xi1>, %mo: memref<4x8xi1>, %t: memref<8x4xf32>,
                      %short: memref<4x3xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%v, %i : memref<4xf32>, memref<4xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %nb = arith.select %gt, %in, %best : f32
    %na = arith.select %gt, %j64, %at : i64
    linalg.yield %nb, %na : f32, i64
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : memref<4x8xi1>) outs(%mo : memref<4x8xi1>) {
  ^bb0(%in: i1, %o: i1):
    %true = arith.constant true
    %n = arith.xori %in, %true : i1
    linalg.yield %n : i1
  }
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<8x4xf32>) outs(%x : memref<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%short : memref<4x3xf32>) outs(%v : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}
