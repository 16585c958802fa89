// A small valid kernel body used by several CLI tests.
!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
func.func @add(%src: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c0_dup = arith.constant 0 : index
  %t = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0_dup, %t) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tadd"(%t, %t, %t) : (!v, !v, !v) -> ()
  "pto.tstore"(%t, %src, %c0, %c0_dup) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}
