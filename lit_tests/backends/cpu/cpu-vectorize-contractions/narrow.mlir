// RUN: aten-opt %s -p 'cpu-vectorize-contractions{cpu=skylake-avx512},canonicalize,cse' --split-input-file | FileCheck %s

// skylake-avx512: AVX-512 without AVX512-BF16 or AMX, so the bf16 products below run the f32 FMA
// kernels (narrow_dot.mlir and amx.mlir check the others).

// bf16 inputs, f32 accumulator (a linear layer as our lowering emits it): narrow vectors loaded
// and widened, fmas and C in f32. A few rows (8: decode) are one 8 x 2 register block, so the
// weight is streamed once, and A is widened once into an f32 copy rather than at every block.
// CHECK-LABEL: func.func @bf16_weight
// CHECK: %[[WIDE:.+]] = memref.alloc() : memref<8x64xf32>
// CHECK: vector.maskedload %arg0{{.*}} : memref<8x64xbf16>, vector<16xi1>, vector<16xbf16>
// CHECK-NEXT: arith.extf {{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK-NEXT: vector.maskedstore %[[WIDE]]
// CHECK: scf.for {{.*}} step %c16 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-8: vector.load %[[WIDE]]
// CHECK: vector.load %arg1{{.*}} : memref<12x64xbf16>, vector<16xbf16>
// CHECK-NEXT: arith.extf {{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK: vector.extract_strided_slice {{.*}} : vector<16xf32> to vector<2xf32>
// CHECK: memref.dealloc %[[WIDE]]
// CHECK-NOT: linalg.generic
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @bf16_weight(%x: memref<8x64xbf16>, %w: memref<12x64xbf16>, %y: memref<8x12xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x64xbf16>, memref<12x64xbf16>) outs(%y : memref<8x12xf32>) {
  ^bb0(%p: bf16, %q: bf16, %acc: f32):
    %a = arith.extf %p : bf16 to f32
    %b = arith.extf %q : bf16 to f32
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// The named mixed-type matmul: scalars of A loaded and widened, B's lanes loaded as f16.
// CHECK-LABEL: func.func @f16_matmul
// CHECK: vector.load %arg1{{.*}} : memref<64x32xf16>, vector<16xf16>
// CHECK: memref.load %arg0{{.*}} : memref<16x64xf16>
// CHECK-NEXT: arith.extf {{.*}} : f16 to f32
// CHECK: vector.fma
// CHECK-NOT: linalg.matmul
func.func @f16_matmul(%a: memref<16x64xf16>, %b: memref<64x32xf16>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x64xf16>, memref<64x32xf16>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// All bf16: C widened when loaded, rounded to bf16 when stored.
// CHECK-LABEL: func.func @all_bf16
// CHECK: vector.load %arg2{{.*}} : memref<16x32xbf16>, vector<16xbf16>
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK: arith.truncf {{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK: vector.store
func.func @all_bf16(%a: memref<16x64xbf16>, %b: memref<64x32xbf16>, %c: memref<16x32xbf16>) {
  linalg.matmul ins(%a, %b : memref<16x64xbf16>, memref<64x32xbf16>) outs(%c : memref<16x32xbf16>)
  return
}
