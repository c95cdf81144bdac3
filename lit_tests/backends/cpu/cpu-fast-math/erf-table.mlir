// RUN: aten-opt %s -p 'cpu-fast-math{cpu=znver4}' | FileCheck %s
// RUN: aten-opt %s -p 'cpu-fast-math{cpu=x86-64-v3}' | FileCheck %s --check-prefix=AVX2

// erf on whole AVX-512 registers (erf_table.py): |x| clamped to 3.93125 (a compare and select
// on NaN-keeping order: one vminps; the last polynomial gives 1.0 there), index round(8|x|) from
// the 1.5 * 2^23 rounder's low bits, then per register seven two-table permutes (origin, c0,
// c1..c5: 32 intervals), t = |x| - origin, g t + c0 as a select (t on intervals 0-2, whose
// c0 is 0: index + rounder < rounder + 3; c0 elsewhere), a degree-5 Horner chain,
// fma(t, q, that); the sign back from x. A 32-lane vector is two registers.
// CHECK-LABEL: func.func @erf_registers(
// CHECK-SAME: %[[X:.+]]: vector<32xf32>
// CHECK-NOT: math.erf
// CHECK: %[[ABS:.+]] = math.absf %[[X]] : vector<32xf32>
// CHECK-NEXT: %[[CUT:.+]] = arith.constant dense<3.931250e+00> : vector<32xf32>
// CHECK-NEXT: %[[OVER:.+]] = arith.cmpf ogt, %[[ABS]], %[[CUT]] : vector<32xf32>
// CHECK-NEXT: arith.constant dense<3.931250e+00>
// CHECK-NEXT: %[[A:.+]] = arith.select %[[OVER]], %{{.+}}, %[[ABS]]
// CHECK: arith.constant dense<8.000000e+00> : vector<32xf32>
// CHECK: arith.constant dense<0x4B400000> : vector<32xf32>
// CHECK-COUNT-14: llvm.call_intrinsic "llvm.x86.avx512.vpermi2var.ps.512"
// CHECK-NOT: llvm.call_intrinsic
// CHECK: %[[T:.+]] = arith.subf %[[A]], %{{.+}} : vector<32xf32>
// CHECK-NEXT: %[[R3:.+]] = arith.constant dense<0x4B400003> : vector<32xf32>
// CHECK-NEXT: %[[SMALL:.+]] = arith.cmpf olt, %{{.+}}, %[[R3]] : vector<32xf32>
// CHECK-NEXT: %[[INNER:.+]] = arith.select %[[SMALL]], %[[T]], %{{.+}} : vector<32xi1>, vector<32xf32>
// CHECK-COUNT-4: arith.addf %{{.+}}, %{{.+}} fastmath<contract> : vector<32xf32>
// CHECK: arith.mulf %[[T]], %{{.+}} fastmath<contract> : vector<32xf32>
// CHECK-NEXT: %[[Y:.+]] = arith.addf %{{.+}}, %[[INNER]] fastmath<contract> : vector<32xf32>
// CHECK-NEXT: math.copysign %[[Y]], %[[X]] : vector<32xf32>
// AVX2-LABEL: func.func @erf_registers(
// AVX2-NOT: llvm.call_intrinsic
// AVX2: arith.shli
// AVX2: math.copysign
func.func @erf_registers(%x: vector<32xf32>) -> vector<32xf32> {
  %y = math.erf %x : vector<32xf32>
  return %y : vector<32xf32>
}

// GELU's erf(x * f32(1/sqrt 2)): the tables of erf(x / sqrt 2) read x itself (index scale
// 8 / sqrt 2, clamp 5.559627), so the rounded product is not used (it stays, dead).
// CHECK-LABEL: func.func @erf_of_gelu(
// CHECK-SAME: %[[X:.+]]: vector<16xf32>
// CHECK: %[[P:.+]] = arith.mulf %[[X]], %{{.+}} : vector<16xf32>
// CHECK: math.absf %[[X]] : vector<16xf32>
// CHECK-NEXT: arith.constant dense<5.55962706> : vector<16xf32>
// CHECK: arith.constant dense<5.65685415> : vector<16xf32>
// CHECK-COUNT-7: llvm.call_intrinsic "llvm.x86.avx512.vpermi2var.ps.512"
// CHECK: %[[T:.+]] = arith.subf
// CHECK: %[[HALF:.+]] = arith.constant dense<5.000000e-01> : vector<16xf32>
// CHECK-NEXT: %[[HT:.+]] = arith.mulf %[[T]], %[[HALF]] : vector<16xf32>
// CHECK-NEXT: arith.select %{{.+}}, %[[HT]], %{{.+}} : vector<16xi1>, vector<16xf32>
// CHECK: math.copysign %{{.+}}, %[[X]] : vector<16xf32>
// AVX2-LABEL: func.func @erf_of_gelu(
// AVX2-NOT: llvm.call_intrinsic
// AVX2: return
func.func @erf_of_gelu(%x: vector<16xf32>) -> vector<16xf32> {
  %c = arith.constant dense<0.70710677> : vector<16xf32>
  %p = arith.mulf %x, %c : vector<16xf32>
  %y = math.erf %p : vector<16xf32>
  return %y : vector<16xf32>
}

// Vectors that are not whole registers (and scalars) keep the general expansion.
// CHECK-LABEL: func.func @erf_part_register(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: arith.shli
// CHECK: return
func.func @erf_part_register(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.erf %x : vector<8xf32>
  return %y : vector<8xf32>
}
