// One invalid case per type rule (docs/dialect.md, "Types") that IRDL cannot express,
// checked by the pto verifier (pto_dialect/verifier.py): rank 2, positive
// dims, an i64 shape, a tile or N slots that fit their space. The IRDL type
// rules are in invalid-types-irdl.mlir.
//
// RUN: pto-opt %s --split-input-file --verify-diagnostics

// -- verifier: shape is array<i64: R, C>, R > 0, C > 0 ----------------------

func.func @rank1() {
  // expected-error@+1 {{invalid type !pto.tile_buf<"vec", array<i64: 16>, f32>: shape must have rank 2, got rank 1}}
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16>, f32>
  return
}

// -----

func.func @rank3() {
  // expected-error@+1 {{shape must have rank 2, got rank 3}}
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 2, 4, 4>, f32>
  return
}

// -----

func.func @rank0() {
  // expected-error@+1 {{shape must have rank 2, got rank 0}}
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64>, f32>
  return
}

// -----

func.func @zero_rows() {
  // expected-error@+1 {{shape dimensions must be positive, got 0x16}}
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 0, 16>, f32>
  return
}

// -----

func.func @negative_cols() {
  // expected-error@+1 {{shape dimensions must be positive, got 16x-4}}
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, -4>, f32>
  return
}

// -----

// The type rules hold for block arguments too (reported at the region's op).
// expected-error@+1 {{invalid type !pto.tile_buf<"mat", array<i64: 0, 0>, f16>: shape dimensions must be positive}}
func.func @arg(%a: !pto.tile_buf<"mat", array<i64: 0, 0>, f16>) {
  return
}

// -----

// ... and for a function declaration's signature, which has no block arguments.
// expected-error@+1 {{invalid type !pto.tile_buf<"vec", array<i64: 16>, f32>: shape must have rank 2}}
func.func private @decl(!pto.tile_buf<"vec", array<i64: 16>, f32>) -> i32

// -----

// ... and for pto types nested in other types.
// expected-error@+1 {{invalid type !pto.tile_buf<"acc", array<i64: 1, 0>, f32>: shape dimensions must be positive}}
func.func private @nested(tuple<i32, !pto.tile_buf<"acc", array<i64: 1, 0>, f32>>)

// -----

func.func @i32_shape() {
  // expected-error@+1 {{shape must be an array<i64: R, C>, got array<i32: ...>}}
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i32: 16, 16>, f32>
  return
}

// -----

func.func @multi_bad_slot_shape() {
  // expected-error@+1 {{invalid type !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 0>, f32>, 2 : i64>: shape dimensions must be positive, got 16x0}}
  %mb = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 0>, f32>, 2 : i64>
  return
}

// -----

// `array<index: ...>` makes the MLIR parser assert; pto-opt reports it instead.
// expected-error@+1 {{expected integer or float type, got: 'index'}}
func.func @index_shape(%a: !pto.tile_buf<"vec", array<index: 16, 16>, f32>) {
  return
}

// -----

// -- verifier: a tile fits its space (a3 by default) -------------------------------

func.func @too_big_vec() {
  // expected-error@+1 {{tile of 229376 bytes does not fit in space "vec" (196608 bytes on a3)}}
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 256, 224>, f32>
  return
}

// -----

func.func @too_big_left() {
  // expected-error@+1 {{tile of 131072 bytes does not fit in space "left" (65536 bytes on a3)}}
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"left", array<i64: 256, 256>, f16>
  return
}

// -----

// The largest vec tile that fits is accepted: exactly the capacity.
func.func @exactly_full() {
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 192, 256>, f32>
  return
}

// -----

// N slots of the aligned slot size must fit as well.
func.func @multi_too_big() {
  // expected-error@+1 {{4 slots of 65536 bytes (stride 65536) need 262144 bytes, more than space "vec" has (196608 bytes on a3)}}
  %mb = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 128, 128>, f32>, 4 : i64>
  return
}

// -----

// The stride rounds each slot up to the space's alignment: 3 slots of 21760
// bytes would fit left (65280 <= 65536), 3 strides of 22016 do not.
func.func @multi_stride_counts() {
  // expected-error@+1 {{3 slots of 21760 bytes (stride 22016) need 66048 bytes, more than space "left" has (65536 bytes on a3)}}
  %mb = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"left", array<i64: 1, 10880>, f16>, 3 : i64>
  return
}
