// Ops no decomposition exists for (KEPT_WHOLE) fail the strict check, with their reason, and
// pass with allow-kept-whole; an op that has a rule fails both.
// RUN: aten-opt %s --split-input-file --verify-diagnostics -p aten-check-target
// RUN: not aten-opt %s --split-input-file -p 'aten-check-target{allow-kept-whole}' 2>&1 >/dev/null | FileCheck %s --check-prefix=ALLOW

// ALLOW-NOT: lgamma
// ALLOW-NOT: linalg_qr
// ALLOW: error: 'aten.silu' op is outside the target set 'core'
// ALLOW-NOT: error

func.func @lgamma(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{'aten.lgamma' op is outside the target set 'core' (kept whole: torch lowers it only to prims.lgamma}}
  %0 = "aten.lgamma"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @qr(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'aten.linalg_qr' op is outside the target set 'core' (kept whole: Householder QR via LAPACK}}
  %q, %r = "aten.linalg_qr"(%a) {mode = "reduced"} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>)
  return %q : tensor<4x3xf32>
}

// -----

func.func @has_a_rule(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{'aten.silu' op is outside the target set 'core'}}
  %0 = "aten.silu"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
