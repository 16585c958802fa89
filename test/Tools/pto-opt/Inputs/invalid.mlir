// Invalid for the pto verifier: an unaligned addr.
func.func @unaligned() {
  %a = arith.constant 16 : i64
  %t = "pto.alloc_tile"(%a) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}
