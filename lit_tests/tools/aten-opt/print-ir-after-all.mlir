// RUN: aten-opt %s --print-ir-after-all -p 'aten-verify,func.func(cse),aten-drop-dead' 2>&1 >/dev/null | FileCheck %s

// The IR after every pass goes to stderr, as mlir-opt's --mlir-print-ir-after-all.
// CHECK: // -----// IR Dump After aten-verify (aten-verify) //----- //
// CHECK: "aten.exp"
// CHECK: // -----// IR Dump After CSE (cse)
// CHECK: // -----// IR Dump After aten-drop-dead (aten-drop-dead) //----- //
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @f
// CHECK-NEXT: return
func.func @f(%a: tensor<2xf32>) {
  %0 = "aten.exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}
