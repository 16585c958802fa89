// One invalid case per op rule that IRDL checks (pto.irdl.mlir): operand and
// result counts and kinds, and the type equalities tied through constraint
// variables (same shape/dtype, slot type, matmul spaces).
//
// RUN: pto-opt %s --split-input-file --verify-diagnostics

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @unknown_op() {
  // expected-error@+1 {{unregistered operation 'pto.tfoo' found in dialect ('pto') that does not allow unknown operations}}
  "pto.tfoo"() : () -> ()
  return
}

// -----

// -- alloc_tile / alloc_multi_tile: optional i64 addr, one result of the right type

func.func @alloc_result_not_tile() {
  // expected-error@+1 {{expected base type 'pto.tile_buf' but got 'builtin.f32'}}
  %t = "pto.alloc_tile"() : () -> f32
  return
}

// -----

func.func @alloc_no_result() {
  // expected-error@+1 {{op expects exactly 1 results, but got 0}}
  "pto.alloc_tile"() : () -> ()
  return
}

// -----

func.func @alloc_addr_i32() {
  %a = arith.constant 0 : i32
  // expected-error@+1 {{expected 'i64' but got 'i32'}}
  %t = "pto.alloc_tile"(%a) : (i32) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @alloc_two_addrs() {
  %a = arith.constant 0 : i64
  // expected-error@+1 {{op expects at most 1 operands, but got 2}}
  %t = "pto.alloc_tile"(%a, %a) : (i64, i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @alloc_multi_result_is_tile() {
  // expected-error@+1 {{expected base type 'pto.multi_tile_buf' but got 'pto.tile_buf'}}
  %t = "pto.alloc_multi_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @alloc_multi_addr_index(%a: index) {
  // expected-error@+1 {{expected 'i64' but got 'index'}}
  %t = "pto.alloc_multi_tile"(%a) : (index) -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>
  return
}

// -----

// -- multi_tile_get: (multi_tile_buf<T, N>, index) -> T --------------------------

func.func @get_result_not_slot_type(%mb: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>, %i: index) {
  // expected-error@+1 {{expected '!pto.tile_buf<"vec", array<i64: 16, 16>, f32>' but got '!pto.tile_buf<"vec", array<i64: 16, 8>, f32>'}}
  %t = "pto.multi_tile_get"(%mb, %i) : (!pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>, index) -> !pto.tile_buf<"vec", array<i64: 16, 8>, f32>
  return
}

// -----

func.func @get_result_other_space(%mb: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>, %i: index) {
  // expected-error@+1 {{expected '!pto.tile_buf<"vec", array<i64: 16, 16>, f32>' but got '!pto.tile_buf<"mat", array<i64: 16, 16>, f32>'}}
  %t = "pto.multi_tile_get"(%mb, %i) : (!pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>, index) -> !pto.tile_buf<"mat", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @get_slot_i64(%mb: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>, %i: i64) {
  // expected-error@+1 {{expected 'index' but got 'i64'}}
  %t = "pto.multi_tile_get"(%mb, %i) : (!pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>, i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @get_from_tile(%t: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, %i: index) {
  // expected-error@+1 {{expected base type 'pto.multi_tile_buf' but got '!pto.tile_buf<"vec", array<i64: 16, 16>, f32>'}}
  %g = "pto.multi_tile_get"(%t, %i) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, index) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @get_no_slot(%mb: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>) {
  // expected-error@+1 {{op expects exactly 2 operands, but got 1}}
  %t = "pto.multi_tile_get"(%mb) : (!pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// -- tload / tstore ------------------------------------------------------------------

func.func @tload_from_tensor(%a: !v, %m: tensor<16x16xf32>, %i: index) {
  // expected-error@+1 {{expected base type 'builtin.memref' but got 'builtin.tensor'}}
  "pto.tload"(%m, %i, %i, %a) : (tensor<16x16xf32>, index, index, !v) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tload_i32_row(%a: !v, %m: memref<16x16xf32>, %i: index, %r: i32) {
  // expected-error@+1 {{expected 'index' but got 'i32'}}
  "pto.tload"(%m, %r, %i, %a) : (memref<16x16xf32>, i32, index, !v) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tload_missing_col(%a: !v, %m: memref<16x16xf32>, %i: index) {
  // expected-error@+1 {{op expects exactly 4 operands, but got 3}}
  "pto.tload"(%m, %i, %a) : (memref<16x16xf32>, index, !v) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tload_result(%a: !v, %m: memref<16x16xf32>, %i: index) {
  // expected-error@+1 {{op expects exactly 0 results, but got 1}}
  %r = "pto.tload"(%m, %i, %i, %a) : (memref<16x16xf32>, index, index, !v) -> i32
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tstore_operand_order(%a: !v, %m: memref<16x16xf32>, %i: index) {
  // expected-error@+1 {{expected base type 'pto.tile_buf' but got 'builtin.memref'}}
  "pto.tstore"(%m, %a, %i, %i) : (memref<16x16xf32>, !v, index, index) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// -- binary elementwise: same shape and dtype, three operands -------------------

func.func @tadd_two_operands(%a: !v) {
  // expected-error@+1 {{op expects exactly 3 operands, but got 2}}
  "pto.tadd"(%a, %a) : (!v, !v) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tadd_shape(%a: !v, %b: !pto.tile_buf<"vec", array<i64: 16, 8>, f32>) {
  // expected-error@+1 {{expected 'array<i64: 16, 16>' but got 'array<i64: 16, 8>'}}
  "pto.tadd"(%a, %b, %a) : (!v, !pto.tile_buf<"vec", array<i64: 16, 8>, f32>, !v) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tsub_dtype(%a: !v, %b: !pto.tile_buf<"vec", array<i64: 16, 16>, f16>) {
  // expected-error@+1 {{expected 'f32' but got 'f16'}}
  "pto.tsub"(%a, %b, %a) : (!v, !pto.tile_buf<"vec", array<i64: 16, 16>, f16>, !v) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tmul_dst_shape(%a: !v, %d: !pto.tile_buf<"vec", array<i64: 8, 16>, f32>) {
  // expected-error@+1 {{expected 'array<i64: 16, 16>' but got 'array<i64: 8, 16>'}}
  "pto.tmul"(%a, %a, %d) : (!v, !v, !pto.tile_buf<"vec", array<i64: 8, 16>, f32>) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tmax_dst_dtype(%a: !v, %d: !pto.tile_buf<"vec", array<i64: 16, 16>, i32>) {
  // expected-error@+1 {{expected 'f32' but got 'i32'}}
  "pto.tmax"(%a, %a, %d) : (!v, !v, !pto.tile_buf<"vec", array<i64: 16, 16>, i32>) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tmin_memref(%a: !v, %m: memref<16x16xf32>) {
  // expected-error@+1 {{expected base type 'pto.tile_buf' but got 'memref<16x16xf32>'}}
  "pto.tmin"(%a, %m, %a) : (!v, memref<16x16xf32>, !v) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// -- scalar ops: tile, scalar (int, index or float), tile -------------------------

func.func @tadds_vector_scalar(%a: !v, %s: vector<4xf32>) {
  // expected-error@+1 {{'vector<4xf32>' does not satisfy the constraint}}
  "pto.tadds"(%a, %s, %a) : (!v, vector<4xf32>, !v) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tmuls_tile_scalar(%a: !v) {
  // expected-error@+1 {{does not satisfy the constraint}}
  "pto.tmuls"(%a, %a, %a) : (!v, !v, !v) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tmuls_shape(%a: !v, %s: f32, %d: !pto.tile_buf<"vec", array<i64: 16, 32>, f32>) {
  // expected-error@+1 {{expected 'array<i64: 16, 16>' but got 'array<i64: 16, 32>'}}
  "pto.tmuls"(%a, %s, %d) : (!v, f32, !pto.tile_buf<"vec", array<i64: 16, 32>, f32>) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// -- unary: same shape and dtype --------------------------------------------------

func.func @texp_dtype(%a: !v, %d: !pto.tile_buf<"vec", array<i64: 16, 16>, bf16>) {
  // expected-error@+1 {{expected 'f32' but got 'bf16'}}
  "pto.texp"(%a, %d) : (!v, !pto.tile_buf<"vec", array<i64: 16, 16>, bf16>) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @tabs_three(%a: !v) {
  // expected-error@+1 {{op expects exactly 2 operands, but got 3}}
  "pto.tabs"(%a, %a, %a) : (!v, !v, !v) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @trelu_shape(%a: !v, %d: !pto.tile_buf<"vec", array<i64: 32, 8>, f32>) {
  // expected-error@+1 {{expected 'array<i64: 16, 16>' but got 'array<i64: 32, 8>'}}
  "pto.trelu"(%a, %d) : (!v, !pto.tile_buf<"vec", array<i64: 32, 8>, f32>) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// -- tcvt: same shape, any dtypes -------------------------------------------------

func.func @tcvt_shape(%a: !v, %d: !pto.tile_buf<"vec", array<i64: 16, 32>, f16>) {
  // expected-error@+1 {{expected 'array<i64: 16, 16>' but got 'array<i64: 16, 32>'}}
  "pto.tcvt"(%a, %d) : (!v, !pto.tile_buf<"vec", array<i64: 16, 32>, f16>) -> ()
  return
}

// -----

// -- tmov: same shape and dtype, any spaces -----------------------------------------

func.func @tmov_dtype(%a: !pto.tile_buf<"mat", array<i64: 16, 16>, f32>, %b: !pto.tile_buf<"left", array<i64: 16, 16>, f16>) {
  // expected-error@+1 {{expected 'f32' but got 'f16'}}
  "pto.tmov"(%a, %b) : (!pto.tile_buf<"mat", array<i64: 16, 16>, f32>, !pto.tile_buf<"left", array<i64: 16, 16>, f16>) -> ()
  return
}

// -----

func.func @tmov_shape(%a: !pto.tile_buf<"mat", array<i64: 16, 16>, f16>, %b: !pto.tile_buf<"left", array<i64: 16, 32>, f16>) {
  // expected-error@+1 {{expected 'array<i64: 16, 16>' but got 'array<i64: 16, 32>'}}
  "pto.tmov"(%a, %b) : (!pto.tile_buf<"mat", array<i64: 16, 16>, f16>, !pto.tile_buf<"left", array<i64: 16, 32>, f16>) -> ()
  return
}

// -----

// -- tmatmul / tmatmul_acc: lhs in left, rhs in right, dst in acc, lhs and rhs one dtype

!l = !pto.tile_buf<"left", array<i64: 16, 16>, f16>
!r = !pto.tile_buf<"right", array<i64: 16, 16>, f16>
!a = !pto.tile_buf<"acc", array<i64: 16, 16>, f32>

func.func @tmatmul_lhs_vec(%l: !pto.tile_buf<"vec", array<i64: 16, 16>, f16>, %r: !r, %c: !a) {
  // expected-error@+1 {{expected '"left"' but got '"vec"'}}
  "pto.tmatmul"(%l, %r, %c) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f16>, !r, !a) -> ()
  return
}

// -----

!l = !pto.tile_buf<"left", array<i64: 16, 16>, f16>
!a = !pto.tile_buf<"acc", array<i64: 16, 16>, f32>

func.func @tmatmul_rhs_left(%l: !l, %c: !a) {
  // expected-error@+1 {{expected '"right"' but got '"left"'}}
  "pto.tmatmul"(%l, %l, %c) : (!l, !l, !a) -> ()
  return
}

// -----

!l = !pto.tile_buf<"left", array<i64: 16, 16>, f16>
!r = !pto.tile_buf<"right", array<i64: 16, 16>, f16>

func.func @tmatmul_dst_vec(%l: !l, %r: !r, %c: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) {
  // expected-error@+1 {{expected '"acc"' but got '"vec"'}}
  "pto.tmatmul"(%l, %r, %c) : (!l, !r, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  return
}

// -----

!l = !pto.tile_buf<"left", array<i64: 16, 16>, f16>
!a = !pto.tile_buf<"acc", array<i64: 16, 16>, f32>

func.func @tmatmul_mixed_input_dtypes(%l: !l, %r: !pto.tile_buf<"right", array<i64: 16, 16>, bf16>, %c: !a) {
  // expected-error@+1 {{expected 'f16' but got 'bf16'}}
  "pto.tmatmul"(%l, %r, %c) : (!l, !pto.tile_buf<"right", array<i64: 16, 16>, bf16>, !a) -> ()
  return
}

// -----

!l = !pto.tile_buf<"left", array<i64: 16, 16>, f16>
!r = !pto.tile_buf<"right", array<i64: 16, 16>, f16>

func.func @tmatmul_acc_in_mat(%l: !l, %r: !r, %c: !pto.tile_buf<"mat", array<i64: 16, 16>, f32>) {
  // expected-error@+1 {{expected '"acc"' but got '"mat"'}}
  "pto.tmatmul_acc"(%l, %r, %c) : (!l, !r, !pto.tile_buf<"mat", array<i64: 16, 16>, f32>) -> ()
  return
}

// -----

!l = !pto.tile_buf<"left", array<i64: 16, 16>, f16>
!r = !pto.tile_buf<"right", array<i64: 16, 16>, f16>

func.func @tmatmul_acc_two(%l: !l, %r: !r) {
  // expected-error@+1 {{op expects exactly 3 operands, but got 2}}
  "pto.tmatmul_acc"(%l, %r) : (!l, !r) -> ()
  return
}

// -----

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
// IRDL ops take no regions.
func.func @region(%a: !v) {
  // expected-error@+1 {{'pto.tadd' op unexpected number of regions: expected 0 but got 1}}
  "pto.tadd"(%a, %a, %a) ({}) : (!v, !v, !v) -> ()
  return
}
