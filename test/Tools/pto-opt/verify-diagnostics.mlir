// --verify-diagnostics: every expected-* comment must be matched by a
// diagnostic at its line with its severity, and every diagnostic (notes
// included) must be expected. Same designators as mlir-opt.
//
// RUN: pto-opt %s --split-input-file --verify-diagnostics
//
// The same file without the flag fails with these diagnostics.
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN: verify-diagnostics.mlir:[[# @LINE + 12]]:8: error: addr 16 is not aligned
//
// Mismatches fail the run and say where (Inputs/verify-mismatches.mlir).
// RUN: not pto-opt %S/Inputs/verify-mismatches.mlir --split-input-file --verify-diagnostics 2> %t.err
// RUN: FileCheck %S/Inputs/verify-mismatches.mlir < %t.err
// RUN: not grep Traceback %t.err

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @plus_one() {
  %a = arith.constant 16 : i64
  // expected-error@+1 {{addr 16 is not aligned to 32 bytes (space "vec")}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !v
  return
}

// -----

func.func @plus_n() {
  %a = arith.constant 16 : i64
  // expected-error@+3 {{addr 16 is not aligned}}
  // Between the designator and its line: any text, even
  // another comment.
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @minus_one() {
  %a = arith.constant 16 : i64
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  // expected-error@-1 {{not aligned to 32 bytes}}
  return
}

// -----

func.func @same_line() {
  %a = arith.constant 16 : i64
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32> // expected-error {{addr 16}}
  return
}

// -----

func.func @above() {
  %a = arith.constant 16 : i64
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  // expected-error@above {{addr 16 is not aligned}}
  return
}

// -----

func.func @below() {
  %a = arith.constant 16 : i64
  // expected-error@below {{addr 16 is not aligned}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @regex() {
  %a = arith.constant 48 : i64
  // expected-error-re@+1 {{addr {{[0-9]+}} is not aligned to {{(32|512)}} bytes (space "{{[a-z]+}}")}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

// Several diagnostics on one line: two ops, two expectations.
func.func @two() {
  %a = arith.constant 16 : i64
  // expected-error@+2 {{addr 16 is not aligned to 32 bytes (space "vec")}}
  // expected-error@+1 {{addr 16 is not aligned to 512 bytes (space "acc")}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32> %u = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"acc", array<i64: 16, 16>, f32>
  return
}

// -----

// expected-note@+1 {{see existing symbol definition here}}
func.func @twice() {
  return
}
// expected-error@+1 {{redefinition of symbol named 'twice'}}
func.func @twice() {
  return
}

// -----

// A chunk without diagnostics needs no expectations.
func.func @clean() {
  return
}
