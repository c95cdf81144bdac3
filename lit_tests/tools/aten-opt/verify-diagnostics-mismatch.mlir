// RUN: not aten-opt %s --split-input-file --verify-diagnostics -p aten-verify 2>&1 | FileCheck %s

// Any mismatch is exit status 1 with one line per unexpected diagnostic and per
// expectation not met, located as mlir-opt locates them.

func.func @unexpected(%a: tensor<2xf32>) {
  // CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+1]]:8: error: unexpected error: 'aten.relu' op has unknown attributes ['x']
  %0 = "aten.relu"(%a) {x = 1} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @not_produced(%a: tensor<2xf32>) {
  // CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+1]]:6: error: expected error "something else" was not produced
  // expected-error@+1 {{something else}}
  %0 = "aten.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @wrong_line(%a: tensor<2xf32>) {
  // CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+3]]:8: error: unexpected error: 'aten.neg' op has unknown attributes ['x']
  // CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+1]]:6: error: expected error "unknown attributes" was not produced
  // expected-error@+2 {{unknown attributes}}
  %0 = "aten.neg"(%a) {x = 1} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @wrong_severity(%a: tensor<2xf32>) {
  // CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+3]]:8: error: unexpected error: 'aten.exp' op has unknown attributes ['x']
  // CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+1]]:6: error: expected warning "unknown attributes" was not produced
  // expected-warning@+1 {{unknown attributes}}
  %0 = "aten.exp"(%a) {x = 1} : (tensor<2xf32>) -> tensor<2xf32>
  return
}
