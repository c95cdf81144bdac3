// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// The dtype left open by the factory is stated from the result type.
// CHECK-LABEL: func.func @ones
// CHECK-NEXT: [[F:%.+]] = "aten.full"() {dtype = f32, fill_value = 1 : i64, size = array<i64: 2, 3>} : () -> tensor<2x3xf32>
// CHECK-NEXT: return [[F]]
func.func @ones() -> tensor<2x3xf32> {
  %0 = "aten.ones"() {size = array<i64: 2, 3>} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @new_zeros
// CHECK-NEXT: "aten.full"() {dtype = i32, fill_value = 0 : i64, size = array<i64: 4>} : () -> tensor<4xi32>
func.func @new_zeros(%x: tensor<2xi32>) -> tensor<4xi32> {
  %0 = "aten.new_zeros"(%x) {size = array<i64: 4>} : (tensor<2xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @clamp_min
// CHECK-NEXT: "aten.clamp"(%{{.+}}) {min = 5.000000e-01 : f64} : (tensor<3xf32>) -> tensor<3xf32>
func.func @clamp_min(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.clamp_min"(%x) {min = 0.5 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A runtime end (a dynamic dim read with tensor.dim) stays an operand of the core arange.
// CHECK-LABEL: func.func @arange_runtime_end
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?xf32>)
// CHECK: [[D:%.+]] = tensor.dim %[[X]]
// CHECK-NEXT: [[A:%.+]] = "aten.arange.start_step"([[D]]) {dtype = i64, {{.*}}start = 0 : i64, step = 1 : i64} : (index) -> tensor<?xi64>
// CHECK-NEXT: return [[A]]
func.func @arange_runtime_end(%x: tensor<?xf32>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %0 = "aten.arange"(%n) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (index) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// CHECK-LABEL: func.func @arange_start
// CHECK-NEXT: "aten.arange.start_step"() {dtype = f32, end = 9 : i64, start = 2 : i64, step = 1 : i64} : () -> tensor<7xf32>
func.func @arange_start() -> tensor<7xf32> {
  %0 = "aten.arange.start"() {dtype = f32, end = 9 : i64, start = 2 : i64} : () -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// ATen's two halves: start + step * i up to steps / 2, then end - step * (steps - 1 - i), so
// that both ends are exact.
// CHECK-LABEL: func.func @linspace
// CHECK-NEXT: [[S:%.+]] = "aten.full"() {dtype = f32, fill_value = 0 : i64, size = array<i64>}
// CHECK-NEXT: [[E:%.+]] = "aten.full"() {dtype = f32, fill_value = 1 : i64, size = array<i64>}
// CHECK-NEXT: [[R:%.+]] = "aten.sub.Tensor"([[E]], [[S]])
// CHECK-NEXT: [[STEP:%.+]] = "aten.div.Scalar"([[R]]) {other = 4 : i64}
// CHECK-NEXT: [[UP:%.+]] = "aten.arange.start_step"() {dtype = f32, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK-NEXT: [[DOWN:%.+]] = "aten.arange.start_step"() {dtype = f32, end = -1 : i64, start = 2 : i64, step = -1 : i64}
// CHECK-NEXT: [[M1:%.+]] = "aten.mul.Tensor"([[UP]], [[STEP]])
// CHECK-NEXT: [[LO:%.+]] = "aten.add.Tensor"([[S]], [[M1]])
// CHECK-NEXT: [[M2:%.+]] = "aten.mul.Tensor"([[DOWN]], [[STEP]])
// CHECK-NEXT: [[HI:%.+]] = "aten.sub.Tensor"([[E]], [[M2]])
// CHECK-NEXT: [[C:%.+]] = "aten.cat"([[LO]], [[HI]]) {dim = 0 : i64
// CHECK-NEXT: return [[C]]
func.func @linspace() -> tensor<5xf32> {
  %0 = "aten.linspace"() {end = 1 : i64, start = 0 : i64, steps = 5 : i64} : () -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Exponents as linspace computes them, the power in double as ATen's kernel takes it.
// CHECK-LABEL: func.func @logspace
// CHECK: [[X:%.+]] = "aten._to_copy"(%{{.+}}) {dtype = f64, non_blocking = false} : (tensor<3xf32>) -> tensor<3xf64>
// CHECK-NEXT: [[P:%.+]] = "aten.pow.Scalar"([[X]]) {self = 1.000000e+01 : f64}
// CHECK-NEXT: [[R:%.+]] = "aten._to_copy"([[P]]) {dtype = f32, non_blocking = false} : (tensor<3xf64>) -> tensor<3xf32>
// CHECK-NEXT: return [[R]]
// CHECK-NOT: linspace
func.func @logspace() -> tensor<3xf32> {
  %0 = "aten.logspace"() {base = 1.000000e+01 : f64, end = 2 : i64, start = 0 : i64, steps = 3 : i64} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @empty_like
// CHECK: [[D:%.+]] = tensor.dim
// CHECK-NEXT: [[E:%.+]] = "aten.empty.memory_format"([[D]], %{{.+}}) {dtype = f32, {{.*}}} : (index, index) -> tensor<?x3xf32>
// CHECK-NEXT: return [[E]]
func.func @empty_like(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = "aten.empty_like"(%x) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func.func @empty_permuted
// CHECK-NEXT: "aten.empty_strided"() {dtype = f32, size = array<i64: 2, 3, 4>, stride = array<i64: 12, 1, 3>}
func.func @empty_permuted() -> tensor<2x3x4xf32> {
  %0 = "aten.empty_permuted"() {dtype = f32, physical_layout = array<i64: 0, 2, 1>, size = array<i64: 2, 3, 4>} : () -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @zero
// CHECK-NEXT: "aten.full_like"(%{{.+}}) {fill_value = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "aten.zero"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
