// Valid for IRDL, invalid for the pto verifier: slot 5 of a 2-slot buffer (generic form).
!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32, array<i64: 16, 16>, "row_major", "none_box", 512 : i64, 0 : i64, 0 : i64>
func.func @slot_5_of_2(%mb: !pto.multi_tile_buf<!v, 2 : i64>) {
  %c5 = arith.constant 5 : index
  %t = "pto.multi_tile_get"(%mb, %c5) : (!pto.multi_tile_buf<!v, 2 : i64>, index) -> !v
  return
}
