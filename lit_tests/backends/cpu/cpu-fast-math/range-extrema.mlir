// RUN: aten-opt %s -p 'cpu-fast-math{cpu=znver4}' | FileCheck %s
// RUN: aten-opt %s -p 'cpu-fast-math{cpu=x86-64-v3}' | FileCheck %s --check-prefix=AVX2

// f32 maximumf / minimumf on whole AVX-512 registers (range_extrema.py): vrangeps per
// register (imm 5: max, 4: min; sign of the selected operand, so -0 < +0), then the lanes
// where either operand is NaN take a + b (a quiet NaN). A 32-lane vector is two registers.
// CHECK-LABEL: func.func @extrema(
// CHECK-SAME: %[[A:.+]]: vector<32xf32>, %[[B:.+]]: vector<32xf32>
// CHECK-NOT: arith.maximumf
// CHECK: %[[IMM:.+]] = arith.constant 5 : i32
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"(%{{.+}}, %{{.+}}, %[[IMM]],
// CHECK: %[[UNO:.+]] = arith.cmpf uno, %[[A]], %[[B]] : vector<32xf32>
// CHECK-NEXT: %[[NAN:.+]] = arith.addf %[[A]], %[[B]] : vector<32xf32>
// CHECK-NEXT: %[[MAX:.+]] = arith.select %[[UNO]], %[[NAN]], %{{.+}} : vector<32xi1>, vector<32xf32>
// CHECK: arith.constant 4 : i32
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"
// CHECK-NOT: arith.minimumf
// CHECK: arith.maximumf %{{.+}}, %{{.+}} : f32
// CHECK: arith.maximumf %{{.+}}, %{{.+}} : vector<8xf32>
// AVX2-LABEL: func.func @extrema(
// AVX2-NOT: llvm.call_intrinsic
// AVX2: arith.maximumf %{{.+}}, %{{.+}} : vector<32xf32>
// AVX2: arith.minimumf %{{.+}}, %{{.+}} : vector<32xf32>
func.func @extrema(%a: vector<32xf32>, %b: vector<32xf32>, %s: f32, %h: vector<8xf32>)
    -> (vector<32xf32>, vector<32xf32>, f32, vector<8xf32>) {
  %max = arith.maximumf %a, %b : vector<32xf32>
  %min = arith.minimumf %max, %b : vector<32xf32>
  // scalars and part registers keep LLVM's expansion
  %smax = arith.maximumf %s, %s : f32
  %hmax = arith.maximumf %h, %h : vector<8xf32>
  return %max, %min, %smax, %hmax : vector<32xf32>, vector<32xf32>, f32, vector<8xf32>
}
