// One invalid case per rule of the pto verifier (pto_dialect/verifier.py,
// docs/dialect.md, "Verification"), each next to the valid case at its boundary. Type rules
// (rank 2, positive dims, fits the space) are in invalid-types.mlir.
//
// RUN: pto-opt %s --split-input-file --verify-diagnostics

// -- multi_tile_get: a constant slot is in [0, N) -----------------------------

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @slot_5_of_2(%mb: !pto.multi_tile_buf<!v, 2 : i64>) {
  %c5 = arith.constant 5 : index
  // expected-error@+1 {{slot 5 is out of range [0, 2)}}
  %t = "pto.multi_tile_get"(%mb, %c5) : (!pto.multi_tile_buf<!v, 2 : i64>, index) -> !v
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @slot_n(%mb: !pto.multi_tile_buf<!v, 4 : i64>) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %last = "pto.multi_tile_get"(%mb, %c3) : (!pto.multi_tile_buf<!v, 4 : i64>, index) -> !v
  // expected-error@+1 {{slot 4 is out of range [0, 4)}}
  %t = "pto.multi_tile_get"(%mb, %c4) : (!pto.multi_tile_buf<!v, 4 : i64>, index) -> !v
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @slot_negative(%mb: !pto.multi_tile_buf<!v, 2 : i64>) {
  %cm1 = arith.constant -1 : index
  // expected-error@+1 {{slot -1 is out of range [0, 2)}}
  %t = "pto.multi_tile_get"(%mb, %cm1) : (!pto.multi_tile_buf<!v, 2 : i64>, index) -> !v
  return
}

// -----

// A slot computed at run time is not checked.
!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @slot_dynamic(%mb: !pto.multi_tile_buf<!v, 2 : i64>, %i: index) {
  %t = "pto.multi_tile_get"(%mb, %i) : (!pto.multi_tile_buf<!v, 2 : i64>, index) -> !v
  return
}

// -----

// -- addr: non-negative, aligned for its space, the buffer ends inside it ------

func.func @vec_unaligned() {
  %a = arith.constant 16 : i64
  // expected-error@+1 {{addr 16 is not aligned to 32 bytes (space "vec")}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @vec_aligned() {
  %a = arith.constant 32 : i64
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @acc_unaligned() {
  %a = arith.constant 256 : i64
  // expected-error@+1 {{addr 256 is not aligned to 512 bytes (space "acc")}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"acc", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @acc_aligned() {
  %a = arith.constant 512 : i64
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"acc", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @left_unaligned_multi() {
  %a = arith.constant 32 : i64
  // expected-error@+1 {{addr 32 is not aligned to 512 bytes (space "left")}}
  %mb = "pto.alloc_multi_tile"(%a) : (i64) -> !pto.multi_tile_buf<!pto.tile_buf<"left", array<i64: 16, 16>, f16>, 2 : i64>
  return
}

// -----

func.func @negative_addr() {
  %a = arith.constant -32 : i64
  // expected-error@+1 {{addr must be non-negative, got -32}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @ends_beyond_vec() {
  %a = arith.constant 196096 : i64
  // expected-error@+1 {{buffer at addr 196096 of 1024 bytes ends at 197120, beyond space "vec" (196608 bytes on a3)}}
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

// Ending exactly at the capacity is fine.
func.func @ends_at_vec_end() {
  %a = arith.constant 195584 : i64
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

// A multi-tile region is N strides long.
func.func @multi_ends_beyond() {
  %a = arith.constant 195584 : i64
  // expected-error@+1 {{buffer at addr 195584 of 2048 bytes ends at 197632, beyond space "vec" (196608 bytes on a3)}}
  %mb = "pto.alloc_multi_tile"(%a) : (i64) -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>
  return
}

// -----

// The stride is the slot size aligned up: 2 slots of 1000 bytes in acc take
// 2 * 1024 bytes.
func.func @multi_stride_aligned() {
  %a = arith.constant 130048 : i64
  // expected-error@+1 {{buffer at addr 130048 of 2048 bytes ends at 132096, beyond space "acc" (131072 bytes on a3)}}
  %mb = "pto.alloc_multi_tile"(%a) : (i64) -> !pto.multi_tile_buf<!pto.tile_buf<"acc", array<i64: 10, 25>, f32>, 2 : i64>
  return
}

// -----

// An addr computed at run time is not checked.
func.func @addr_dynamic(%a: i64) {
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

// -- capacity depends on pto.target_arch ---------------------------------------

// 256x224xf32 = 229376 bytes: more than vec on a3 (196608) ...
module attributes {pto.target_arch = "a3"} {
  func.func @big_vec_a3() {
    // expected-error@+1 {{tile of 229376 bytes does not fit in space "vec" (196608 bytes on a3)}}
    %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 256, 224>, f32>
    return
  }
}

// -----

// ... and on a2 ...
module attributes {pto.target_arch = "a2"} {
  func.func @big_vec_a2() {
    // expected-error@+1 {{tile of 229376 bytes does not fit in space "vec" (196608 bytes on a2)}}
    %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 256, 224>, f32>
    return
  }
}

// -----

// ... but within vec on a5 (253952).
module attributes {pto.target_arch = "a5"} {
  func.func @big_vec_a5() {
    %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 256, 224>, f32>
    return
  }
}

// -----

// acc: 131072 bytes on a3, 262144 on a5.
module attributes {pto.target_arch = "a5"} {
  func.func @acc_a5() {
    %a = arith.constant 131072 : i64
    %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"acc", array<i64: 128, 256>, f32>
    // expected-error@+1 {{tile of 393216 bytes does not fit in space "acc" (262144 bytes on a5)}}
    %u = "pto.alloc_tile"() : () -> !pto.tile_buf<"acc", array<i64: 384, 256>, f32>
    return
  }
}

// -----

// expected-error@+1 {{'pto.target_arch' must be one of 'a2', 'a3', 'a5', got "a9"}}
module attributes {pto.target_arch = "a9"} {
}

// -----

// expected-error@+1 {{'pto.target_arch' must be one of 'a2', 'a3', 'a5', got 3 : i64}}
module attributes {pto.target_arch = 3} {
}

// -----

// -- pto.pipeline_stages: an i64 >= 1 on an scf.for ----------------------------

func.func @stages_zero() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error@+1 {{'pto.pipeline_stages' must be an i64 integer >= 1, got 0 : i64}}
  scf.for %i = %c0 to %c4 step %c1 {
  } {pto.pipeline_stages = 0 : i64}
  return
}

// -----

func.func @stages_negative() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'pto.pipeline_stages' must be an i64 integer >= 1, got -2 : i64}}
  scf.for %i = %c0 to %c1 step %c1 {
  } {pto.pipeline_stages = -2 : i64}
  return
}

// -----

func.func @stages_i32() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'pto.pipeline_stages' must be an i64 integer >= 1, got 2 : i32}}
  scf.for %i = %c0 to %c1 step %c1 {
  } {pto.pipeline_stages = 2 : i32}
  return
}

// -----

func.func @stages_string() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'pto.pipeline_stages' must be an i64 integer >= 1, got "2"}}
  scf.for %i = %c0 to %c1 step %c1 {
  } {pto.pipeline_stages = "2"}
  return
}

// -----

// N = 1 (handled) and N >= 2 are both valid.
func.func @stages_valid() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
  } {pto.pipeline_stages = 1 : i64}
  scf.for %i = %c0 to %c1 step %c1 {
  } {pto.pipeline_stages = 16 : i64}
  return
}

// -----

// expected-error@+1 {{'pto.pipeline_stages' is only allowed on scf.for}}
func.func @stages_on_func() attributes {pto.pipeline_stages = 2 : i64} {
  return
}

// -----

func.func @stages_on_while(%b: i1) {
  // expected-error@+1 {{'pto.pipeline_stages' is only allowed on scf.for}}
  scf.while : () -> () {
    scf.condition(%b)
  } do {
    scf.yield
  } attributes {pto.pipeline_stages = 2 : i64}
  return
}

// -----

// -- matmul shapes: (M x K) @ (K x N) -> (M x N) --------------------------------

func.func @matmul_k_mismatch(%l: !pto.tile_buf<"left", array<i64: 16, 32>, f16>,
                             %r: !pto.tile_buf<"right", array<i64: 16, 16>, f16>,
                             %c: !pto.tile_buf<"acc", array<i64: 16, 16>, f32>) {
  // expected-error@+1 {{matmul shapes do not agree: lhs 16x32 @ rhs 16x16 cannot give 16x16}}
  "pto.tmatmul"(%l, %r, %c) : (!pto.tile_buf<"left", array<i64: 16, 32>, f16>, !pto.tile_buf<"right", array<i64: 16, 16>, f16>, !pto.tile_buf<"acc", array<i64: 16, 16>, f32>) -> ()
  return
}

// -----

func.func @matmul_dst_mismatch(%l: !pto.tile_buf<"left", array<i64: 16, 32>, f16>,
                               %r: !pto.tile_buf<"right", array<i64: 32, 8>, f16>,
                               %c: !pto.tile_buf<"acc", array<i64: 8, 16>, f32>) {
  // expected-error@+1 {{matmul shapes do not agree: lhs 16x32 @ rhs 32x8 cannot give 8x16}}
  "pto.tmatmul"(%l, %r, %c) : (!pto.tile_buf<"left", array<i64: 16, 32>, f16>, !pto.tile_buf<"right", array<i64: 32, 8>, f16>, !pto.tile_buf<"acc", array<i64: 8, 16>, f32>) -> ()
  return
}

// -----

func.func @matmul_acc_mismatch(%l: !pto.tile_buf<"left", array<i64: 16, 32>, f16>,
                               %r: !pto.tile_buf<"right", array<i64: 32, 8>, f16>,
                               %c: !pto.tile_buf<"acc", array<i64: 16, 16>, f32>) {
  // expected-error@+1 {{matmul shapes do not agree: lhs 16x32 @ rhs 32x8 cannot give 16x16}}
  "pto.tmatmul_acc"(%l, %r, %c) : (!pto.tile_buf<"left", array<i64: 16, 32>, f16>, !pto.tile_buf<"right", array<i64: 32, 8>, f16>, !pto.tile_buf<"acc", array<i64: 16, 16>, f32>) -> ()
  return
}

// -----

// -- tload / tstore: rank-2 memref of the tile's dtype, constant offsets in bounds

func.func @tload_rank1(%m: memref<256xf32>, %t: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{memref must have rank 2, got memref<256xf32>}}
  "pto.tload"(%m, %c0, %c0, %t) : (memref<256xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  return
}

// -----

func.func @tstore_rank3(%m: memref<2x64x64xf32>, %t: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{memref must have rank 2, got memref<2x64x64xf32>}}
  "pto.tstore"(%t, %m, %c0, %c0) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, memref<2x64x64xf32>, index, index) -> ()
  return
}

// -----

func.func @tload_dtype(%m: memref<64x64xf16>, %t: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{memref element type f16 does not match tile element type f32}}
  "pto.tload"(%m, %c0, %c0, %t) : (memref<64x64xf16>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  return
}

// -----

func.func @tstore_dtype(%m: memref<64x64xi32>, %t: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{memref element type i32 does not match tile element type f32}}
  "pto.tstore"(%t, %m, %c0, %c0) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, memref<64x64xi32>, index, index) -> ()
  return
}

// -----

func.func @tload_row_oob(%m: memref<64x64xf32>, %t: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %c49 = arith.constant 49 : index
  // The last in-bounds row offset.
  "pto.tload"(%m, %c48, %c0, %t) : (memref<64x64xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  // expected-error@+1 {{row range [49, 65) is out of bounds of memref<64x64xf32> (dimension 0 has 64)}}
  "pto.tload"(%m, %c49, %c0, %t) : (memref<64x64xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  return
}

// -----

func.func @tstore_col_oob(%m: memref<64x20xf32>, %t: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  // expected-error@+1 {{col range [8, 24) is out of bounds of memref<64x20xf32> (dimension 1 has 20)}}
  "pto.tstore"(%t, %m, %c0, %c8) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, memref<64x20xf32>, index, index) -> ()
  return
}

// -----

func.func @tstore_negative_offset(%m: memref<64x64xf32>, %t: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) {
  %c0 = arith.constant 0 : index
  %cm1 = arith.constant -1 : index
  // expected-error@+1 {{col range [-1, 15) is out of bounds of memref<64x64xf32> (dimension 1 has 64)}}
  "pto.tstore"(%t, %m, %c0, %cm1) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, memref<64x64xf32>, index, index) -> ()
  return
}

// -----

// A tile larger than the whole memref.
func.func @tload_tile_larger(%m: memref<8x8xf32>, %t: !pto.tile_buf<"vec", array<i64: 16, 4>, f32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{row range [0, 16) is out of bounds of memref<8x8xf32> (dimension 0 has 8)}}
  "pto.tload"(%m, %c0, %c0, %t) : (memref<8x8xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 4>, f32>) -> ()
  return
}

// -----

// Dynamic memref sizes and dynamic offsets are not checked.
func.func @tload_dynamic(%m: memref<?x64xf32>, %r: index, %t: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) {
  %c100 = arith.constant 100 : index
  "pto.tload"(%m, %c100, %r, %t) : (memref<?x64xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  return
}

// -----

// Every violation is reported, not only the first.
func.func @several(%mb: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>) {
  %c2 = arith.constant 2 : index
  %a = arith.constant 1 : i64
  // expected-error@+1 {{slot 2 is out of range [0, 2)}}
  %t = "pto.multi_tile_get"(%mb, %c2) : (!pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>, index) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  // expected-error@+1 {{addr 1 is not aligned to 32 bytes (space "mat")}}
  %u = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"mat", array<i64: 16, 16>, f32>
  return
}
