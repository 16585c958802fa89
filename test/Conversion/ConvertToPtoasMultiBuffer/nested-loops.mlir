// RUN: pto-opt %s --convert-to-ptoas-multi-buffer --verify-diagnostics | FileCheck %s

// Nested pipeline loops convert each on its own: the inner loop is a
// boundary for the outer one, so each tile belongs to its nearest pipeline
// loop and rotates with that loop's slot.

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// CHECK-LABEL: func.func @nested
// CHECK:       %[[OUTER_MB:.*]] = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 8, 16>, f32>, 2 : i64>
// CHECK-NEXT:  scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[OUTER_SLOT:.*]] = arith.remui %[[I]], %[[C2]] : index
// CHECK-NEXT:    %[[ROW_TILE:.*]] = "pto.multi_tile_get"(%[[OUTER_MB]], %[[OUTER_SLOT]])
// CHECK:         %[[INNER_MB:.*]] = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 8, 16>, f32>, 3 : i64>
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[INNER_SLOT:.*]] = arith.remui %[[J]], %[[C3]] : index
// CHECK-NEXT:      "pto.multi_tile_get"(%[[INNER_MB]], %[[INNER_SLOT]])
// CHECK:         } {pto.pipeline_stages = 1 : i64}
// CHECK:       } {pto.pipeline_stages = 1 : i64}
func.func @nested(%src: memref<64x16xf32>, %dst: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %row_tile = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c8 : index
    "pto.tload"(%src, %row, %c0, %row_tile) : (memref<64x16xf32>, index, index, !t) -> ()
    scf.for %j = %c0 to %c4 step %c1 {
      %t = "pto.alloc_tile"() : () -> !t
      %r = arith.addi %row, %j : index
      "pto.tload"(%src, %r, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
      "pto.tadd"(%t, %row_tile, %t) : (!t, !t, !t) -> ()
      "pto.tstore"(%t, %dst, %r, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
    } {pto.pipeline_stages = 3 : i64}
  } {pto.pipeline_stages = 2 : i64}
  return
}
