// RUN: pto-opt %s --pto-lower-pipeline-loops --verify-diagnostics | FileCheck %s

// Nested pipeline loops are lowered innermost first, so each copy of the
// outer body holds an already replicated inner loop.

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// CHECK-LABEL: func.func @nested
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK-COUNT-2:   "pto.alloc_tile"
// CHECK:         } {pto.pipeline_stages = 1 : i64}
// CHECK:         scf.for
// CHECK-COUNT-2:   "pto.alloc_tile"
// CHECK:         } {pto.pipeline_stages = 1 : i64}
// CHECK:       } {pto.pipeline_stages = 1 : i64}
// CHECK-NOT:   pto.pipeline_stages = 2
func.func @nested(%src: memref<64x16xf32>, %dst: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %r = arith.muli %i, %c4 : index
      %row = arith.addi %r, %j : index
      %t = "pto.alloc_tile"() : () -> !t
      "pto.tload"(%src, %row, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
      "pto.tstore"(%t, %dst, %row, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
    } {pto.pipeline_stages = 2 : i64}
  } {pto.pipeline_stages = 2 : i64}
  return
}
