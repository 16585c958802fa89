// One invalid case per type rule (docs/dialect.md, "Types") that the IRDL definition
// (pto_dialect/pto.irdl.mlir) checks: enumerated LOC and DTYPE, a dense-array
// shape, three parameters, a tile_buf slot and a count in 2..16. Stock C++
// mlir-opt gives the same diagnostics (cxx-interop.mlir).
//
// RUN: pto-opt %s --split-input-file --verify-diagnostics

// -- IRDL: LOC is one of vec mat left right acc bias --------------------------

// expected-error@+1 {{'"gm"' does not satisfy the constraint}}
func.func @unknown_loc(%a: !pto.tile_buf<"gm", array<i64: 16, 16>, f32>) {
  return
}

// -----

// LOC is a string, not a keyword.
// expected-error@+1 {{expected attribute value}}
func.func @bare_loc(%a: !pto.tile_buf<vec, array<i64: 16, 16>, f32>) {
  return
}

// -----

// Case matters.
// expected-error@+1 {{'"VEC"' does not satisfy the constraint}}
func.func @upper_loc(%a: !pto.tile_buf<"VEC", array<i64: 16, 16>, f32>) {
  return
}

// -----

// -- IRDL: DTYPE is one of i8 i16 i32 f16 bf16 f32 ---------------------------

// expected-error@+1 {{'f64' does not satisfy the constraint}}
func.func @f64(%a: !pto.tile_buf<"vec", array<i64: 16, 16>, f64>) {
  return
}

// -----

// expected-error@+1 {{'i64' does not satisfy the constraint}}
func.func @i64(%a: !pto.tile_buf<"vec", array<i64: 16, 16>, i64>) {
  return
}

// -----

// expected-error@+1 {{'i1' does not satisfy the constraint}}
func.func @i1(%a: !pto.tile_buf<"vec", array<i64: 16, 16>, i1>) {
  return
}

// -----

// -- IRDL: parameter count and kinds --------------------------------------------

// expected-error@+1 {{expected 3 type arguments, but had 2}}
func.func @two_params(%a: !pto.tile_buf<"vec", array<i64: 16, 16>>) {
  return
}

// -----

// expected-error@+1 {{expected base attribute 'builtin.dense_array' but got 'builtin.dense_int_or_fp_elements'}}
func.func @dense_shape(%a: !pto.tile_buf<"vec", dense<[16, 16]> : tensor<2xi64>, f32>) {
  return
}

// -----

// expected-error@+1 {{expected dynamic type}}
func.func @unknown_type(%a: !pto.tile) {
  return
}

// -----

// -- IRDL: multi_tile_buf<SLOT, N : i64>, SLOT a tile_buf, 2 <= N <= 16 -----------

// expected-error@+1 {{'1 : i64' does not satisfy the constraint}}
func.func @count1(%a: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 1 : i64>) {
  return
}

// -----

// expected-error@+1 {{'17 : i64' does not satisfy the constraint}}
func.func @count17(%a: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 17 : i64>) {
  return
}

// -----

// expected-error@+1 {{'0 : i64' does not satisfy the constraint}}
func.func @count0(%a: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 0 : i64>) {
  return
}

// -----

// expected-error@+1 {{'2 : i32' does not satisfy the constraint}}
func.func @count_i32(%a: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i32>) {
  return
}

// -----

// expected-error@+1 {{expected base type 'pto.tile_buf' but got 'builtin.f32'}}
func.func @slot_not_tile(%a: !pto.multi_tile_buf<f32, 2 : i64>) {
  return
}

// -----

// A slot type that breaks IRDL is reported through the multi_tile_buf.
// expected-error@+1 {{'f64' does not satisfy the constraint}}
func.func @bad_slot(%a: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f64>, 2 : i64>) {
  return
}
