// RUN: aten-opt %s -p cpu-emit-c-interface | FileCheck %s

// Every public function gets `llvm.emit_c_interface` (the native runtime calls its C wrapper);
// private ones (outlined nests, libm declarations) are only called from inside the module.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: attributes {llvm.emit_c_interface}
func.func @main(%a: memref<4xf32>) {
  call @main_nest0(%a) : (memref<4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @other(
// CHECK-SAME: attributes {llvm.emit_c_interface}
func.func @other() {
  return
}

// CHECK-LABEL: func.func private @main_nest0(
// CHECK-NOT: llvm.emit_c_interface
// CHECK: return
func.func private @main_nest0(%a: memref<4xf32>) {
  return
}

// CHECK: func.func private @expf(f32) -> f32
// CHECK-NOT: llvm.emit_c_interface
func.func private @expf(f32) -> f32
