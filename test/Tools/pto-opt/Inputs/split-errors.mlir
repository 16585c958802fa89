// Three chunks; the second and fourth are invalid.
func.func @ok1() {
  return
}

// -----

func.func @bad_slot(%mb: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>) {
  %c5 = arith.constant 5 : index
  %t = "pto.multi_tile_get"(%mb, %c5) : (!pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>, index) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}

// -----

func.func @ok2() {
  return
}

// -----

func.func @syntax() {
  %x = arith.constant : i32
  return
}
