// RUN: aten-opt %s -p cpu-fast-math | FileCheck %s
// RUN: aten-opt %s -p cpu-fast-math,convert-math-to-llvm,convert-math-to-libm | FileCheck %s --check-prefix=LIBM

// exp: clamp (NaN passes the selects), round x/ln2 with 1.5*2^23, Cody-Waite reduction,
// polynomial, then 2^n as two exponent-field factors.
// CHECK-LABEL: func.func @exp_f32(
// CHECK-SAME: %[[X:.+]]: f32
// CHECK-NOT: math.exp
// CHECK: %[[LO:.+]] = arith.cmpf olt, %[[X]], %{{.+}} : f32
// CHECK-NEXT: arith.constant -1.040000e+02 : f32
// CHECK-NEXT: %[[XL:.+]] = arith.select %[[LO]], %{{.+}}, %[[X]] : f32
// CHECK: %[[HI:.+]] = arith.cmpf ogt, %[[XL]], %{{.+}} : f32
// CHECK: %[[XC:.+]] = arith.select %[[HI]], %{{.+}}, %[[XL]] : f32
// CHECK: arith.constant 1.44269502 : f32
// CHECK-NEXT: arith.constant 0x4B400000 : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[XC]], %{{.+}} fastmath<contract> : f32
// CHECK-NEXT: %[[T:.+]] = arith.addf %[[M]], %{{.+}} fastmath<contract> : f32
// CHECK: arith.constant -0.693359375 : f32
// CHECK: %[[BITS:.+]] = arith.bitcast %[[T]] : f32 to i32
// CHECK: %[[N:.+]] = arith.subi %[[BITS]], %{{.+}} : i32
// CHECK: %[[HALF:.+]] = arith.shrsi %[[N]], %{{.+}} : i32
// CHECK: arith.shli
// CHECK: %[[S1:.+]] = arith.bitcast %{{.+}} : i32 to f32
// CHECK: %[[P:.+]] = arith.mulf %{{.+}}, %[[S1]] : f32
// CHECK: arith.subi %[[N]], %[[HALF]] : i32
// CHECK: %[[S2:.+]] = arith.bitcast %{{.+}} : i32 to f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[P]], %[[S2]] : f32
// CHECK-NEXT: return %[[R]] : f32
// LIBM-LABEL: func.func @exp_f32(
// LIBM-NOT: llvm.intr.exp
// LIBM: return
func.func @exp_f32(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// Vectors take the same expansion with splat constants and i32 vectors.
// CHECK-LABEL: func.func @exp_vector(
// CHECK-NOT: math.exp
// CHECK: arith.constant dense<-1.040000e+02> : vector<8xf32>
// CHECK: arith.bitcast %{{.+}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.shrsi %{{.+}} : vector<8xi32>
// CHECK: arith.bitcast %{{.+}} : vector<8xi32> to vector<8xf32>
// CHECK: return %{{.+}} : vector<8xf32>
func.func @exp_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.exp %x : vector<8xf32>
  return %y : vector<8xf32>
}

// tanh: the small-|x| polynomial or 1 - 2/(exp(2|x|) + 1), signed as x (-0.0 stays -0.0).
// CHECK-LABEL: func.func @tanh_vector(
// CHECK-SAME: %[[X:.+]]: vector<4xf32>
// CHECK-NOT: math.tanh
// CHECK: %[[A:.+]] = math.absf %[[X]] : vector<4xf32>
// CHECK: arith.divf
// CHECK: %[[SMALL:.+]] = arith.cmpf olt, %[[A]], %{{.+}} : vector<4xf32>
// CHECK-NEXT: %[[PICK:.+]] = arith.select %[[SMALL]], %{{.+}}, %{{.+}} : vector<4xi1>, vector<4xf32>
// CHECK-NEXT: %[[R:.+]] = math.copysign %[[PICK]], %[[X]] : vector<4xf32>
// CHECK-NEXT: return %[[R]]
// LIBM-LABEL: func.func @tanh_vector(
// LIBM-NOT: call @tanhf
// LIBM: return
func.func @tanh_vector(%x: vector<4xf32>) -> vector<4xf32> {
  %y = math.tanh %x : vector<4xf32>
  return %y : vector<4xf32>
}

// erf: x + x P(x^2) below 1, else 1 - 2^Q(min(|x|, 4) - 1): n = round(u R(u)) - 3 by one
// FMA with the rounder (1.5 * 2^23 - 3), f = u R(u) + (c0 - n) by another, 2^n added into the
// exponent field (a shift and an integer add, no multiply); NaN takes the small branch.
// CHECK-LABEL: func.func @erf_f32(
// CHECK-SAME: %[[X:.+]]: f32
// CHECK-NOT: math.erf
// CHECK: %[[A:.+]] = math.absf %[[X]] : f32
// CHECK-NEXT: arith.constant 4.000000e+00 : f32
// CHECK-NEXT: arith.cmpf ogt, %[[A]]
// CHECK: %[[U:.+]] = arith.subf %{{.+}}, %{{.+}} : f32
// CHECK: %[[RND:.+]] = arith.constant 0x4B3FFFFD : f32
// CHECK-NEXT: %[[UR:.+]] = arith.mulf %[[U]], %[[REST:.+]] fastmath<contract> : f32
// CHECK-NEXT: %[[T:.+]] = arith.addf %[[UR]], %[[RND]] fastmath<contract> : f32
// CHECK: %[[N:.+]] = arith.subf %[[T]], %{{.+}} : f32
// CHECK-NEXT: %[[C0:.+]] = arith.constant -2.66841674 : f32
// CHECK-NEXT: %[[C0N:.+]] = arith.subf %[[C0]], %[[N]] : f32
// CHECK-NEXT: %[[UR2:.+]] = arith.mulf %[[U]], %[[REST]] fastmath<contract> : f32
// CHECK-NEXT: %[[F:.+]] = arith.addf %[[UR2]], %[[C0N]] fastmath<contract> : f32
// CHECK: %[[E:.+]] = arith.bitcast %{{.+}} : f32 to i32
// CHECK-NEXT: %[[TB:.+]] = arith.bitcast %[[T]] : f32 to i32
// CHECK-NEXT: arith.constant 23 : i32
// CHECK-NEXT: %[[SH:.+]] = arith.shli %[[TB]], %{{.+}} : i32
// CHECK-NEXT: %[[SUM:.+]] = arith.addi %[[E]], %[[SH]] : i32
// CHECK-NEXT: %[[ERFC:.+]] = arith.bitcast %[[SUM]] : i32 to f32
// CHECK-NOT: arith.mulf
// CHECK: %[[LARGE:.+]] = arith.subf %{{.+}}, %[[ERFC]] : f32
// CHECK: %[[BIG:.+]] = arith.cmpf oge, %[[A]], %{{.+}} : f32
// CHECK-NEXT: %[[PICK:.+]] = arith.select %[[BIG]], %[[LARGE]], %{{.+}} : f32
// CHECK-NEXT: math.copysign %[[PICK]], %[[X]] : f32
// LIBM-LABEL: func.func @erf_f32(
// LIBM-NOT: call @erff
// LIBM: return
func.func @erf_f32(%x: f32) -> f32 {
  %y = math.erf %x : f32
  return %y : f32
}

// log: denormals scaled by 2^23, exponent and mantissa from the bits offset by sqrt(1/2);
// inf, 0 and negatives / NaN fixed up last.
// CHECK-LABEL: func.func @log_f32(
// CHECK-SAME: %[[X:.+]]: f32
// CHECK-NOT: math.log
// CHECK: arith.constant 1.17549435E-38 : f32
// CHECK: arith.constant 1060439283 : i32
// CHECK: arith.shrsi
// CHECK: arith.andi
// CHECK: arith.sitofp
// CHECK: arith.cmpf oeq, %[[X]], %{{.+}} : f32
// CHECK: arith.cmpf oeq, %[[X]], %{{.+}} : f32
// CHECK: arith.cmpf ult, %[[X]], %{{.+}} : f32
// CHECK-NEXT: arith.constant 0x7FC00000 : f32
// CHECK-NEXT: %[[R:.+]] = arith.select
// CHECK-NEXT: return %[[R]]
func.func @log_f32(%x: f32) -> f32 {
  %y = math.log %x : f32
  return %y : f32
}

// expm1 and log1p: expansions of their own (exp(x) - 1 and log(1 + x) would cancel), signed
// as x; no libm call left for cpu-accurate-math to make.
// CHECK-LABEL: func.func @expm1_log1p(
// CHECK-NOT: math.expm1
// CHECK-NOT: math.log1p
// CHECK: math.copysign
// CHECK: arith.divf
// CHECK: math.copysign
// CHECK: return
// LIBM-LABEL: func.func @expm1_log1p(
// LIBM-NOT: call @expm1f
// LIBM-NOT: call @log1pf
// LIBM: return
func.func @expm1_log1p(%x: f32) -> (f32, f32) {
  %a = math.expm1 %x : f32
  %b = math.log1p %x : f32
  return %a, %b : f32, f32
}

// f64 stays with libm; f16 (computed in f32 upstream of here) and other math ops are untouched.
// CHECK-LABEL: func.func @kept(
// CHECK-NEXT: math.exp %{{.+}} : f64
// CHECK-NEXT: math.erf %{{.+}} : vector<4xf64>
// CHECK-NEXT: math.tanh %{{.+}} : f16
// CHECK-NEXT: math.sin %{{.+}} : f32
// CHECK-NEXT: return
func.func @kept(%a: f64, %v: vector<4xf64>, %b: f16, %c: f32) -> (f64, vector<4xf64>, f16, f32) {
  %w = math.exp %a : f64
  %x = math.erf %v : vector<4xf64>
  %y = math.tanh %b : f16
  %z = math.sin %c : f32
  return %w, %x, %y, %z : f64, vector<4xf64>, f16, f32
}
