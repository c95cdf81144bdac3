// RUN: aten-opt %s -p aten-check-expand-groups --verify-diagnostics --split-input-file

func.func @two_dynamic(%x: memref<?xf32>, %a: index, %b: index) -> memref<?x?xf32> {
  // expected-error @+1 {{'memref.expand_shape' op has a reassociation group with more than one dynamic size}}
  %e = memref.expand_shape %x [[0, 1]] output_shape [%a, %b] : memref<?xf32> into memref<?x?xf32>
  return %e : memref<?x?xf32>
}

// -----

// One dynamic size per group is fine.
func.func @one_dynamic(%x: memref<?xf32>, %a: index) -> memref<?x4xf32> {
  %e = memref.expand_shape %x [[0, 1]] output_shape [%a, 4] : memref<?xf32> into memref<?x4xf32>
  return %e : memref<?x4xf32>
}
