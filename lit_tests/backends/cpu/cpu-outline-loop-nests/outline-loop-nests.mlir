// RUN: aten-opt %s -p cpu-outline-loop-nests | FileCheck %s
// RUN: aten-opt %s -p cpu-outline-loop-nests,duplicate-function-elimination | FileCheck %s --check-prefix=DFE
// RUN: aten-opt %s -p cpu-outline-loop-nests,cpu-emit-c-interface | FileCheck %s --check-prefix=CIFACE

// Each top-level nest becomes a call; what it reads from outside is passed in order of first
// use, constants are cloned in; a loop with results stays. Identical nests (the same code on
// other buffers) get identical functions, which duplicate-function-elimination merges.
// CHECK-LABEL: func.func @segment(
// CHECK-SAME: %[[A:.+]]: memref<64xf32>, %[[B:.+]]: memref<64xf32>, %[[N:.+]]: index
// CHECK: call @segment_nest0(%[[A]], %[[N]]) : (memref<64xf32>, index) -> ()
// CHECK-NEXT: call @segment_nest1(%[[B]], %[[N]]) : (memref<64xf32>, index) -> ()
// CHECK-NEXT: %[[S:.+]] = scf.for
// CHECK: return %[[S]]
// CHECK: func.func private @segment_nest0(%[[X:.+]]: memref<64xf32>, %[[M:.+]]: index)
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.0
// CHECK: scf.for %[[I:.+]] = %[[ZERO]] to %[[M]]
// CHECK: memref.store %[[ONE]], %[[X]][%[[I]]]
// CHECK: return
// CHECK: func.func private @segment_nest1(

// DFE-LABEL: func.func @segment(
// DFE: call @segment_nest0(
// DFE-NEXT: call @segment_nest0(
// DFE-NOT: @segment_nest1
// Only public functions get a C wrapper (the runtime calls those; nests are internal).
// CIFACE: func.func @segment({{.*}} attributes {llvm.emit_c_interface}
// CIFACE: func.func private @segment_nest0({{[^{]*}}) {
func.func @segment(%a: memref<64xf32>, %b: memref<64xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %one, %a[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    memref.store %one, %b[%i] : memref<64xf32>
  }
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> f32 {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }
  return %s : f32
}
