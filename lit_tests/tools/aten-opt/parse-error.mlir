// RUN: not aten-opt %s 2>&1 | FileCheck %s
// RUN: not aten-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING

// A malformed file: one located diagnostic, exit status 1, no traceback.
// CHECK-NOT: Traceback
// CHECK: parse-error.mlir:[[@LINE+3]]:20: error: use of undeclared SSA value name
// CHECK-NOT: Traceback
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.relu"(%b) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// MISSING: aten-opt: error: cannot open input file '{{.*}}parse-error.mlir.missing': No such file or directory
