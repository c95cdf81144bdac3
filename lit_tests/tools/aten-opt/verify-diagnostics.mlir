// RUN: aten-opt %s --split-input-file --verify-diagnostics -p aten-verify

// Every expected diagnostic is produced and nothing else: exit status 0, although the pass
// fails. Designators: @+N, @-N, @above, @below, -re, and diagnostics from the parser.
func.func @designators(%a: tensor<2xf32>) {
  // expected-error@+1 {{'aten.relu' op has unknown attributes}}
  %0 = "aten.relu"(%a) {x = 1} : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "aten.neg"(%a) {x = 1} : (tensor<2xf32>) -> tensor<2xf32>
  // expected-error@-1 {{'aten.neg' op has unknown attributes}}
  %2 = "aten.exp"(%a) {x = 1} : (tensor<2xf32>) -> tensor<2xf32>
  // Comments without a designator count as lines.
  // expected-error@-2 {{'aten.exp' op has unknown attributes}}
  return
}

// -----

// Two diagnostics on one line; @above and @below skip lines holding designators.
func.func @two_on_a_line(%a: tensor<2xf32>) {
  // expected-error@below {{requires attribute 'alpha'}}
  // expected-error-re@below {{has unknown attributes ['{{[a-z]}}'] (schema: {{.*}})}}
  %0 = "aten.add.Tensor"(%a, %a) {x = 1} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "aten.sub.Tensor"(%a, %a) {y = 1} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // expected-error@above {{'aten.sub.Tensor' op requires attribute 'alpha'}}
  // expected-error@above {{'aten.sub.Tensor' op has unknown attributes ['y']}}
  return
}

// -----

func.func @parse_error() {
  // expected-error@+1 {{use of undeclared SSA value name}}
  "aten.relu"(%nope) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// A chunk without diagnostics needs no expectations.
func.func @fine(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
