// RUN: aten-opt --list-passes | FileCheck %s
// RUN: aten-opt --help | FileCheck %s --check-prefix=HELP
// RUN: aten-opt --version | FileCheck %s --check-prefix=VERSION

// CHECK: aten passes
// CHECK: aten-drop-dead
// CHECK-NEXT: Erases aten ops whose results are all unused
// CHECK-NEXT: keep-random=<bool> {{.*}} (default: true)
// CHECK: aten-verify
// CHECK-NEXT: Checks every aten op against its PyTorch schema
// CHECK-NEXT: target=<str> {{.*}} (default: all)
// CHECK-NEXT: allow=<str,...> {{.*}} (default: none)
// CHECK: Upstream MLIR passes are accepted too

// HELP: usage: aten-opt
// HELP: --split-input-file
// HELP: --verify-diagnostics
// HELP: aten-opt --import model.pt2

// VERSION: aten-opt (aten-mlir {{[0-9.]+}}, MLIR bindings {{[0-9.]+}}, torch {{.+}})
