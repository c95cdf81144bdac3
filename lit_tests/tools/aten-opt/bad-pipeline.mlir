// A bad pipeline is one error line naming the problem, before any input is read.
// RUN: not aten-opt %s -p 'aten-verfy' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not aten-opt %s -p 'func.func(canonicalise)' 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// RUN: not aten-opt %s -p 'aten-drop-dead{keep-random=maybe}' 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not aten-opt %s -p 'aten-verify{strict=true}' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not aten-opt %s -p 'builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not aten-opt %s -p cse --aten-verify 2>&1 | FileCheck %s --check-prefix=BOTH

// UNKNOWN: aten-opt: error: pass pipeline: unknown pass 'aten-verfy' (did you mean 'aten-verify'?)
// UPSTREAM: aten-opt: error: pass pipeline: unknown pass 'canonicalise' (did you mean 'canonicalize'?)
// VALUE: aten-opt: error: aten-drop-dead: option 'keep-random' expects true or false, got 'maybe'
// OPTION: aten-opt: error: aten-verify: unknown option 'strict' (options: allow, target)
// SYNTAX: aten-opt: error: pass pipeline: expected ',' or ')' at column 19 of 'builtin.module(cse'
// BOTH: aten-opt: error: give the passes either as --pass-pipeline or as pass flags, not both
func.func @f() {
  return
}
