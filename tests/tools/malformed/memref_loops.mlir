func.func @main(%a: memref<4x8xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %sum = scf.for %j = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %a[%i, %j] : memref<4x8xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %sum, %out[%i] : memref<4xf32>
  }
  %view = memref.subview %a[0, 2] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 2>>
  return
}
