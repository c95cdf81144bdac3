// RUN: aten-opt %s -p aten-split-fresh-deallocs | FileCheck %s

// A call of a function returning a fresh allocation counts as a buffer of its own: the
// dealloc of it and two allocations splits into one memref.dealloc each, except for the
// allocation a retained value views, whose ownership comes out as true.
// CHECK-LABEL: func.func @fresh(
// CHECK: %[[A:.+]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.+]] = call @make()
// CHECK: %[[C:.+]] = memref.alloc() : memref<16xf32>
// CHECK: %[[V:.+]] = memref.subview %[[C]]
// CHECK-NOT: bufferization.dealloc
// CHECK-DAG: memref.dealloc %[[A]] : memref<8xf32>
// CHECK-DAG: memref.dealloc %[[B]] : memref<8xf32>
// CHECK-DAG: %[[OWNED:.+]] = arith.constant true
// CHECK-NOT: memref.dealloc %[[C]]
// CHECK: return %[[V]], %[[OWNED]]
func.func private @make() -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>
  return %a : memref<8xf32>
}

func.func @fresh() -> (memref<8xf32, strided<[1], offset: 4>>, i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = call @make() : () -> memref<8xf32>
  %c = memref.alloc() : memref<16xf32>
  %v = memref.subview %c[4] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 4>>
  %o = bufferization.dealloc (%a, %b, %c : memref<8xf32>, memref<8xf32>, memref<16xf32>) if (%true, %true, %true) retain (%v : memref<8xf32, strided<[1], offset: 4>>)
  return %v, %o : memref<8xf32, strided<[1], offset: 4>>, i1
}

// A callee that returns its argument (or frees what it returns) does not: the dealloc stays
// for the runtime alias check.
// CHECK-LABEL: func.func @not_fresh(
// CHECK: bufferization.dealloc (%{{.+}}, %{{.+}} :
func.func private @passthrough(%m: memref<8xf32>) -> memref<8xf32> {
  return %m : memref<8xf32>
}

func.func @not_fresh() {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = call @passthrough(%a) : (memref<8xf32>) -> memref<8xf32>
  bufferization.dealloc (%a, %b : memref<8xf32>, memref<8xf32>) if (%true, %true)
  return
}

// A condition that is not known true keeps the op too.
// CHECK-LABEL: func.func @conditional(
// CHECK: bufferization.dealloc (%{{.+}}, %{{.+}} :
func.func @conditional(%cond: i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = call @make() : () -> memref<8xf32>
  bufferization.dealloc (%a, %b : memref<8xf32>, memref<8xf32>) if (%cond, %true)
  return
}

// A retained value that may be any of the buffers (chosen at run time) keeps the op: freeing
// both would free what the function returns.
// CHECK-LABEL: func.func @retained_select(
// CHECK: bufferization.dealloc (%{{.+}}, %{{.+}} :
func.func @retained_select(%cond: i1) -> memref<8xf32> {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = call @make() : () -> memref<8xf32>
  %r = arith.select %cond, %a, %b : memref<8xf32>
  %o = bufferization.dealloc (%a, %b : memref<8xf32>, memref<8xf32>) if (%true, %true) retain (%r : memref<8xf32>)
  return %r : memref<8xf32>
}

// A retained argument is none of the function's buffers: both are freed.
// CHECK-LABEL: func.func @retained_argument(
// CHECK-NOT: bufferization.dealloc
// CHECK: memref.dealloc
// CHECK: memref.dealloc
// CHECK: %[[FALSE:.+]] = arith.constant false
// CHECK: return %{{.+}}, %[[FALSE]]
func.func @retained_argument(%m: memref<8xf32>) -> (memref<8xf32>, i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = call @make() : () -> memref<8xf32>
  %o = bufferization.dealloc (%a, %b : memref<8xf32>, memref<8xf32>) if (%true, %true) retain (%m : memref<8xf32>)
  return %m, %o : memref<8xf32>, i1
}
