// A load-bound kernel: each 16x64 f32 tile is loaded (MTE2), scaled (V) and
// stored (MTE3). The vector work is small, so the loads decide the time;
// double buffering lets the load of tile i+1 start while tile i is scaled.
//
//   pto-run examples/copy_scale.mlir --cycles --compare-pipeline 'pto-pipeline{use-ptoas-multi-buffer=true}'

!tile = !pto.tile_buf<"vec", array<i64: 16, 64>, f32>

module attributes {pto.target_arch = "a3"} {
  func.func @copy_scale(%src: memref<512x64xf32>, %dst: memref<512x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tiles = arith.constant 32 : index
    %scale = arith.constant 0.5 : f32
    scf.for %i = %c0 to %tiles step %c1 {
      %in = "pto.alloc_tile"() : () -> !tile
      %out = "pto.alloc_tile"() : () -> !tile
      %row = arith.muli %i, %c16 : index
      "pto.tload"(%src, %row, %c0, %in) : (memref<512x64xf32>, index, index, !tile) -> ()
      "pto.tmuls"(%in, %scale, %out) : (!tile, f32, !tile) -> ()
      "pto.tstore"(%out, %dst, %row, %c0) : (!tile, memref<512x64xf32>, index, index) -> ()
    } {pto.pipeline_stages = 2 : i64}
    return
  }
}
