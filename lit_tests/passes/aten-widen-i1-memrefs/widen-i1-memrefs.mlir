// RUN: aten-opt %s -p aten-widen-i1-memrefs | FileCheck %s

// dealloc_helper's flag buffers: i1 memrefs become i8 ones (allocations, casts, arguments,
// signatures); stores store the zero extension, loads truncate.
// CHECK-LABEL: func.func @flags
// CHECK-SAME: (%[[C:.+]]: i1) -> i1
// CHECK: %[[A:.+]] = memref.alloc() : memref<2xi8>
// CHECK: %[[W:.+]] = arith.extui %[[C]] : i1 to i8
// CHECK: memref.store %[[W]], %[[A]]
// CHECK: %[[D:.+]] = memref.cast %[[A]] : memref<2xi8> to memref<?xi8>
// CHECK: call @helper(%[[D]]) : (memref<?xi8>) -> ()
// CHECK: %[[L:.+]] = memref.load %[[A]]{{.*}} : memref<2xi8>
// CHECK: %[[T:.+]] = arith.trunci %[[L]] : i8 to i1
// CHECK: return %[[T]] : i1
// CHECK: func.func private @helper(%{{.*}}: memref<?xi8>)
// CHECK: memref.load {{.*}} : memref<?xi8>
// CHECK: arith.trunci
// CHECK: arith.extui
// CHECK: memref.store {{.*}} : memref<?xi8>
// CHECK-NOT: xi1>
func.func @flags(%c: i1) -> i1 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<2xi1>
  memref.store %c, %a[%c0] : memref<2xi1>
  %d = memref.cast %a : memref<2xi1> to memref<?xi1>
  call @helper(%d) : (memref<?xi1>) -> ()
  %r = memref.load %a[%c0] : memref<2xi1>
  memref.dealloc %a : memref<2xi1>
  return %r : i1
}

func.func private @helper(%m: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %m[%c0] : memref<?xi1>
  %n = arith.xori %v, %v : i1
  memref.store %n, %m[%c1] : memref<?xi1>
  return
}
