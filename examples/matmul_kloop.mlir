// A matmul K-loop, C = A @ B with A 128x512 and B 512x128 (f16), C f32:
// per 32-wide slice of K, load the A and B slices into L1 ("mat", MTE2),
// move them to L0A/L0B ("left"/"right", MTE1) and accumulate on the cube
// unit (M) into one L0C tile ("acc"). The first slice is peeled to
// initialise the accumulator with `pto.tmatmul`.
//
// The accumulator is loop-carried (`pto.tmatmul_acc` reads it), so it keeps
// one buffer. With the default `spaces=vec,mat` only the L1 slices get N
// slots; add `left,right` to the spaces to buffer the L0 tiles too:
//
//   pto-run examples/matmul_kloop.mlir --cycles --compare-pipeline 'pto-pipeline{use-ptoas-multi-buffer=true}'
//   pto-run examples/matmul_kloop.mlir --cycles --compare-pipeline 'convert-to-ptoas-multi-buffer{spaces=vec,mat,left,right},pto-allocate-memory-addr'

!a_l1 = !pto.tile_buf<"mat", array<i64: 128, 32>, f16>
!b_l1 = !pto.tile_buf<"mat", array<i64: 32, 128>, f16>
!a_l0 = !pto.tile_buf<"left", array<i64: 128, 32>, f16>
!b_l0 = !pto.tile_buf<"right", array<i64: 32, 128>, f16>
!c_l0 = !pto.tile_buf<"acc", array<i64: 128, 128>, f32>

module attributes {pto.target_arch = "a3"} {
  func.func @matmul(%A: memref<128x512xf16>, %B: memref<512x128xf16>, %C: memref<128x128xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %slices = arith.constant 16 : index
    %acc = "pto.alloc_tile"() : () -> !c_l0
    %a0 = "pto.alloc_tile"() : () -> !a_l1
    %b0 = "pto.alloc_tile"() : () -> !b_l1
    %l0 = "pto.alloc_tile"() : () -> !a_l0
    %r0 = "pto.alloc_tile"() : () -> !b_l0
    "pto.tload"(%A, %c0, %c0, %a0) : (memref<128x512xf16>, index, index, !a_l1) -> ()
    "pto.tload"(%B, %c0, %c0, %b0) : (memref<512x128xf16>, index, index, !b_l1) -> ()
    "pto.tmov"(%a0, %l0) : (!a_l1, !a_l0) -> ()
    "pto.tmov"(%b0, %r0) : (!b_l1, !b_l0) -> ()
    "pto.tmatmul"(%l0, %r0, %acc) : (!a_l0, !b_l0, !c_l0) -> ()
    scf.for %k = %c1 to %slices step %c1 {
      %a = "pto.alloc_tile"() : () -> !a_l1
      %b = "pto.alloc_tile"() : () -> !b_l1
      %l = "pto.alloc_tile"() : () -> !a_l0
      %r = "pto.alloc_tile"() : () -> !b_l0
      %kk = arith.muli %k, %c32 : index
      "pto.tload"(%A, %c0, %kk, %a) : (memref<128x512xf16>, index, index, !a_l1) -> ()
      "pto.tload"(%B, %kk, %c0, %b) : (memref<512x128xf16>, index, index, !b_l1) -> ()
      "pto.tmov"(%a, %l) : (!a_l1, !a_l0) -> ()
      "pto.tmov"(%b, %r) : (!b_l1, !b_l0) -> ()
      "pto.tmatmul_acc"(%l, %r, %acc) : (!a_l0, !b_l0, !c_l0) -> ()
    } {pto.pipeline_stages = 2 : i64}
    "pto.tstore"(%acc, %C, %c0, %c0) : (!c_l0, memref<128x128xf32>, index, index) -> ()
    return
  }
}
