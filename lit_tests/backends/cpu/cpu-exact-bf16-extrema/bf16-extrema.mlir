// RUN: aten-opt %s -p cpu-exact-bf16-extrema | FileCheck %s

// A scalar bf16 max: both sides widened, the f32 max narrowed by taking its high half (the max
// is one of the inputs, so there is nothing to round).
// CHECK-LABEL: func.func @max_scalar(
// CHECK-SAME: %[[A:.+]]: bf16, %[[B:.+]]: bf16
// CHECK-DAG: %[[WA:.+]] = arith.extf %[[A]] : bf16 to f32
// CHECK-DAG: %[[WB:.+]] = arith.extf %[[B]] : bf16 to f32
// CHECK: %[[M:.+]] = arith.maximumf %[[WA]], %[[WB]] : f32
// CHECK: %[[BITS:.+]] = arith.bitcast %[[M]] : f32 to i32
// CHECK: %[[HIGH:.+]] = arith.shrui %[[BITS]], %{{.+}} : i32
// CHECK: %[[HALF:.+]] = arith.trunci %[[HIGH]] : i32 to i16
// CHECK: %[[R:.+]] = arith.bitcast %[[HALF]] : i16 to bf16
// CHECK-NOT: arith.truncf
// CHECK: return %[[R]] : bf16
func.func @max_scalar(%a: bf16, %b: bf16) -> bf16 {
  %0 = arith.maximumf %a, %b : bf16
  return %0 : bf16
}

// Vectors the same way, lane by lane; fastmath flags are kept.
// CHECK-LABEL: func.func @minnum_vector(
// CHECK: arith.minnumf %{{.+}}, %{{.+}} fastmath<nnan> : vector<32xf32>
// CHECK: arith.shrui %{{.+}}, %{{.+}} : vector<32xi32>
// CHECK: arith.trunci %{{.+}} : vector<32xi32> to vector<32xi16>
// CHECK: arith.bitcast %{{.+}} : vector<32xi16> to vector<32xbf16>
func.func @minnum_vector(%a: vector<32xbf16>, %b: vector<32xbf16>) -> vector<32xbf16> {
  %0 = arith.minnumf %a, %b fastmath<nnan> : vector<32xbf16>
  return %0 : vector<32xbf16>
}

// Other bf16 arith (rounded results) and f32 extrema stay as they are.
// CHECK-LABEL: func.func @untouched(
// CHECK-NEXT: arith.addf %{{.+}}, %{{.+}} : bf16
// CHECK-NEXT: arith.maximumf %{{.+}}, %{{.+}} : f32
func.func @untouched(%a: bf16, %b: bf16, %c: f32) -> (bf16, f32) {
  %0 = arith.addf %a, %b : bf16
  %1 = arith.maximumf %c, %c : f32
  return %0, %1 : bf16, f32
}
