// A balanced kernel: per 16x64 f32 tile the load (MTE2), the vector work
// (V: exp, scale, shift) and the store (MTE3) take about as long as each
// other, so only a schedule that keeps all three pipes busy at once
// reaches the lower bound; a single buffer runs them one after the other.
//
//   pto-run examples/balanced.mlir --cycles --compare-pipeline 'pto-pipeline{use-ptoas-multi-buffer=true}'

!tile = !pto.tile_buf<"vec", array<i64: 16, 64>, f32>

module attributes {pto.target_arch = "a3"} {
  func.func @balanced(%src: memref<256x64xf32>, %dst: memref<256x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tiles = arith.constant 16 : index
    %scale = arith.constant 0.25 : f32
    %shift = arith.constant -1.0 : f32
    scf.for %i = %c0 to %tiles step %c1 {
      %x = "pto.alloc_tile"() : () -> !tile
      %e = "pto.alloc_tile"() : () -> !tile
      %s = "pto.alloc_tile"() : () -> !tile
      %y = "pto.alloc_tile"() : () -> !tile
      %row = arith.muli %i, %c16 : index
      "pto.tload"(%src, %row, %c0, %x) : (memref<256x64xf32>, index, index, !tile) -> ()
      "pto.texp"(%x, %e) : (!tile, !tile) -> ()
      "pto.tmuls"(%e, %scale, %s) : (!tile, f32, !tile) -> ()
      "pto.tadds"(%s, %shift, %y) : (!tile, f32, !tile) -> ()
      "pto.tstore"(%y, %dst, %row, %c0) : (!tile, memref<256x64xf32>, index, index) -> ()
    } {pto.pipeline_stages = 2 : i64}
    return
  }
}
