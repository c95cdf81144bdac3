// RUN: aten-opt %s --mlir-print-debuginfo | FileCheck %s
// RUN: aten-opt %s --split-input-file --mlir-print-debuginfo | FileCheck %s --check-prefix=SPLIT
// RUN: aten-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Locations name the input file and its lines (also in a later chunk of a split file).
// CHECK-LABEL: func.func @f
// CHECK: "aten.relu"(%{{.*}}) : (tensor<2xf32>) -> tensor<2xf32> loc([[RELU:#loc[0-9]*]])
// CHECK: [[RELU]] = loc("{{.*}}debuginfo.mlir":[[@LINE+3]]:8)
// GENERIC: "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "f"}>
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// SPLIT-LABEL: func.func @g
// SPLIT: "aten.neg"(%{{.*}}) : (tensor<2xf32>) -> tensor<2xf32> loc([[NEG:#loc[0-9]*]])
// SPLIT: [[NEG]] = loc("{{.*}}debuginfo.mlir":[[@LINE+2]]:8)
func.func @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
