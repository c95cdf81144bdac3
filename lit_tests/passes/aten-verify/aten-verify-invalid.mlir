// RUN: aten-opt %s --split-input-file --verify-diagnostics -p aten-verify

// One function per verifier rule.

func.func @unknown_op(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'aten.frobnicate' op is not an op of the aten dialect (no such ATen schema)}}
  %0 = "aten.frobnicate"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @wrong_operand_count(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'aten.relu' op expects 1 operands (one per Tensor argument), got 2}}
  %0 = "aten.relu"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @missing_required_attribute(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'aten.add.Tensor' op requires attribute 'alpha' (Scalar)}}
  %0 = "aten.add.Tensor"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @wrong_attribute_kind(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error@+1 {{attribute 'dim': expected a int[] attribute, got 1 : i64}}
  %0 = "aten.sum.dim_IntList"(%a) {dim = 1 : i64, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @wrong_enum_attribute(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{attribute 'memory_format': 'sideways' is not a torch MemoryFormat}}
  %0 = "aten.clone"(%a) {memory_format = "sideways"} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @unknown_attribute(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'aten.relu' op has unknown attributes ['inplace']}}
  %0 = "aten.relu"(%a) {inplace = true} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Dialect-prefixed (discardable) attributes are fine.
func.func @discardable_attribute(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.relu"(%a) {test.tag = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @segments_missing(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'aten.cat' op requires operandSegmentSizes (it has optional or list tensor arguments)}}
  %0 = "aten.cat"(%a, %a) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @segments_wrong_length(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{operandSegmentSizes has 3 entries, the schema 2 arguments}}
  %0 = "aten.cat"(%a, %a) {dim = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @segments_negative(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{operandSegmentSizes has a negative entry}}
  %0 = "aten.cat"(%a, %a) {dim = 0 : i64, operandSegmentSizes = array<i32: 3, -1>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @segments_wrong_sum(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{operandSegmentSizes sums to 3 but the op has 2 operands}}
  %0 = "aten.cat"(%a, %a) {dim = 0 : i64, operandSegmentSizes = array<i32: 3, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @two_tensors_for_one(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{argument 'self' takes one tensor, got 2}}
  %0 = "aten.relu"(%a, %a) {operandSegmentSizes = array<i32: 2>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @wrong_result_count(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'aten.relu' op expected results (Tensor), got 2}}
  %0:2 = "aten.relu"(%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %0#0 : tensor<2xf32>
}

// -----

// A Tensor[] result among others needs resultSegmentSizes.
func.func @result_segments_missing(%a: tensor<2xf32>, %f: tensor<1xf32>) -> tensor<1xf32> {
  // expected-error@+1 {{requires resultSegmentSizes (it returns a Tensor[] among others)}}
  %0:3 = "aten._amp_foreach_non_finite_check_and_unscale"(%a, %a, %f, %f) {operandSegmentSizes = array<i32: 2, 1, 1>} : (tensor<2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<1xf32>)
  return %0#2 : tensor<1xf32>
}

// -----

func.func @result_segments_wrong(%a: tensor<2xf32>, %f: tensor<1xf32>) -> tensor<1xf32> {
  // expected-error@+1 {{resultSegmentSizes [1, 1] does not fit 3 results}}
  %0:3 = "aten._amp_foreach_non_finite_check_and_unscale"(%a, %a, %f, %f) {operandSegmentSizes = array<i32: 2, 1, 1>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<1xf32>)
  return %0#2 : tensor<1xf32>
}

// -----

func.func @wrong_result_type(%a: tensor<2xf32>) -> i32 {
  // expected-error@+1 {{'aten.relu' op result #0: expected a ranked tensor, got i32}}
  %0 = "aten.relu"(%a) : (tensor<2xf32>) -> i32
  return %0 : i32
}

// -----

func.func @operand_not_a_tensor(%a: memref<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{argument 'self' expects tensors, got memref<2xf32>}}
  %0 = "aten.relu"(%a) : (memref<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @mask_mismatch(%a: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{argument 'indices': presence mask does not match 1 operands}}
  %0 = "aten.index.Tensor"(%a, %i) {indices = array<i1: true, true>, operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @mask_missing(%a: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{argument 'indices' (Tensor?[]) needs its presence mask attribute}}
  %0 = "aten.index.Tensor"(%a, %i) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @unsupported_operand_element_type(%a: tensor<2xi3>) -> tensor<2xf32> {
  // expected-error@+1 {{argument 'self': element type i3 has no torch dtype}}
  %0 = "aten.relu"(%a) : (tensor<2xi3>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @unsupported_result_element_type(%a: tensor<2xf32>) -> tensor<2xindex> {
  // expected-error@+1 {{result #0: element type index has no torch dtype}}
  %0 = "aten.relu"(%a) : (tensor<2xf32>) -> tensor<2xindex>
  return %0 : tensor<2xindex>
}

// -----

// Every problem of one op is reported, each as its own error at the op.
func.func @several_problems(%a: tensor<2xf32>) -> i32 {
  // expected-error@+2 {{requires attribute 'alpha'}}
  // expected-error@+1 {{result #0: expected a ranked tensor, got i32}}
  %0 = "aten.add.Tensor"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> i32
  return %0 : i32
}

// -----

func.func @symbolic_operand_of_wrong_type(%a: tensor<2x3xf32>, %n: f32) -> tensor<6xf32> {
  // expected-error@+1 {{argument 'size' (int[]) cannot be a value of type f32}}
  %0 = "aten.view"(%a, %n) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3xf32>, f32) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
