// RUN: aten-opt %s -p aten-expands-as-casts,aten-check-expand-groups --split-input-file | FileCheck %s

// A Linear's rows unfolded into [batch, seq, features], both dynamic: the row-major view of the
// same buffer, strides [seq * 8, 8, 1].
// CHECK-LABEL: func.func @linear_rows
// CHECK-SAME: (%[[X:.+]]: memref<?x8xf32>, %[[B:.+]]: index, %[[S:.+]]: index)
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[ST:.+]] = arith.muli %[[C8]], %[[S]] : index
// CHECK: memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%[[B]], %[[S]], 8], strides: [%[[ST]], 8, 1] : memref<?x8xf32> to memref<?x?x8xf32>
// CHECK-NOT: memref.expand_shape
func.func @linear_rows(%x: memref<?x8xf32>, %b: index, %s: index) -> memref<?x?x8xf32> {
  %e = memref.expand_shape %x [[0, 1], [2]] output_shape [%b, %s, 8] : memref<?x8xf32> into memref<?x?x8xf32>
  return %e : memref<?x?x8xf32>
}

// -----

// Three dims in one group, a static one between the dynamic ones.
// CHECK-LABEL: func.func @three
// CHECK: memref.reinterpret_cast %{{.+}} to offset: [0], sizes: [%{{.+}}, 3, %{{.+}}], strides: [%{{.+}}, %{{.+}}, 1]
func.func @three(%x: memref<?xf32>, %a: index, %b: index) -> memref<?x3x?xf32> {
  %e = memref.expand_shape %x [[0, 1, 2]] output_shape [%a, 3, %b] : memref<?xf32> into memref<?x3x?xf32>
  return %e : memref<?x3x?xf32>
}

// -----

// One dynamic size per group: expand-strided-metadata handles it, left alone.
// CHECK-LABEL: func.func @one_dynamic
// CHECK: memref.expand_shape
func.func @one_dynamic(%x: memref<?xf32>, %a: index) -> memref<?x4xf32> {
  %e = memref.expand_shape %x [[0, 1]] output_shape [%a, 4] : memref<?xf32> into memref<?x4xf32>
  return %e : memref<?x4xf32>
}
