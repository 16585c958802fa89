!t = !pto.tile_buf<"vec", array<i64: 16, 64>, f32>
func.func @add(%x: memref<256x64xf32>, %y: memref<256x64xf32>, %z: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %a = "pto.alloc_tile"() : () -> !t
    %b = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%x, %row, %c0, %a) : (memref<256x64xf32>, index, index, !t) -> ()
    "pto.tload"(%y, %row, %c0, %b) : (memref<256x64xf32>, index, index, !t) -> ()
    "pto.tadd"(%a, %b, %b) : (!t, !t, !t) -> ()
    "pto.tstore"(%b, %z, %row, %c0) : (!t, memref<256x64xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
