// Input from a file or stdin, output to stdout or -o, and what happens when
// either cannot be opened.
//
// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt < %s | FileCheck %s
// RUN: pto-opt - < %s | FileCheck %s
// RUN: cat %s | pto-opt - | FileCheck %s
//
// RUN: rm -f %t.out
// RUN: pto-opt %s -o %t.out | FileCheck %s --allow-empty --check-prefix=EMPTY
// EMPTY-NOT: {{.}}
// RUN: FileCheck %s < %t.out
// RUN: pto-opt %s -o=%t.eq
// RUN: FileCheck %s < %t.eq
// RUN: pto-opt %s -o - | FileCheck %s
//
// An input that does not exist, or is a directory:
// RUN: not pto-opt %t.does-not-exist 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not pto-opt %S 2>&1 | FileCheck %s --check-prefix=DIR
// NOFILE: pto-opt: error: could not open input file '{{.*}}does-not-exist': No such file or directory
// DIR: pto-opt: error: could not open input file '{{.*}}': Is a directory
//
// An output that cannot be written:
// RUN: not pto-opt %s -o %t.missing-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=NOOUT
// NOOUT: pto-opt: error: could not open output file '{{.*}}missing-dir/out.mlir': No such file or directory
//
// A failing run writes no output file (like mlir-opt, which keeps it only on success).
// RUN: rm -f %t.fail
// RUN: not pto-opt %S/Inputs/invalid.mlir -o %t.fail 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: not ls %t.fail
// FAIL: invalid.mlir:4:8: error: addr 16 is not aligned to 32 bytes (space "vec")
//
// Diagnostics name stdin as mlir-opt does.
// RUN: not pto-opt < %S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: <stdin>:4:8: error: addr 16 is not aligned

// CHECK: module {
// CHECK-NEXT: func.func @io() {
// CHECK-NEXT: "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
// CHECK-NEXT: return
func.func @io() {
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}
