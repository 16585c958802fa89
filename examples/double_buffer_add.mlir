// A two-input add kernel, pipelined by its frontend: the loop over 16-row
// tiles carries `pto.pipeline_stages = 2`, asking for double buffering so the
// loads of tile i+1 (MTE2) overlap the add of tile i (V) and the store of
// tile i-1 (MTE3).
//
//   pto-opt --convert-to-ptoas-multi-buffer examples/double_buffer_add.mlir
//   pto-opt --pto-pipeline --use-ptoas-multi-buffer examples/double_buffer_add.mlir
//   pto-run examples/double_buffer_add.mlir --func add --compare-pipeline 'pto-pipeline{use-ptoas-multi-buffer=true}'

!tile = !pto.tile_buf<"vec", array<i64: 16, 64>, f32>

module attributes {pto.target_arch = "a3"} {
  func.func @add(%x: memref<256x64xf32>, %y: memref<256x64xf32>, %z: memref<256x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tiles = arith.constant 16 : index
    scf.for %i = %c0 to %tiles step %c1 {
      %a = "pto.alloc_tile"() : () -> !tile
      %b = "pto.alloc_tile"() : () -> !tile
      %sum = "pto.alloc_tile"() : () -> !tile
      %row = arith.muli %i, %c16 : index
      "pto.tload"(%x, %row, %c0, %a) : (memref<256x64xf32>, index, index, !tile) -> ()
      "pto.tload"(%y, %row, %c0, %b) : (memref<256x64xf32>, index, index, !tile) -> ()
      "pto.tadd"(%a, %b, %sum) : (!tile, !tile, !tile) -> ()
      "pto.tstore"(%sum, %z, %row, %c0) : (!tile, memref<256x64xf32>, index, index) -> ()
    } {pto.pipeline_stages = 2 : i64}
    return
  }
}
