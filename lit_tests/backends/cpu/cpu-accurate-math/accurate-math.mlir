// RUN: aten-opt %s -p cpu-accurate-math | FileCheck %s

// expm1 and log1p on f32/f64 scalars become calls of libm (expm1f/log1pf for f32), each
// declared once; convert-math-to-llvm would expand expm1 to exp(x) - 1, which is 0 for tiny x.
// Other math ops and vector operands stay for the rest of the llvm stage.
// CHECK-DAG: func.func private @expm1f(f32) -> f32
// CHECK-DAG: func.func private @log1pf(f32) -> f32
// CHECK-DAG: func.func private @expm1(f64) -> f64
// CHECK-NOT: func.func private @log1p(
// CHECK-LABEL: func.func @scalars(
// CHECK-SAME: %[[X:.+]]: f32, %[[Y:.+]]: f64
// CHECK-NEXT: %[[A:.+]] = call @expm1f(%[[X]]) : (f32) -> f32
// CHECK-NEXT: %[[B:.+]] = call @log1pf(%[[A]]) : (f32) -> f32
// CHECK-NEXT: %[[C:.+]] = call @expm1f(%[[B]]) : (f32) -> f32
// CHECK-NEXT: %[[D:.+]] = call @expm1(%[[Y]]) : (f64) -> f64
// CHECK-NEXT: %[[E:.+]] = math.exp %[[C]] : f32
// CHECK-NEXT: return %[[E]], %[[D]]
func.func @scalars(%x: f32, %y: f64) -> (f32, f64) {
  %a = math.expm1 %x : f32
  %b = math.log1p %a : f32
  %c = math.expm1 %b : f32
  %d = math.expm1 %y : f64
  %e = math.exp %c : f32
  return %e, %d : f32, f64
}

// CHECK-LABEL: func.func @vectors(
// CHECK-NEXT: math.expm1 %{{.+}} : vector<4xf32>
// CHECK-NOT: call
func.func @vectors(%v: vector<4xf32>) -> vector<4xf32> {
  %r = math.expm1 %v : vector<4xf32>
  return %r : vector<4xf32>
}
