// --split-input-file: each chunk between `// -----` lines is processed on its
// own (a fresh Context: aliases and symbols do not leak), diagnostics keep the
// line numbers of the whole file, and the outputs are joined by `// -----`
// lines as mlir-opt joins them.
//
// RUN: pto-opt %s --split-input-file | FileCheck %s
// RUN: pto-opt %s '--split-input-file=// -----' | FileCheck %s
//
// A failing chunk: exit 1, its error at its line in this file, the other
// chunks still printed, the failing one empty.
// RUN: not pto-opt %S/Inputs/split-errors.mlir --split-input-file > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
//
// Without the flag the markers are comments: one module, one symbol table.
// RUN: not pto-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE
// WHOLE: split-input-file.mlir:55:1: error: redefinition of type alias id 't'
//
// A custom marker.
// RUN: pto-opt %S/Inputs/split-custom.mlir --split-input-file='// ===' | FileCheck %s --check-prefix=CUSTOM
// CUSTOM: func.func @first
// CUSTOM-NEXT: return
// CUSTOM-NEXT: }
// CUSTOM-NEXT: }
// CUSTOM-EMPTY:
// CUSTOM-NEXT: // -----
// CUSTOM-NEXT: module {
// CUSTOM-NEXT: func.func @second

// CHECK: module {
// CHECK-NEXT: func.func @same() {
// CHECK-NEXT: "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @same() {
// CHECK-NEXT: "pto.alloc_tile"() : () -> !pto.tile_buf<"mat", array<i64: 8, 8>, f16>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: // -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
func.func @same() {
  %t = "pto.alloc_tile"() : () -> !t
  return
}

// -----

// The same alias and symbol names again: nothing leaks from the first chunk.
!t = !pto.tile_buf<"mat", array<i64: 8, 8>, f16>
func.func @same() {
  %t = "pto.alloc_tile"() : () -> !t
  return
}

// ERR: split-errors.mlir:10:8: error: slot 5 is out of range [0, 2)
// ERR-NEXT: %t = "pto.multi_tile_get"(%mb, %c5)
// ERR-NEXT: ^
// ERR: split-errors.mlir:23:22: error: expected attribute value
// ERR-NOT: error

// OUT: func.func @ok1()
// OUT: // -----
// OUT-NEXT: // -----
// OUT-NEXT: module {
// OUT-NEXT: func.func @ok2()
// OUT: // -----
// OUT-NOT: {{.}}
