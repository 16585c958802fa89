// A compute-bound kernel: each 16x64 f32 tile x goes through a chain of
// exponentials and scalings on the vector unit (V) and gates it,
// y = x * exp(-exp(-0.5 * exp(x))); the chain takes about twice as long as
// loading a tile. x is read again at the end of the chain, so with one
// buffer the load of the next tile waits for the whole chain; with two
// slots it overlaps it, and the chain itself is the bound.
//
//   pto-run examples/exp_chain.mlir --cycles --compare-pipeline 'pto-pipeline{use-ptoas-multi-buffer=true}'

!tile = !pto.tile_buf<"vec", array<i64: 16, 64>, f32>

module attributes {pto.target_arch = "a3"} {
  func.func @exp_chain(%src: memref<256x64xf32>, %dst: memref<256x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tiles = arith.constant 16 : index
    %neg_half = arith.constant -0.5 : f32
    %neg_one = arith.constant -1.0 : f32
    scf.for %i = %c0 to %tiles step %c1 {
      %x = "pto.alloc_tile"() : () -> !tile
      %e1 = "pto.alloc_tile"() : () -> !tile
      %s1 = "pto.alloc_tile"() : () -> !tile
      %e2 = "pto.alloc_tile"() : () -> !tile
      %s2 = "pto.alloc_tile"() : () -> !tile
      %g = "pto.alloc_tile"() : () -> !tile
      %y = "pto.alloc_tile"() : () -> !tile
      %row = arith.muli %i, %c16 : index
      "pto.tload"(%src, %row, %c0, %x) : (memref<256x64xf32>, index, index, !tile) -> ()
      // the gate exp(-exp(-0.5 * exp(x))) is in (0, 1] for any finite x: no inf
      "pto.texp"(%x, %e1) : (!tile, !tile) -> ()
      "pto.tmuls"(%e1, %neg_half, %s1) : (!tile, f32, !tile) -> ()
      "pto.texp"(%s1, %e2) : (!tile, !tile) -> ()
      "pto.tmuls"(%e2, %neg_one, %s2) : (!tile, f32, !tile) -> ()
      "pto.texp"(%s2, %g) : (!tile, !tile) -> ()
      "pto.tmul"(%x, %g, %y) : (!tile, !tile, !tile) -> ()
      "pto.tstore"(%y, %dst, %row, %c0) : (!tile, memref<256x64xf32>, index, index) -> ()
    } {pto.pipeline_stages = 2 : i64}
    return
  }
}
