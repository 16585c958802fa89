// Each chunk breaks --verify-diagnostics in one way; the CHECK lines are
// what pto-opt reports for it (checked by ../verify-diagnostics.mlir).

func.func @unexpected() {
  %a = arith.constant 16 : i64
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}
// CHECK: verify-mismatches.mlir:6:8: error: unexpected error: addr 16 is not aligned to 32 bytes (space "vec")

// -----

func.func @missing() {
  // expected-error@+1 {{never produced}}
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}
// CHECK: verify-mismatches.mlir:14:6: error: expected error "never produced" was not produced

// -----

func.func @wrong_severity() {
  %a = arith.constant 16 : i64
  // expected-warning@+1 {{addr 16 is not aligned}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}
// CHECK: verify-mismatches.mlir:24:6: error: 'error' diagnostic emitted when expecting a 'warning'
// CHECK: verify-mismatches.mlir:24:6: error: expected warning "addr 16 is not aligned" was not produced

// -----

func.func @wrong_line() {
  %a = arith.constant 16 : i64
  // expected-error@+2 {{addr 16 is not aligned}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}
// CHECK: verify-mismatches.mlir:36:8: error: unexpected error: addr 16 is not aligned
// CHECK: verify-mismatches.mlir:35:6: error: expected error "addr 16 is not aligned" was not produced

// -----

func.func @wrong_text() {
  %a = arith.constant 16 : i64
  // expected-error@+1 {{addr 32 is not aligned}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}
// CHECK: verify-mismatches.mlir:47:8: error: unexpected error: addr 16 is not aligned
// CHECK: verify-mismatches.mlir:46:6: error: expected error "addr 32 is not aligned" was not produced

// -----

// An unexpected note fails the run too.
func.func @twice() {
  return
}
// expected-error@+1 {{redefinition of symbol named 'twice'}}
func.func @twice() {
  return
}
// CHECK: verify-mismatches.mlir:56:1: error: unexpected note: see existing symbol definition here

// -----

func.func @bad_regex() {
  // expected-error-re@+1 {{slot {{[}} is}}
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}
// CHECK: verify-mismatches.mlir:68:6: error: invalid regex in expected-error-re
// CHECK-NOT: error:
